"""Scaffold a new kernel family: everything the registry test asks of one, written at once, as
clang-tidy's `add_new_check.py` writes a new check.

    python -m cutlint.testing.new_family sm120-foo-gemm --kind macro --form INSTANTIATE_FOO

writes, under the repository root (`--root`, default: the source checkout):

    analyzer/cutlint/families/<folder>/__init__.py     the package, exporting FAMILY
    analyzer/cutlint/families/<folder>/family.py       the Family protocol, claiming the form and
                                                       saying honestly that nothing is modeled yet
    analyzer/cutlint/families/<folder>/probe.py        where `cutlint verify`'s probe will go
    analyzer/cutlint/families/<folder>/truth.py        how its compiler truth will be compared
    analyzer/cutlint/families/<folder>/data/family.toml  its data file, with `todo`
    fixtures/<name>/<name>.cu                          an annotated example of the form
    tests/data/nvcc_<folder>_truth.json                its (empty) compiler truth
    docs/families/<name>.md                            its doc page

and adds the one registry line (families/registry.py): nothing else names a family (setuptools
finds its package, `cutlint families` lists it, a rule selects it by group). The family claims its
form and reports
every claim not modeled (CUT010), naming what is missing: a scaffold never judges a kernel. Its
data file's `todo` marks it as such for the registry test (tests/families/test_registry.py): the
`// model:` fixture line and the truth rows are owed, and the test says so once they exist.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.families.groups import GROUPS, Role, RuleGroup

SOURCE_ROOT = Path(__file__).parents[3]
KINDS = {
    "macro": "MACRO_CALL",
    "launcher": "EXPLICIT_INSTANTIATION",
}
"""--kind -> the source form (cutlint.records.FormKind) the family claims."""
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")


@dataclass(frozen=True)
class Scaffold:
    name: str
    """Kebab-case family name: `sm120-foo-gemm`."""
    kind: str
    """A key of KINDS."""
    form: str
    """The macro or launcher name the family claims."""
    capacity: RuleGroup
    """The capacity rule group its kernel joins."""

    @property
    def folder(self) -> str:
        return self.name.replace("-", "_")

    @property
    def cls(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("-"))


def _init(s: Scaffold) -> str:
    return f'''"""The `{s.name}` kernel family (scaffolded: see family.py's TODOs and
docs/families/{s.name}.md)."""

from cutlint.families.{s.folder}.family import FAMILY

__all__ = ["FAMILY"]
'''


def _family(s: Scaffold) -> str:
    return f'''"""The `{s.name}` family: claims `{s.form}` ({s.kind}).

Scaffolded by cutlint.testing.new_family. It claims its form and says that nothing is modeled
yet (`covers`), so every claim is reported not modeled (CUT010), never judged. TODO, in order:
the recipe's typed fields (`claim`), a model of the kernel's SharedStorage from cutlint.cutlass's
parts (`resources`), the family's metrics, its compiler truth (truth.py) and its probe (probe.py);
then take `todo` out of data/family.toml.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cutlint.families.base import Claim, Facts, InputField
from cutlint.families.groups import RuleGroup
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources

NOT_MODELED = "{s.name} is scaffolded: no part of its kernel is modeled yet"


class {s.cls}Recipe(Recipe):
    """One `{s.form}` instantiation, as written (TODO: typed fields, read from `args`)."""

    name: str
    args: tuple[str, ...]


class {s.cls}:
    name: ClassVar[str] = "{s.name}"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({{RuleGroup.{s.capacity.name}}})
    package: ClassVar[str] = "cutlint.families.{s.folder}"
    metrics: ClassVar[Mapping[str, str]] = {{}}
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {{}}
    columns: ClassVar[tuple[str, ...]] = ()
    probe: ClassVar[str | None] = None

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.{KINDS[s.kind]}:
            return None
        if inst.name != "{s.form}":
            return None
        return {s.cls}Recipe(family=self.name, name=inst.name, args=inst.args)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        return NOT_MODELED  # TODO: None for the recipes the model computes exactly

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        # never reached while `covers` says not modeled
        raise NotImplementedError(NOT_MODELED)

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {{}}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        return ()

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        assert isinstance(recipe, {s.cls}Recipe)
        call = f"{{recipe.name}}({{', '.join(recipe.args)}})"
        return (InputField("input.call", "call", call, "the instantiation as written"),)

    def title(self, recipe: Recipe) -> str:
        assert isinstance(recipe, {s.cls}Recipe)
        return recipe.name


FAMILY = {s.cls}()
'''


def _probe(s: Scaffold) -> str:
    return f'''"""What `cutlint verify` builds for `{s.name}` (cutlint.families.probe): TODO.

A JIT-module family's probe names its header patches (`PATCHES`), the instantiations it builds
(`INSTANTIATIONS`) and `claims_file` (cutlint.families.probe.JitProbeSpec); a launcher family's
names the launcher it patches and the C++ it inserts (`LauncherProbeSpec`). Set the family's
`probe` to the probe's name once this module says what to build.
"""

from __future__ import annotations
'''


def _truth(s: Scaffold) -> str:
    return f'''"""Compiler truth of `{s.name}` (cutlint.families.truth): TODO. Record rows with
`cutlint verify` (tests/data/nvcc_{s.folder}_truth.json) and compare the model's numbers here."""

from __future__ import annotations

from cutlint.families.truth import Comparison, Row, Truth


def compare(row: Row) -> Comparison | str:
    return "{s.name} is scaffolded: its model computes no row yet"


TRUTH = Truth(compare)
'''


def _toml(s: Scaffold) -> str:
    return f"""# The `{s.name}` family's data: what it is, and every constant with its source.

title = "{s.name} (scaffolded: TODO a title in the field's words)"
producer = "TODO: who writes `{s.form}` (FlashInfer JIT, TensorRT-LLM, cutlass_library, ...)"
recipe_source = "TODO: the header and symbol that define what `{s.form}` builds"
doc = "docs/families/{s.name}.md"
fixtures = "fixtures/{s.name}"
truth = "tests/data/nvcc_{s.folder}_truth.json"
todo = "scaffolded: no part of the kernel is modeled, no compiler truth is recorded"

# [constants.NAME]
# value = 0
# source = "include/cutlass/...: the symbol it mirrors"
"""


def _fixture(s: Scaffold) -> str:
    if s.kind == "macro":
        call = f"{s.form}(cutlass::half_t, 128, 128, 64);"
    else:
        call = f"template void {s.form}<cutlass::half_t, 128, 128, 64>(int);"
    return f"""// cutlint-fixture: arch=sm_120
// An example of the form `{s.name}` claims (TODO: a real instantiation, as its producer writes
// it). Until the family is modeled, the check says so; then this becomes
// `// model: smem.total == <nvcc's sizeof(SharedStorage)>` and the rules' expectations.
// expect: [CUT010 not-modeled] "{s.name} is scaffolded"
{call}
"""


def _doc(s: Scaffold) -> str:
    return f"""# `{s.name}`

Scaffolded (`python -m cutlint.testing.new_family`): cutlint claims `{s.form}` for this family
and reports every such instantiation not modeled (CUT010) until its model lands.

## What it claims

TODO: the source form, its producer and the releases that write it.

## What it computes

TODO: the kernel's SharedStorage, stage count and launch bounds, each from CUTLASS's header and
symbol; the rule groups it joins ({s.capacity.value}).

## Compiler truth

TODO: the rows of `tests/data/nvcc_{s.folder}_truth.json`, recorded by `cutlint verify`.
"""


def _registry_line(s: Scaffold) -> str:
    return f'    ("{s.name}", "{s.folder}"),\n'


def files(s: Scaffold) -> dict[str, str]:
    """Repository-relative path -> text of every new file."""
    pkg = f"analyzer/cutlint/families/{s.folder}"
    return {
        f"{pkg}/__init__.py": _init(s),
        f"{pkg}/family.py": _family(s),
        f"{pkg}/probe.py": _probe(s),
        f"{pkg}/truth.py": _truth(s),
        f"{pkg}/data/family.toml": _toml(s),
        f"fixtures/{s.name}/{s.name}.cu": _fixture(s),
        f"tests/data/nvcc_{s.folder}_truth.json": '{\n  "rows": [],\n  "todo": "record with cutlint verify"\n}\n',
        f"docs/families/{s.name}.md": _doc(s),
    }


def _add_registry_line(root: Path, s: Scaffold) -> None:
    path = root / "analyzer/cutlint/families/registry.py"
    text = path.read_text()
    start = text.index("REGISTRY: tuple[tuple[str, str], ...] = (\n")
    end = text.index("\n)\n", start)
    path.write_text(text[: end + 1] + _registry_line(s) + text[end + 1 :])


def scaffold(s: Scaffold, root: Path = SOURCE_ROOT) -> list[Path]:
    """Write the family; FileExistsError when any of its files or its name is taken."""
    if not NAME.match(s.name):
        raise ValueError(f"{s.name!r}: a family name is kebab-case, e.g. sm120-foo-gemm")
    if GROUPS[s.capacity].role is not Role.CAPACITY:
        raise ValueError(f"{s.capacity.value} is not a capacity group")
    written = files(s)
    taken = [p for p in written if (root / p).exists()]
    if taken or f'"{s.name}"' in (root / "analyzer/cutlint/families/registry.py").read_text():
        raise FileExistsError(f"{s.name}: already there: {taken or ['registry line']}")
    for rel, text in written.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _add_registry_line(root, s)
    return [root / p for p in written]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cutlint.testing.new_family", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("name", help="kebab-case family name, e.g. sm120-foo-gemm")
    parser.add_argument(
        "--kind", choices=sorted(KINDS), required=True, help="the source form it claims"
    )
    parser.add_argument("--form", help="the macro or launcher name (default: derived from NAME)")
    capacity = [g.value for g, d in GROUPS.items() if d.role is Role.CAPACITY]
    parser.add_argument(
        "--capacity",
        choices=capacity,
        default=RuleGroup.SMEM_AT_INITIALIZE.value,
        help="its capacity rule group",
    )
    parser.add_argument("--root", type=Path, default=SOURCE_ROOT, help="the repository root")
    args = parser.parse_args(argv)
    snake = args.name.replace("-", "_")
    form = args.form or (
        f"INSTANTIATE_{snake.upper()}" if args.kind == "macro" else f"{snake}_launcher"
    )
    s = Scaffold(args.name, args.kind, form, RuleGroup(args.capacity))
    for path in scaffold(s, args.root):
        print(path)
    print(f"{args.root / 'analyzer/cutlint/families/registry.py'} (one line)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
