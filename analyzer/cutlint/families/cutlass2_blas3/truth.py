"""Compiler truth of the CUTLASS 2.x BLAS-3 kernels (Rank-K, Rank-2K, TRMM, SYMM/HEMM): every one of
a real cutlass_library 120a build, and the BLAS-3 rows of the --kernels all strata it shares with
the planar-complex GEMM."""

from __future__ import annotations

from cutlint.families.cutlass2_blas3 import model
from cutlint.families.truth import storage_truth

TRUTH = storage_truth(
    model,
    arguments=lambda row: (row["template"], tuple(row["args"])),
    also=("tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json",),
    owns=lambda row: row["template"] in model.TEMPLATES,
)
