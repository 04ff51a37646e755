"""Compiler truth of the CUTLASS 2.x planar-complex GEMM: every kernel of a real cutlass_library
120a build, and the planar-complex rows of the --kernels all strata it shares with BLAS-3."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_planar_complex import model
from cutlint.families.truth import storage_truth

TRUTH = storage_truth(
    model,
    also=("tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json",),
    owns=lambda row: row["template"] == model.TEMPLATE,
)
