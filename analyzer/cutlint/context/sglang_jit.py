"""Whether a file is a kernel source of SGLang's JIT (`sglang.kernels.jit`), and where its JIT
tree is: decided by what the file is, not only by where it lies.

The JIT compiles its sources from one kernel directory that holds `include/` and `csrc/` side by
side (sglang/kernels/jit/utils/compile/paths.py `_resolve_kernel_path` refuses any other), with
`include/` on the include path (`DEFAULT_INCLUDE`): its sources include `<sgl_kernel/...>`
headers from there. A file is an SGLang JIT source when it lies in such a tree's `csrc/` (the
`include/sgl_kernel/` headers beside it, as an install or an unpacked wheel holds them), or when
it includes `sgl_kernel/` headers itself (a kernel of the user's own, loaded by absolute path).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path, PurePath

from pydantic import BaseModel, ConfigDict

from cutlint import inputs
from cutlint.context.build_files import is_dir

_INCLUDES_SGL_KERNEL = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]sgl_kernel/", re.MULTILINE)
_HEAD = inputs.Limit("source file head", 256 << 20)


class JitSource(BaseModel):
    """An SGLang JIT source: its kernel directory, if it lies in one, and why it is one."""

    # defer_build: built where a file is one, not by every check
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kernel_dir: str | None
    """The directory holding `include/sgl_kernel/` and `csrc/` (the JIT's KERNEL_PATH)."""
    csrc_relative: str | None
    """The file's path under `csrc/`, as a loader's `cuda_files` names it."""
    why: str


@cache
def _kernel_dir(csrc: Path) -> bool:
    return is_dir(csrc.parent / "include" / "sgl_kernel")


def _in_tree(path: str) -> tuple[str, str] | None:
    p = Path(path).absolute()
    csrc = _csrc_above(str(p.parent))
    if csrc is None:
        return None
    return str(Path(csrc).parent), PurePath(p).relative_to(csrc).as_posix()


@lru_cache(maxsize=1 << 14)
def _csrc_above(directory: str) -> str | None:
    """The nearest `csrc/` of a JIT kernel tree at or above the absolute `directory`: the
    files of one directory share it."""
    for parent in (Path(directory), *Path(directory).parents):
        if parent.name == "csrc" and _kernel_dir(parent):
            return str(parent)
    return None


def _includes_sgl_kernel(path: str) -> bool:
    try:
        text = inputs.read_bytes(path, _HEAD)
    except (inputs.InputError, OSError):
        return False
    return _INCLUDES_SGL_KERNEL.search(text) is not None


def jit_source(path: str) -> JitSource | None:
    """The SGLang JIT source `path` is, or None."""
    return in_jit_tree(path) or by_its_includes(path)


def in_jit_tree(path: str) -> JitSource | None:
    """`path` as an SGLang JIT source by the kernel tree it lies in, or None."""
    tree = _in_tree(path)
    if tree is None:
        return None
    return JitSource(
        kernel_dir=tree[0],
        csrc_relative=tree[1],
        why=f"in SGLang's JIT kernel tree {tree[0]} (include/sgl_kernel/ beside csrc/)",
    )


def by_its_includes(path: str) -> JitSource | None:
    """`path` as an SGLang JIT source by its own text (it includes `sgl_kernel/` headers), or
    None."""
    if _includes_sgl_kernel(path):
        return JitSource(
            kernel_dir=None,
            csrc_relative=None,
            why="it includes SGLang's JIT headers (sgl_kernel/)",
        )
    return None


__all__ = ["JitSource", "by_its_includes", "in_jit_tree", "jit_source"]
