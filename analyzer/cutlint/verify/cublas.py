"""cuBLAS headers for the probe: the real ones when the compiler finds them, else a minimal shim.

TensorRT-LLM's `include/tensorrt_llm/common/cudaUtils.h`, which the launcher includes, includes
`<cublasLt.h>` and `<cublas_v2.h>` for one thing only: the overload
`_cudaGetErrorEnum(cublasStatus_t)`, a `switch` over ten `CUBLAS_STATUS_*` enumerators. Nothing in
CUTLASS or in the launcher's kernel types uses cuBLAS. A bare CUDA toolkit (nvcc alone) has no
cuBLAS headers, and the `nvidia-cublas` wheel that carries them is 444 MB, so when the compiler
cannot find them the probe writes the two headers below into a directory of its own, searched
last (`-isystem` after every other directory), so that it can never shadow real headers.

The enumerator values are cuBLAS's own (cuBLAS documentation, "cublasStatus_t"; `cublas_api.h`
of cuBLAS 13.x declares the same values). That the shim changes none of the compiler's numbers
was checked on a real file against the real headers (docs/validation.md).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

HEADERS = ("cublasLt.h", "cublas_v2.h")

# cublas_api.h: typedef enum { ... } cublasStatus_t;
STATUS_VALUES: tuple[tuple[str, int], ...] = (
    ("CUBLAS_STATUS_SUCCESS", 0),
    ("CUBLAS_STATUS_NOT_INITIALIZED", 1),
    ("CUBLAS_STATUS_ALLOC_FAILED", 3),
    ("CUBLAS_STATUS_INVALID_VALUE", 7),
    ("CUBLAS_STATUS_ARCH_MISMATCH", 8),
    ("CUBLAS_STATUS_MAPPING_ERROR", 11),
    ("CUBLAS_STATUS_EXECUTION_FAILED", 13),
    ("CUBLAS_STATUS_INTERNAL_ERROR", 14),
    ("CUBLAS_STATUS_NOT_SUPPORTED", 15),
    ("CUBLAS_STATUS_LICENSE_ERROR", 16),
)

SHIM_MARKER = "cutlint minimal cuBLAS shim"

# What cuBLAS 13's cublasLt.h and cublas_api.h include themselves, all from libc or the CUDA
# toolkit. The shim includes the same, so that code relying on them transitively (cudaUtils.h
# calls expf/sqrtf/std::isnan without <cmath>; cuComplex.h brings it) sees the same declarations.
TRANSITIVE_INCLUDES = (
    "<stdint.h>",
    "<stddef.h>",
    "<stdio.h>",
    '"driver_types.h"',
    '"cuComplex.h"',
    "<cuda_fp16.h>",
    "<cuda_bf16.h>",
    "<library_types.h>",
)


def shim_text(header: str) -> str:
    """The shim's text for one of HEADERS: `cublasStatus_t` and its enumerators, nothing else."""
    enumerators = "\n".join(f"  {name} = {value}," for name, value in STATUS_VALUES)
    includes = "\n".join(f"#include {h}" for h in TRANSITIVE_INCLUDES)
    return f"""/* {header}: {SHIM_MARKER} (written by cutlint.verify.cublas).
 *
 * cutlint's compiler probe needs only what TensorRT-LLM's cudaUtils.h uses from cuBLAS:
 * cublasStatus_t and the enumerators _cudaGetErrorEnum(cublasStatus_t) switches over. Values as
 * in cuBLAS's cublas_api.h; the includes are the ones cuBLAS's own headers make. Used only when
 * the compiler finds no real cuBLAS headers.
 */
#pragma once
{includes}
#ifndef CUTLINT_CUBLAS_SHIM_STATUS_T
#define CUTLINT_CUBLAS_SHIM_STATUS_T
typedef enum {{
{enumerators}
}} cublasStatus_t;
#endif
"""


def write_shim(directory: Path) -> Path:
    """Write the shim headers into `directory` (created if needed); returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for header in HEADERS:
        path = directory / header
        text = shim_text(header)
        if not path.is_file() or path.read_text() != text:
            # Parallel probes share the directory: never let a compile see a half-written file.
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{header}.")
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            os.replace(tmp, path)
    return directory


def find_real_headers(nvcc: str, include_flags: Sequence[str]) -> Path | None:
    """Where the compiler, with these -I/-isystem flags, finds the real `cublasLt.h`; None when
    it finds none. Asks the preprocessor itself (`nvcc -M`, a few tens of milliseconds), so the
    toolkit's own include directory and the host compiler's defaults count as they do in a build.
    """
    with tempfile.TemporaryDirectory(prefix="cutlint-cublas-") as tmp:
        src = Path(tmp) / "has_cublas.cpp"
        src.write_text("".join(f"#include <{h}>\n" for h in HEADERS))
        cmd = [nvcc, "-M", "-x", "c++", *include_flags, str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError:
            return None
    if proc.returncode != 0:
        return None
    for token in proc.stdout.replace("\\\n", " ").split():
        path = Path(token)
        if path.name == HEADERS[0]:
            resolved = path.resolve()
            if SHIM_MARKER in resolved.read_text(errors="replace")[:400]:
                return None  # our own shim, found through a directory left on the path
            return resolved.parent
    return None
