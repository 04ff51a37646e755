"""The `CUTLASS_ARCH_MMA_SM*_SUPPORTED` macros nvcc's host pass gets and clang's does not.

`cutlass/arch/config.h` defines them from the toolkit version, e.g.

    #if !CUTLASS_CLANG_CUDA && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
      #define CUTLASS_ARCH_MMA_SM120_SUPPORTED 1

and `cutlass/platform/platform.h` defines `CUTLASS_CLANG_CUDA` whenever clang compiles CUDA, so
libclang never sees SM100/SM110/SM120 support, and everything CUTLASS's examples put under
`#if defined(CUTLASS_ARCH_MMA_SM120_SUPPORTED)` vanishes. So the TU's own `config.h` is read,
each such `#if` evaluated for the toolkit's version as nvcc would (CUTLASS_CLANG_CUDA false),
and the macros it would define are passed as `-D`. The `*_ENABLED` macros are left alone: they
need `__CUDA_ARCH__`, which only the device pass has.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path

_GUARDED = re.compile(
    r"^#if\s+!CUTLASS_CLANG_CUDA\s*&&(?P<cond>.*)\n\s*#define\s+(?P<name>CUTLASS_ARCH_MMA_SM\w+_SUPPORTED)\b",
    re.MULTILINE,
)


def _value(node: ast.AST) -> int | bool:
    """A comparison of integers joined by `and` / `or`: nothing else is evaluated."""
    if isinstance(node, ast.BoolOp):
        values = [_value(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _value(node.left), _value(node.comparators[0])
        op = node.ops[0]
        table = {
            ast.Gt: left > right,
            ast.GtE: left >= right,
            ast.Lt: left < right,
            ast.LtE: left <= right,
            ast.Eq: left == right,
            ast.NotEq: left != right,
        }
        for kind, result in table.items():
            if isinstance(op, kind):
                return result
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    raise ValueError("not a version comparison")


def supported_macros(include_dirs: Sequence[Path], major: int, minor: int) -> list[str]:
    """`-DCUTLASS_ARCH_MMA_SM120_SUPPORTED=1`, ... as nvcc's host pass of this toolkit gets
    them from the first `cutlass/arch/config.h` on the include path (none without one)."""
    config = next(
        (
            d / "cutlass/arch/config.h"
            for d in include_dirs
            if (d / "cutlass/arch/config.h").is_file()
        ),
        None,
    )
    if config is None:
        return []
    out: list[str] = []
    for m in _GUARDED.finditer(config.read_text(errors="replace")):
        cond = m["cond"].split("//")[0]
        cond = cond.replace("__CUDACC_VER_MAJOR__", str(major))
        cond = cond.replace("__CUDACC_VER_MINOR__", str(minor))
        cond = cond.replace("&&", " and ").replace("||", " or ")
        try:
            if _value(ast.parse(cond.strip(), mode="eval").body):
                out.append(f"-D{m['name']}=1")
        except (SyntaxError, ValueError):
            continue  # a condition of another shape: not guessed
    return out


__all__ = ["supported_macros"]
