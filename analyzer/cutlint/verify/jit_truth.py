"""Compiler truth for a family of FlashInfer's JIT-rendered modules, release by release.

For each release: render its modules as its JIT does (producers.flashinfer.jit_modules), find the
family's instantiations in them (cutlint.parse), and ask nvcc (verify.jit_probe) for the numbers
of each kernel. Identical work is done once: an instantiation whose patched template header
(the part that defines the kernel types, byte for byte) and arguments were already probed for an
earlier release takes that row, marked with the release that was compiled (`probed_in`). One
compile per module and release otherwise, under `nice`.

`python -m cutlint.verify.jit_truth FAMILY OUT.json VERSION...` writes the rows the family's
truth test reads (tests/data/nvcc_<family>_truth.json).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cutlint.families.registry import family_in, probe_module
from cutlint.parse import parse_paths
from cutlint.parse.calls import MACRO_PREFIXES
from cutlint.producers.flashinfer.jit_modules import RenderedModule, render_jit_specs
from cutlint.producers.flashinfer.wheel import download_wheel
from cutlint.records import Instantiation
from cutlint.verify.jit_probe import (
    SM120F_GENCODE,
    HeaderPatch,
    JitProbeRow,
    patch_header,
    run_probe,
    template_arguments,
)
from cutlint.verify.probe_records import ProbeError

Log = Callable[[str], None]

FILES_PER_COMPILE = 8
"""Files per translation unit: the host pass's memory grows with the kernels in it (~1.3 GB for
8 FP4 kernels); eight files keep a compile near 2-3 GB on a shared machine."""


def _probe_module(family: str) -> ModuleType:
    """The probe module of the family in folder `family` (the truth tool's argument), through the
    registry."""
    module = probe_module(family_in(family))
    if module is None:
        raise ProbeError(f"family {family} has no probe module")
    return module


def _patches(probe: ModuleType, module: str) -> tuple[HeaderPatch, ...]:
    """The header patches a module's files need: the probe module's MODULE_PATCHES entry where
    its modules include different headers (a release may lack another module's header), else
    all of PATCHES."""
    per_module: dict[str, tuple[HeaderPatch, ...]] = getattr(probe, "MODULE_PATCHES", {})
    patches: tuple[HeaderPatch, ...] = per_module.get(module, probe.PATCHES)
    return patches


def _patched_hash(root: Path, probe: ModuleType, module: str) -> str:
    h = hashlib.sha256()
    include = root / "flashinfer" / "data" / "include"
    for p in _patches(probe, module):
        real = include / p.header
        text = patch_header(real.read_text(encoding="utf-8"), p, real.parent)
        # absolutized includes name the wheel's own directory: not part of what is compiled
        h.update(text.replace(str(root.resolve()), "<wheel>").encode())
    version_h = root / "flashinfer" / "data" / "cutlass" / "include" / "cutlass" / "version.h"
    h.update(version_h.read_bytes())
    return h.hexdigest()[:16]


def row_key(inst: Instantiation, defines: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What identifies an instantiation's kernel types within one patched header: the call and
    the macros its file defines before the header."""
    return (inst.name, *inst.args, *(f"-D{d}" for d in defines))


def match(
    rows: Sequence[JitProbeRow],
    inst: Instantiation,
    macro_args: Callable[[str], tuple[str, ...] | None] | None = None,
) -> list[JitProbeRow]:
    """The probe rows of one instantiation: by file and arguments for a macro call whose rows
    carry the stringized arguments; by `macro_args` (the probe module's, from the launcher's
    `__PRETTY_FUNCTION__`) for a macro that expands to an explicit instantiation; by template
    arguments for an explicit instantiation (its rows carry the function's
    `__PRETTY_FUNCTION__`)."""
    name = Path(inst.span.path).name
    if inst.name.startswith(MACRO_PREFIXES):
        by_file = [r for r in rows if Path(r.where).name == name and r.args == inst.args]
        if by_file or macro_args is None:
            return by_file
        return [r for r in rows if macro_args(r.where) == inst.args]
    out = []
    for r in rows:
        if f" {inst.name}(" not in r.where and f"::{inst.name}(" not in r.where:
            continue
        values = list(template_arguments(r.where).values())
        if [_spelling(v) for v in values] == [_spelling(a) for a in inst.args]:
            out.append(r)
    return out


def _spelling(text: str) -> str:
    """Template arguments as the compiler prints them and as the source spells them:
    `cutlass::float_e4m3_t` vs `cutlass::float_e4m3_t`, `true` vs `true`, `1` vs `1`."""
    return "".join(text.split())


def collect(
    family: str,
    versions: Sequence[str],
    wheels: Path,
    workdir: Path,
    log: Log = lambda _: None,
    only: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The rows of every module of the family's probe (or only the modules named in `only`)."""
    probe = _probe_module(family)
    done: dict[tuple[str, tuple[str, ...]], tuple[str, list[JitProbeRow]]] = {}
    out: list[dict[str, Any]] = []
    sm: int = getattr(probe, "SM", 120)
    gencode: str = getattr(probe, "GENCODE", SM120F_GENCODE)
    # a probe module may compile some modules for another device (MODULE_SM, GENCODES)
    module_sm: dict[str, int] = getattr(probe, "MODULE_SM", {})
    gencodes: dict[int, str] = getattr(probe, "GENCODES", {})
    names: tuple[str, ...] = getattr(probe, "MODULES", None) or (probe.MODULE,)
    names = tuple(n for n in names if n in only) if only else names
    shared = _Collection(probe, workdir, done, getattr(probe, "macro_args", None), log)
    for version in versions:
        root = download_wheel(version, wheels)
        by_sm = {
            s: render_jit_specs(root, version, workdir / f"render-{version}-{s}", s)
            for s in {sm, *module_sm.values()}
        }
        for name in names:
            device = module_sm.get(name, sm)
            rendered = by_sm[device]
            module = next((m for m in rendered if m.name == name), None)
            if module is None:
                log(f"{version}: no module {name}")
                continue
            code = gencodes.get(device, gencode)
            out += _collect_module(shared, root, version, module, code)
    return out


@dataclass(frozen=True)
class _Collection:
    """What every module `collect` compiles shares: the family's probe module, the work
    directory, the rows found so far (by patched headers and row key: a kernel two modules
    build is compiled once), the probe's reader of macro arguments, and the log."""

    probe: ModuleType
    workdir: Path
    done: dict[tuple[str, tuple[str, ...]], tuple[str, list[JitProbeRow]]]
    macro_args: Callable[[str], tuple[str, ...] | None] | None
    log: Log


def _collect_module(
    shared: _Collection, root: Path, version: str, module: RenderedModule, gencode: str
) -> list[dict[str, Any]]:
    probe, workdir, done, log = shared.probe, shared.workdir, shared.done, shared.log
    macro_args = shared.macro_args
    out: list[dict[str, Any]] = []
    header_key = _patched_hash(root, probe, module.name)
    # A probe module's `sample` picks the files compiled (a stratified sample where every file
    # holds many kernels); all its files otherwise.
    sample = getattr(probe, "sample", lambda _: True)
    files = [p for p in module.generated if probe.claims_file(p) and sample(p)]
    parsed = parse_paths(files)
    # a file's own #defines select what the header builds (ParsedFile.defines): part of the key
    defines = {Path(r.path): r.defines for r in parsed}
    insts = [i for r in parsed for i in r.instantiations if i.name in probe.INSTANTIATIONS]
    todo = sorted(
        {
            Path(i.span.path)
            for i in insts
            if (header_key, row_key(i, defines[Path(i.span.path)])) not in done
        }
    )
    found: list[JitProbeRow] = []
    # Files whose headers cannot share a translation unit (each is its own TU in the real
    # build) are compiled apart: the probe module's `tu_key`, if it has one.
    tu_key = getattr(probe, "tu_key", lambda _: "")
    groups: dict[str, list[Path]] = {}
    for f in todo:
        groups.setdefault(tu_key(f), []).append(f)
    per: int = getattr(probe, "FILES_PER_COMPILE", FILES_PER_COMPILE)
    per = getattr(probe, "MODULE_FILES_PER_COMPILE", {}).get(module.name, per)
    batches = [g[i : i + per] for g in groups.values() for i in range(0, len(g), per)]
    for n, batch in enumerate(batches):
        log(f"{version}: compiling {len(batch)} file(s) of {module.name}")
        run = run_probe(
            root,
            batch,
            _patches(probe, module.name),
            module.cuda_flags,
            workdir / f"probe-{version}-{module.name}-{n}",
            gencode=gencode,
        )
        log(f"{version}: {len(run.rows)} rows in {run.seconds:.0f} s")
        found.extend(run.rows)
    if todo:
        for i in insts:
            if Path(i.span.path) in todo:
                rows = match(found, i, macro_args)
                if not rows:
                    raise ProbeError(f"no probe row for {i.name}{i.args} in {i.span.path}")
                done[(header_key, row_key(i, defines[Path(i.span.path)]))] = (version, rows)
    # A probe whose files call several macros with the same arguments (one kernel each)
    # names the row each macro's call owns: `LABELS`, macro name -> probe row label.
    label_of: dict[str, str] | None = getattr(probe, "LABELS", None)
    for i in insts:
        probed_in, rows = done[(header_key, row_key(i, defines[Path(i.span.path)]))]
        for r in rows:
            if label_of is not None and r.label != label_of[i.name]:
                continue
            d = asdict(r)
            d.pop("where")
            d.pop("line")
            d.pop("args")
            out.append(
                {
                    "version": version,
                    "module": module.name,
                    "file": Path(i.span.path).name,
                    "line": i.span.line,
                    "name": i.name,
                    "args": list(i.args),
                    "probed_in": probed_in,
                    **(
                        {"defines": list(defines[Path(i.span.path)])}
                        if defines[Path(i.span.path)]
                        else {}
                    ),
                    **d,
                }
            )
    return out


def main(argv: Sequence[str]) -> int:
    """`FAMILY OUT.json VERSION... [--only=MODULE,...]`: with --only, the rows of those modules
    (and versions) replace theirs in an existing OUT.json and the other rows are kept."""
    only = tuple(
        m for a in argv if a.startswith("--only=") for m in a.removeprefix("--only=").split(",")
    )
    family, target, *versions = [a for a in argv if not a.startswith("--only=")]
    wheels = Path.home() / ".cache" / "cutlint-tests"
    with tempfile.TemporaryDirectory(prefix="cutlint-jit-truth-") as tmp:
        rows = collect(
            family, versions, wheels, Path(tmp), log=lambda m: print(m, file=sys.stderr), only=only
        )
    if only and Path(target).exists():
        kept = [
            r
            for r in json.loads(Path(target).read_text())["rows"]
            if not (r["module"] in only and r["version"] in versions)
        ]
        rows = kept + rows
    about = (
        f"Compiler truth for the {family} family: nvcc, host-only probe "
        "(cutlint.verify.jit_probe), on the files FlashInfer's own JIT functions render for "
        f"flashinfer-python {', '.join(versions)}, compiled with the module's flags against the "
        "headers of the same wheel. One row per kernel of each instantiation; `probed_in` is the "
        "release whose compile produced it (an identical patched header and arguments are "
        "compiled once)."
    )
    Path(target).write_text(json.dumps({"about": about, "rows": rows}, indent=1) + "\n")
    print(f"{len(rows)} rows -> {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
