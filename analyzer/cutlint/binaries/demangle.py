"""Itanium C++ names back into C++ types: which instantiation a measured kernel is.

ptxas's report and a cubin's symbols name each kernel by its mangled name; a CUTLASS 3.x
kernel's name is `cutlass::device_kernel<GemmUniversal<...>>` with every template argument in
it (stages, tile, element types, strides), thousands of characters long with back-references
(`S5_`) to earlier parts. GNU `c++filt` decodes it; its default recursion limit refuses these
names, so it runs with `--no-recurse-limit` (binutils 2.32 and later). libstdc++'s
`__cxa_demangle` refuses them too (-2, "not a valid name"), measured on the SM120 kernels of
tests/data/ptxas_sm120.json. Without c++filt (or for a name it refuses), itanium.py, a small
demangler of the constructs these names use, decodes it (the same text as c++filt's on all 56
recorded kernels); a name neither reads stays undecoded, and its kernel is matched to nothing
(never a guess)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable

_DONE: dict[str, str | None] = {}


def find_cxxfilt() -> str | None:
    return shutil.which("c++filt")


def demangle(names: Iterable[str]) -> dict[str, str | None]:
    """Each mangled name's C++ text, or None where it cannot be decoded here."""
    names = list(names)
    wanted = [n for n in dict.fromkeys(names) if n not in _DONE]
    tool = find_cxxfilt() if wanted else None
    if wanted and tool is not None:
        lines: list[str] = []
        try:
            run = subprocess.run(
                [tool, "--no-recurse-limit"],
                input="\n".join(wanted) + "\n",
                capture_output=True,
                text=True,
                timeout=60,
            )
            if run.returncode == 0:
                lines = run.stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            pass
        if len(lines) == len(wanted):
            for name, text in zip(wanted, lines, strict=True):
                _DONE[name] = text if text != name else None
    for n in wanted:
        if _DONE.get(n) is None:
            _DONE[n] = _small(n)
    return {n: _DONE[n] for n in names}


def _small(name: str) -> str | None:
    from cutlint.binaries.itanium import Unsupported
    from cutlint.binaries.itanium import demangle as read

    try:
        return read(name)
    except (Unsupported, IndexError, ValueError):
        return None
