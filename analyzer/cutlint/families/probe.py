"""What a family tells `cutlint verify` about its compiler probe, in the family's own folder
(`<family>/probe.py`, found through the registry: `registry.probe_module`, `registry.probe_spec`).

A probe module says what is built and how it reads back; `cutlint.verify` compiles, links and
runs it and imports no family. Two shapes so far:

- a JIT-module family's probe (`JitProbeSpec`): the header patches that turn the module's
  template header into a probe copy (`HeaderPatch`), the instantiations it builds, the gencode,
  and how the compiler's printed template arguments read back (`template_arguments`);
- a launcher family's probe (`LauncherProbeSpec`, e.g. sm80_fused_moe/probe.py): the launcher
  `.inl` it patches, the patch (`patch_launcher`), the C++ helpers it inserts (data/), the output
  it prints and how each printed record is paired with an instantiation of the file.

A family's `probe.py` imports this module, never `cutlint.verify`, so the families stay below the
runner that drives them (docs/architecture.md, Layers). Errors in a family's patch or reader are
`PatchError`; the runner reports them as its ProbeError.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


class PatchError(RuntimeError):
    """A family's probe cannot be built or read: an anchor missing from the real header, output
    it cannot pair with an instantiation. The message names what."""


def absolutize_includes(text: str, launcher_dir: Path) -> str:
    """Make quoted includes that resolve next to the real launcher absolute: the probe copy lives
    in another directory, so "../moe_tma_warp_specialized_traits.h" etc. would otherwise stop
    resolving; pointing them at the very same files changes nothing else."""

    def fix(m: re.Match[str]) -> str:
        target = (launcher_dir / m.group(2)).resolve()
        return f'{m.group(1)}"{target}"' if target.is_file() else m.group(0)

    return re.sub(r'^(\s*#\s*include\s*)"([^"]+)"', fix, text, flags=re.MULTILINE)


class JitProbeSpec(Protocol):
    """A JIT-module family's `probe.py`, as verify's jit-module probe reads it (a module satisfies
    it). Optional, read with defaults where absent: `SM` and `GENCODE` (the SM120 ones when
    absent), `MODULE` or `MODULES`, `FILES_PER_COMPILE`, `MODULE_PATCHES`, `MODULE_SM`,
    `GENCODES`, `LABELS`, `macro_args`, `tu_key`, `sample`."""

    PATCHES: tuple[HeaderPatch, ...]
    INSTANTIATIONS: frozenset[str] | tuple[str, ...]
    """The macro or launcher names whose calls the probe builds."""

    def claims_file(self, path: Path) -> bool: ...


class LauncherProbeSpec(Protocol):
    """A launcher family's `probe.py`, as verify's runner reads it (a module satisfies it)."""

    LAUNCHER_NAME: str
    """The launcher function template the generated files instantiate."""
    OUTPUT_TAG: str
    """The prefix of each line the probe prints (one JSON record per instantiation)."""
    HELPERS_HPP: str
    """The C++ inserted into the probe copy (from the family's data/)."""

    def patch_launcher(self, text: str, launcher: Path) -> str: ...

    def instantiation_sites(self, generated: Sequence[Path]) -> Sequence[Any]: ...

    def parse_output(self, stdout: str) -> list[dict[str, object]]: ...

    def match_rows(
        self, sites: Sequence[Any], records: Sequence[dict[str, object]]
    ) -> Sequence[Any]: ...


@dataclass(frozen=True)
class HeaderPatch:
    """How to make the probe copy of one template header.

    The copy keeps the header up to the end of `keep_through`'s match, inserts `insert`, and
    resumes at `resume`'s match (kept), or, when `resume` is None, after the end of the
    `#define` that holds `keep_through` (its last backslash-continued line). `insert` then is
    the tail of that macro: continuation lines, the last without a backslash, and the patched
    macro is defined for the host pass only (`#ifndef __CUDA_ARCH__`; an empty variadic macro
    in the device pass). Every match of `keep_through` is patched (a header may define the
    macro once per #if branch)."""

    header: str
    """Relative to the wheel's `flashinfer/data/include`: `flashinfer/gemm/..._sm120.h`."""
    keep_through: re.Pattern[str] | None
    """None: the header is copied unchanged (a header that includes a patched one by a path
    relative to itself must live beside the copy)."""
    insert: str | Callable[[dict[str, str]], str]
    """C++ to insert; `$name` is replaced by the named group `name` of `keep_through`'s match (a
    group that did not take part: ""); or a function of the match's groups that writes it."""

    def text(self, m: re.Match[str]) -> str:
        groups = {k: v or "" for k, v in m.groupdict().items()}
        if callable(self.insert):
            return self.insert(groups)
        return string.Template(self.insert).substitute(groups)

    resume: re.Pattern[str] | None = None


_WITH = re.compile(r"\[with (.*)\]\s*$")


def template_arguments(pretty_function: str) -> dict[str, str]:
    """`... [with int M = 1; bool K = true; DTypeIn = cutlass::float_e4m3_t]` -> {M: 1, ...}:
    the enclosing function template's arguments, as the compiler prints them."""
    m = _WITH.search(pretty_function)
    if m is None:
        return {}
    out: dict[str, str] = {}
    for part in m.group(1).split("; "):
        name, _, value = part.partition(" = ")
        out[name.split()[-1]] = value.strip()
    return out
