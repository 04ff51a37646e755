"""Which CUTLASS version an instantiation is built against, and what that version's code does.

The version decides the builder's stage budget and parts of the mainloop layout (see
data/cutlass.toml). Which version a file is built with is decided above this floor, where the
producers' data is (`cutlint.producers.cutlass_version.resolve`): CUTLASS knows no producer.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

Version = tuple[int, int, int]


def parse_version(text: str) -> Version:
    """`4.5.0` -> (4, 5, 0); `4.5` -> (4, 5, 0)."""
    m = re.fullmatch(r"\s*([0-9]{1,6})\.([0-9]{1,6})(?:\.([0-9]{1,6}))?\S*\s*", text)
    if not m:
        raise ValueError(f"not a CUTLASS version: {text!r}")
    return int(m[1]), int(m[2]), int(m[3] or 0)


def format_version(v: Version) -> str:
    return ".".join(map(str, v))


def _load(name: str) -> dict[str, Any]:
    # Beside this module, read as a file: importlib.resources would add its imports to
    # `cutlint --version`, which reads this table. A command that has imported cutlint.tables
    # (a check: for the other tables) reads it through its JSON copy too, and imports no
    # tomllib (8 ms of a one-file check on the 2-core machine); `--version` parses the TOML,
    # which costs it less than importing cutlint.tables (hashlib, json, inputs) would.
    path = Path(__file__).parent / "data" / name
    if "cutlint.tables" in sys.modules:
        from cutlint import tables

        return tables.load(path)
    import tomllib

    with path.open("rb") as f:
        return tomllib.load(f)


@dataclass(frozen=True)
class Knob:
    name: str
    since: Version
    what: str
    source: str


@dataclass(frozen=True)
class CutlassModel:
    """The knobs of one CUTLASS version, and how the version was decided."""

    version: Version
    origin: str
    knobs: frozenset[str]
    verified: bool

    def has(self, knob: str) -> bool:
        return knob in self.knobs

    @cached_property
    def label(self) -> str:
        """The version as text, made once per model: the families ask it of every kernel (a
        model is frozen, so its version never changes; equality and hashing read the fields)."""
        return format_version(self.version)


@cache
def _cutlass_table() -> tuple[Version, Version, tuple[Version, ...], tuple[Knob, ...]]:
    data = _load("cutlass.toml")
    knobs = tuple(
        Knob(name, parse_version(k["since"]), k["what"], k["source"])
        for name, k in data["knobs"].items()
    )
    verified = tuple(parse_version(v) for v in data["verified"])
    return (
        parse_version(data["modeled"]["first"]),
        parse_version(data["modeled"]["last"]),
        verified,
        knobs,
    )


def knobs() -> tuple[Knob, ...]:
    return _cutlass_table()[3]


def modeled_range() -> tuple[Version, Version]:
    first, last, _, _ = _cutlass_table()
    return first, last


def outside_modeled_range(cutlass: CutlassModel) -> str | None:
    """Why a family cannot model `cutlass` (a release outside data/cutlass.toml's range), or None."""
    first, last = modeled_range()
    if first <= cutlass.version <= last:
        return None
    return (
        f"CUTLASS {cutlass.label} is outside the modeled range "
        f"{format_version(first)}-{format_version(last)}"
    )


def verified_versions() -> tuple[Version, ...]:
    """The versions whose numbers the compiler confirmed (docs/validation.md)."""
    return _cutlass_table()[2]


def cutlass_model(version: Version, origin: str) -> CutlassModel:
    _, _, verified, all_knobs = _cutlass_table()
    on = frozenset(k.name for k in all_knobs if version >= k.since)
    return CutlassModel(version, origin, on, version in verified)


def read_version_h(include_dir: Path) -> Version | None:
    """CUTLASS_MAJOR/MINOR/PATCH from `<include_dir>/cutlass/version.h`, if it is there."""
    try:
        return version_h(include_dir)
    except ValueError:
        return None


def version_h(include_dir: Path) -> Version:
    """CUTLASS_MAJOR/MINOR/PATCH from `<include_dir>/cutlass/version.h`, read through
    cutlint.inputs (a regular file: a FIFO there must not block the run). ValueError says why
    not, and where the header is when `include_dir` is the CUTLASS root instead of its include/."""
    from cutlint import inputs

    path = include_dir / "cutlass" / "version.h"
    try:
        text = inputs.read_bytes(path, inputs.HEADER).decode("utf-8", "replace")
    except inputs.InputError as e:
        hint = ""
        if (include_dir / "include" / "cutlass" / "version.h").exists():
            hint = f"; {include_dir / 'include'} has it: give the include directory"
        raise ValueError(f"{include_dir}: no readable cutlass/version.h ({e.why}){hint}") from None
    parts = [
        re.search(rf"#define\s+CUTLASS_{k}\s+([0-9]{{1,6}})\b", text)
        for k in ("MAJOR", "MINOR", "PATCH")
    ]
    if not all(parts):
        raise ValueError(f"{path}: no CUTLASS_MAJOR/MINOR/PATCH defines")
    return tuple(int(p[1]) for p in parts if p)  # type: ignore[return-value]


def is_directory(value: str | Path) -> bool:
    """Path(value).is_dir(), False for a name the OS refuses (a component over 255 bytes: Python
    3.11's is_dir raises ENAMETOOLONG rather than answer)."""
    try:
        return Path(value).is_dir()
    except (OSError, ValueError):
        return False


def check_cutlass_version(value: str) -> Version:
    """What `--cutlass-version` (or the config's `cutlass-version`) names: a CUTLASS include
    directory with a readable cutlass/version.h, or a version. ValueError says why not."""
    if is_directory(value):
        return version_h(Path(value))
    return parse_version(value)
