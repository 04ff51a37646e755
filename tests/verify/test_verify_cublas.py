"""The minimal cuBLAS shim: what it declares, that it compiles what cudaUtils.h asks of it, and
that real headers are always preferred to it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cutlint.verify import cublas

# cuBLAS documentation, cublasStatus_t.
DOCUMENTED = {
    "CUBLAS_STATUS_SUCCESS": 0,
    "CUBLAS_STATUS_NOT_INITIALIZED": 1,
    "CUBLAS_STATUS_ALLOC_FAILED": 3,
    "CUBLAS_STATUS_INVALID_VALUE": 7,
    "CUBLAS_STATUS_ARCH_MISMATCH": 8,
    "CUBLAS_STATUS_MAPPING_ERROR": 11,
    "CUBLAS_STATUS_EXECUTION_FAILED": 13,
    "CUBLAS_STATUS_INTERNAL_ERROR": 14,
    "CUBLAS_STATUS_NOT_SUPPORTED": 15,
    "CUBLAS_STATUS_LICENSE_ERROR": 16,
}

# What include/tensorrt_llm/common/cudaUtils.h does with cuBLAS, reduced.
USER = """#include <cublasLt.h>
#include <cublas_v2.h>
#include <cmath>
static char const* name(cublasStatus_t e) {
  switch (e) {
%s
  }
  return "<unknown>";
}
float use(float x) { return expf(x) + (std::isnan(x) ? 1.f : 0.f); }
int main() { return name(CUBLAS_STATUS_SUCCESS)[0] == 'C' ? 0 : 1; }
"""


def test_shim_declares_the_documented_statuses() -> None:
    for header in cublas.HEADERS:
        text = cublas.shim_text(header)
        found = {m[1]: int(m[2]) for m in re.finditer(r"(CUBLAS_STATUS_\w+) = (\d+)", text)}
        assert found == DOCUMENTED
        assert "typedef enum" in text and "} cublasStatus_t;" in text


def test_shim_compiles_what_cudautils_uses(nvcc: str, tmp_path: Path) -> None:
    shim = cublas.write_shim(tmp_path / "shim")
    cases = "\n".join(f'    case {name}: return "{name}";' for name in DOCUMENTED)
    src = tmp_path / "user.cpp"
    src.write_text(USER % cases)
    cmd = [
        nvcc,
        "-x",
        "c++",
        "-std=c++17",
        "-isystem",
        str(shim),
        "-c",
        str(src),
        "-o",
        str(tmp_path / "user.o"),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_shim_is_never_taken_for_real_headers(nvcc: str, tmp_path: Path) -> None:
    shim = cublas.write_shim(tmp_path / "shim")
    assert cublas.find_real_headers(nvcc, ["-isystem", str(shim)]) is None


def test_real_headers_are_found_where_the_compiler_finds_them(nvcc: str, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    for header in cublas.HEADERS:
        (real / header).write_text("#pragma once\n/* stand-in for the real header */\n")
    shim = cublas.write_shim(tmp_path / "shim")
    assert cublas.find_real_headers(nvcc, ["-I", str(real), "-isystem", str(shim)]) == real
