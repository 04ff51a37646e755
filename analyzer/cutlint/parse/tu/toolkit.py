"""What the front end needs to know of the machine: the CUDA toolkit whose headers clang parses
with, and the libclang release (part of the cache key). The same lookups as
`verify/libclang_layout.py`'s, kept here because the parser sits below verify."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def find_cuda_path() -> Path | None:
    """$CUDA_HOME, $CUDA_PATH, the toolkit of the `nvcc` on PATH, /usr/local/cuda: the first
    with `include/cuda_runtime.h`."""
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates += ["/usr/local/cuda"]
    for c in candidates:
        if c and (Path(c) / "include" / "cuda_runtime.h").is_file():
            return Path(c).resolve()
    return None


def libclang_version() -> str:
    """The bindings' release (`libclang-ng` or `libclang` wheel)."""
    from importlib import metadata

    for dist in ("libclang-ng", "libclang"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


__all__ = ["find_cuda_path", "libclang_version"]
