"""Compiler truth of the CUTLASS 2.x structured-sparse GEMM: every device::SparseGemm kernel of a
real cutlass_library 120a build and one kernel of every stratum of its --kernels all."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_sparse_gemm import model
from cutlint.families.truth import storage_truth

TRUTH = storage_truth(
    model,
    parts=universal,
    also=("tests/data/nvcc_cutlass2_sparse_gemm_truth_all_kernels.json",),
)
