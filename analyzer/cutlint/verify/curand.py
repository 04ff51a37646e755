"""cuRAND headers for the JIT-module probe: the real ones when the compiler finds them, else a
minimal shim (as cutlint.verify.cublas does for cuBLAS).

FlashInfer's `flashinfer/cutlass_utils.cuh`, which the SM120 GEMM template headers include,
includes CUTLASS's `cutlass/util/reference/device/tensor_fill.h`, which includes
`<curand_kernel.h>` for its random-fill reference kernels. Nothing of a GEMM kernel's types uses
cuRAND, and the probe instantiates none of those kernels. A bare CUDA toolkit (nvcc alone) has no
cuRAND headers, and the `nvidia-curand` wheel that carries them is 77 MB, so when the compiler
cannot find them the probe writes the declarations tensor_fill.h names into a directory searched
last (`-isystem` after every other directory), where it cannot shadow real headers.

The declarations are cuRAND's own (`curand_kernel.h` of cuRAND 10.4: `curandStateXORWOW`,
`curandState_t`, `curand_init`, `curand_uniform[_double]`, `curand_normal[_double]`).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

HEADER = "curand_kernel.h"
SHIM_MARKER = "cutlint minimal cuRAND shim"

SHIM_TEXT = f"""/* {HEADER}: {SHIM_MARKER} (written by cutlint.verify.curand).
 *
 * What CUTLASS's tools/util reference/device/tensor_fill.h names from cuRAND, declared as
 * cuRAND's curand_kernel.h declares it; no definitions. Used only when the compiler finds no
 * real cuRAND headers; no GEMM kernel type depends on it.
 */
#pragma once
#include <cuda_runtime.h>
struct curandStateXORWOW {{
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
}};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW_t* state);
__device__ float curand_uniform(curandStateXORWOW_t* state);
__device__ double curand_uniform_double(curandStateXORWOW_t* state);
__device__ float curand_normal(curandStateXORWOW_t* state);
__device__ double curand_normal_double(curandStateXORWOW_t* state);
"""


def write_shim(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / HEADER
    if not path.is_file() or path.read_text() != SHIM_TEXT:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{HEADER}.")
        with os.fdopen(fd, "w") as fh:
            fh.write(SHIM_TEXT)
        os.replace(tmp, path)
    return directory


def find_real_header(nvcc: str, include_flags: Sequence[str]) -> Path | None:
    """Where the compiler, with these flags, finds the real `curand_kernel.h`; None when it finds
    none (asks `nvcc -M`, as cutlint.verify.cublas.find_real_headers does)."""
    with tempfile.TemporaryDirectory(prefix="cutlint-curand-") as tmp:
        src = Path(tmp) / "has_curand.cu"
        src.write_text(f"#include <{HEADER}>\n")
        cmd = [nvcc, "-M", *include_flags, str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError:
            return None
    if proc.returncode != 0:
        return None
    for token in proc.stdout.replace("\\\n", " ").split():
        path = Path(token)
        if path.name == HEADER:
            resolved = path.resolve()
            if SHIM_MARKER in resolved.read_text(errors="replace")[:400]:
                return None
            return resolved.parent
    return None
