"""What cutlint knows of CUTLASS's own generator, `cutlass_library` (the `nvidia-cutlass` package,
`python/cutlass_library` in CUTLASS): the files it writes and how to run it."""

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


_MANIFEST_NAME = re.compile(r"all_(?:\w+_)?operations\.cu")

MANIFEST = (
    "cutlass_library manifest files (all_*_operations.cu: they register kernels, define none)"
)
"""Why such a file is skipped: what the summary line says of them."""


def manifest_path(path: str) -> bool:
    """Whether `path` is named as the generator names its manifest files."""
    return _MANIFEST_NAME.fullmatch(PurePath(path).name) is not None
