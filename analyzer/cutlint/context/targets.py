"""nvcc's target flags as code objects: `-gencode arch=compute_120a,code=[sm_120a,compute_120a]`,
`--generate-code=...`, `-arch=sm_90a` / `-arch=compute_90`, `-code=...`, `--gpu-architecture`.

nvcc's rules (CUDA Compiler Driver NVCC, "GPU Compilation" / "Options for Steering GPU Code
Generation"): `-gencode arch=A,code=C` emits each code object of the list C; `-arch=sm_XY` alone is
shorthand for `-arch=compute_XY -code=sm_XY,compute_XY`; `-arch=compute_XY` alone embeds PTX only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cutlint.build_context import Target

_TARGET = re.compile(r"(sm|compute|lto)_(\d{2,3})([af]?)")
_GENCODE_FLAGS = ("-gencode", "--generate-code")
_ARCH_FLAGS = ("-arch", "--gpu-architecture")
_CODE_FLAGS = ("-code", "--gpu-code")


def target(name: str) -> Target | None:
    """`sm_120a` -> SASS, `compute_90` -> PTX; None for what is no target (`native`, `all`)."""
    m = _TARGET.fullmatch(name.strip())
    if not m or m[1] == "lto":
        return None
    suffix = m[3]
    assert suffix in ("", "a", "f")
    return Target(sm=int(m[2]), suffix=suffix, ptx=m[1] == "compute")


def _values(args: Sequence[str], flags: tuple[str, ...]) -> list[str]:
    """The values of `flags` in an argument list: `-f v`, `-f=v` and `--flag=v` spellings."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        for f in flags:
            if a == f and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
                break
            if a.startswith(f + "="):
                out.append(a[len(f) + 1 :])
                break
        i += 1
    return out


def _list(text: str) -> list[str]:
    return [t for t in re.split(r"[\[\],\s]+", text) if t]


def _gencode(spec: str) -> list[Target]:
    """`arch=compute_120a,code=[sm_120a,compute_120a]` -> its code objects."""
    m = re.fullmatch(r"\s*arch=([\w]+)\s*,\s*code=(.+)", spec)
    if not m:
        return []
    return [t for name in _list(m[2]) if (t := target(name)) is not None]


def parse_targets(args: Sequence[str]) -> tuple[Target, ...]:
    """The code objects an nvcc argument list emits, in order, without repeats."""
    found: list[Target] = []
    for spec in _values(args, _GENCODE_FLAGS):
        found += _gencode(spec)
    arches = [n for v in _values(args, _ARCH_FLAGS) for n in _list(v)]
    codes = [n for v in _values(args, _CODE_FLAGS) for n in _list(v)]
    if codes:
        found += [t for n in codes if (t := target(n)) is not None]
    else:
        for n in arches:
            t = target(n)
            if t is None:
                continue
            found.append(t)
            if not t.ptx:  # -arch=sm_XY: SASS and the PTX of compute_XY
                found.append(t.model_copy(update={"ptx": True}))
    return tuple(dict.fromkeys(found))
