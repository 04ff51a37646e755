"""What the files of CUTLASS's own generator, `cutlass_library` (the `nvidia-cutlass` package,
`python/cutlass_library` in CUTLASS), say of themselves: its build tree and its manifest files."""

from __future__ import annotations

import re
from pathlib import PurePath

_MANIFEST = re.compile(rb"\bvoid\s+initialize_all(?:_\w+)?_operations\s*\(\s*Manifest\s*&")


def manifest_source(code: bytes) -> bool:
    """Whether `code` (comment-masked) is one of the generator's manifest files
    (`all_<kind>_operations.cu`, `all_sm120_<...>_operations.cu`): declarations of each kernel's
    `initialize_<kernel>` and one function that calls them (manifest.py, `emit_manifest_cmake` and
    the `EmitOperationKindAll` templates). No kernel is defined there: not an instantiation file."""
    return _MANIFEST.search(code) is not None


_OPERATION_KINDS = frozenset({"gemm", "conv2d", "conv3d", "rank_k", "rank_2k", "trmm", "symm"})
"""The generator's `OperationKind` directories (library.py OperationKindNames)."""


def in_build(path: str) -> bool:
    """Whether `path` lies where the generator writes kernels: `generated/<kind>/<sm>/...`
    (manifest.py, `Manifest.emit`). There `<sm>` is the kernel's own arch (`gemm/80` holds
    Ampere kernels whatever the build targets), so the path does not say the target: the build's
    CUTLASS_NVCC_ARCHS, which the generated files do not record."""
    parts = PurePath(path).parts
    return any(
        parts[i] == "generated" and parts[i + 1] in _OPERATION_KINDS and parts[i + 2].isdigit()
        for i in range(len(parts) - 3)
    )


TARGET_UNKNOWN = (
    "a cutlass_library kernel file does not say which arch its build targets (its "
    "`generated/<kind>/<sm>/` directory is the kernel's own arch); pass --arch, the build's "
    "CUTLASS_NVCC_ARCHS "
    "(`--arch sm_120` for 120a)"
)


_MANIFEST_NAME = re.compile(r"all_(?:\w+_)?operations\.cu")

MANIFEST = (
    "cutlass_library manifest files (all_*_operations.cu: they register kernels, define none)"
)
"""Why such a file is skipped: what the summary line says of them."""


def manifest_path(path: str) -> bool:
    """Whether `path` is named as the generator names its manifest files."""
    return _MANIFEST_NAME.fullmatch(PurePath(path).name) is not None
