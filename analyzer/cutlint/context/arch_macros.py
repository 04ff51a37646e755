"""The macros a compile target's build defines, as nvcc and CUTLASS set them (data/arch_macros.toml).

`cutlint check` reads a file's `#if` guards with a define set, not with the headers, so the
macros that `cutlass/arch/config.h` would define and those nvcc predefines per target must be
given: without them, CUTLASS example 79's `#if defined(CUTLASS_ARCH_MMA_SM120_SUPPORTED)` reads as
false and the kernel under it as inactive. Which target:

- a `-gencode` target of the file's compile command that loads on the GPU (`--arch`), or its only
  SASS target when the GPU is not named; nvcc's device pass for it is the one that builds the
  kernel the GPU runs, so its `__CUDA_ARCH__` and feature macros are the ones that count;
- else the GPU named by `--arch` (`sm_120a` names an architecture-specific target; a plain
  `sm_120` or a GPU name the plain one, whose feature macros are not defined).

The toolkit decides the `*_SUPPORTED` macros. When one is found here (cutlint.parse.tu.toolkit)
its version is used, and said; otherwise only the macros every toolkit that can build for the
target defines are given (a toolkit that builds sm_120 is at least 12.8, so SM90, SM100 and
SM120 are supported, while SM101, SM103, SM110 and SM121 depend on the version and are left out).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cutlint import tables
from cutlint.build_context import Target
from cutlint.context.command import parse_command
from cutlint.context.resolve import device_sm

Version = tuple[int, int]


@dataclass(frozen=True)
class _Nvcc:
    macro: str
    value: str
    suffixes: frozenset[str]


@dataclass(frozen=True)
class _Cutlass:
    sm: int
    since: Version
    before: Version | None
    family_since: Version | None


@cache
def _data() -> tuple[tuple[_Nvcc, ...], tuple[_Cutlass, ...]]:
    data = tables.load(Path(__file__).parent / "data" / "arch_macros.toml")
    nvcc = tuple(_Nvcc(d["macro"], d["value"], frozenset(d["suffixes"])) for d in data["nvcc"])
    cutlass = tuple(
        _Cutlass(
            sm=int(d["sm"]),
            since=(d["since"][0], d["since"][1]),
            before=(d["before"][0], d["before"][1]) if "before" in d else None,
            family_since=(d["family_since"][0], d["family_since"][1])
            if "family_since" in d
            else None,
        )
        for d in data["cutlass"]
    )
    return nvcc, cutlass


def oldest_toolkit(sm: int) -> Version | None:
    """The oldest toolkit CUTLASS supports the arch with (a build for it needs at least this)."""
    return next((c.since for c in _data()[1] if c.sm == sm), None)


def _supported(c: _Cutlass, toolkit: Version | None, floor: Version | None) -> bool:
    if toolkit is not None:
        return c.since <= toolkit and (c.before is None or toolkit < c.before)
    # unknown toolkit: only what holds for every toolkit from `floor` on
    return floor is not None and c.since <= floor and c.before is None


def target_macros(target: Target | None, toolkit: Version | None) -> dict[str, str]:
    """The macros of `target`'s device pass (none when no target is known: a guard is then
    read with the user's defines alone, as before)."""
    nvcc, cutlass = _data()
    out: dict[str, str] = {}
    if target is None:
        return out
    if toolkit is not None:
        out["__CUDACC_VER_MAJOR__"] = str(toolkit[0])
        out["__CUDACC_VER_MINOR__"] = str(toolkit[1])
    floor = oldest_toolkit(target.sm)
    for c in cutlass:
        if _supported(c, toolkit, floor):
            out[f"CUTLASS_ARCH_MMA_SM{c.sm}_SUPPORTED"] = "1"
    for n in nvcc:
        if target.suffix in n.suffixes:
            out[n.macro.replace("{sm}", str(target.sm))] = n.value.replace("{sm}", str(target.sm))
    own = next((c for c in cutlass if c.sm == target.sm), None)
    if own is not None and f"CUTLASS_ARCH_MMA_SM{own.sm}_SUPPORTED" in out:
        out[f"CUTLASS_ARCH_MMA_SM{own.sm}_ENABLED"] = "1"
        if target.suffix == "a":
            out[f"CUTLASS_ARCH_MMA_SM{own.sm}A_ENABLED"] = "1"
        version = toolkit or floor
        fam = own.family_since
        if target.suffix in ("a", "f") and fam is not None and version and fam <= version:
            out[f"CUTLASS_ARCH_MMA_SM{own.sm}F_SUPPORTED"] = "1"
            out[f"CUTLASS_ARCH_MMA_SM{own.sm}F_ENABLED"] = "1"
    return out


def build_target(gpu: Target | None, targets: Sequence[Target]) -> Target | None:
    """The code object whose device pass counts: the build's SASS target that loads on the GPU
    (the first, as the loader prefers none), its only SASS target when no GPU is named, else
    the GPU itself; None when nothing says which."""
    sass = [t for t in targets if not t.ptx]
    if gpu is not None:
        loads = [t for t in sass if t.loads_on(gpu.sm)]
        if loads:
            exact = [t for t in loads if t.sm == gpu.sm]
            return (exact or loads)[0]
        return gpu
    return sass[0] if len(sass) == 1 else None


_CUDA_VERSION = re.compile(r"#define\s+CUDA_VERSION\s+(\d+)")
_CUDA_H_HEAD = 1 << 16
"""Characters of cuda.h read first, to find CUDA_VERSION in."""


@cache
def local_toolkit() -> Version | None:
    """The version of the CUDA toolkit found here (`CUDA_VERSION` in its include/cuda.h)."""
    from cutlint.parse.tu.toolkit import find_cuda_path

    cuda = find_cuda_path()
    if cuda is None:
        return None
    try:
        with open(cuda / "include" / "cuda.h", errors="replace") as f:
            # The define is near the top (CUDA 13.0: at 14 KB of 1.1 MB); reading the whole
            # header was 5 ms of every check's start-up (the 2-core machine). A match that
            # reaches the end of the part read might go on past it: then the whole file.
            head = f.read(_CUDA_H_HEAD)
            m = _CUDA_VERSION.search(head)
            if m is None or m.end() == len(head):
                m = _CUDA_VERSION.search(head + f.read())
    except OSError:
        return None
    if m is None:
        return None
    v = int(m[1])
    return v // 1000, (v % 1000) // 10


def named_target(spec: str | None) -> Target | None:
    """The target `--arch` names: `sm_120a` the architecture-specific one, `sm_120`, `120`, `12.0`
    or a GPU name (`rtx-5090`) the plain one."""
    if spec is None:
        return None
    sm = device_sm(spec)
    if sm is None:
        return None
    m = re.fullmatch(r"(?:sm_?|compute_?)?\d{2,3}(?:\.\d)?([af])", spec.strip().lower())
    suffix = m[1] if m else ""
    assert suffix in ("", "a", "f")
    return Target(sm=sm, suffix=suffix, ptx=False)


def guard_defines(
    arch: str | None, compile_command: str | None, defines: Mapping[str, str]
) -> dict[str, str]:
    """The define set a run's `#if` guards are read with: the macros of the target `--arch`
    and `--compile-command` say, then `defines` (the user's own -D win over what is derived)."""
    targets: tuple[Target, ...] = ()
    if compile_command:
        targets = parse_command(compile_command, "--compile-command", ".").targets
    out = target_macros(build_target(named_target(arch), targets), local_toolkit())
    out.update(defines)
    return out


__all__ = [
    "build_target",
    "guard_defines",
    "local_toolkit",
    "named_target",
    "oldest_toolkit",
    "target_macros",
]
