"""Which files of a directory `check` reads besides `*.cu`: headers, and which trees it leaves.

Hand-written CUTLASS code keeps its kernels in headers: vLLM's `*_dispatch.cuh`, CUTLASS-style
`using` chains in `.hpp`, `INSTANTIATE_*` calls in `.h`. So a directory's `.cuh`, `.h` and `.hpp`
files are read too; one that holds no kernel is skipped, not reported (a header is no
translation unit: "no instantiations" would be said of every utility header of a project).

A vendored CUTLASS tree is CUTLASS's code, not the project's kernels: FlashInfer's wheel carries
one under `flashinfer/data/cutlass` (`include/`, `tools/`), TensorRT-LLM under `3rdparty/cutlass`.
It is recognised by its own marker files (`include/cutlass/cutlass.h` of a checkout or an
unpacked wheel; `cutlass/cutlass.h` beside `cute/` of an include directory) and not entered when
found inside a directory being checked; naming it on the command line checks it. The same holds
for a vendored CCCL (`flashinfer/data/cccl`: 2,151 headers of CUB, Thrust and libcu++ that hold
no CUTLASS kernel, whose reading cost 40 s of a 116 s run over that directory).
"""

from __future__ import annotations

import os

HEADER_SUFFIXES = (".cuh", ".h", ".hpp")
"""Header files `check` reads in directory mode (`.cu` files are read as before)."""

NO_KERNEL = "headers (.cuh, .h, .hpp) that hold no CUTLASS kernel instantiation"
"""What the summary line says of the headers read and skipped."""


def is_header(path: str) -> bool:
    return path.endswith(HEADER_SUFFIXES)


def is_source(name: str) -> bool:
    """Whether a file found in a directory walk is read: `.cu` or a header."""
    return name.endswith(".cu") or name.endswith(HEADER_SUFFIXES)


_CCCL_MARKERS = (
    ("cub", "cub.cuh"),  # CUB's include root (cccl/cub)
    ("thrust", "version.h"),  # Thrust's include root (cccl/thrust)
    ("include", "cuda", "std", "version"),  # libcu++ (cccl/libcudacxx)
    ("libcudacxx", "include", "cuda", "std", "version"),  # the CCCL checkout itself
)


def vendored_library(directory: str) -> bool:
    """A CUTLASS or CCCL tree (`vendored_cutlass`, or one of CCCL's include roots)."""
    if vendored_cutlass(directory):
        return True
    return any(os.path.isfile(os.path.join(directory, *m)) for m in _CCCL_MARKERS)


def vendored_cutlass(directory: str) -> bool:
    """Whether `directory` is a CUTLASS tree: a checkout or wheel root (`include/cutlass/cutlass.h`),
    an include directory (`cutlass/cutlass.h` and `cute/`), or CUTLASS's `tools/` (`util/include/
    cutlass/util`, beside an `include/cutlass/cutlass.h` one level up)."""
    j = os.path.join
    if os.path.isfile(j(directory, "include", "cutlass", "cutlass.h")):
        return True
    if os.path.isfile(j(directory, "cutlass", "cutlass.h")) and os.path.isdir(j(directory, "cute")):
        return True
    return os.path.isdir(j(directory, "util", "include", "cutlass", "util")) and os.path.isfile(
        j(directory, os.pardir, "include", "cutlass", "cutlass.h")
    )


__all__ = [
    "HEADER_SUFFIXES",
    "NO_KERNEL",
    "is_header",
    "is_source",
    "vendored_cutlass",
    "vendored_library",
]
