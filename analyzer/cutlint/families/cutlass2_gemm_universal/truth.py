"""Compiler truth of the CUTLASS 2.x universal GEMM: every DefaultGemmUniversal kernel of a real
cutlass_library 120a build, every further one of the 70, 80, 89 and 90a builds, and one kernel of
every stratum of the 120a generator's --kernels all (tests/families/test_cutlass2_gemm_universal_truth.py
says what the rows cover)."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_universal import model
from cutlint.families.truth import storage_truth

TRUTH = storage_truth(
    model,
    also=(
        "tests/data/nvcc_cutlass2_gemm_truth_other_builds.json",
        "tests/data/nvcc_cutlass2_gemm_truth_all_kernels.json",
    ),
)
