"""Compiler truth of the CUTLASS 2.x implicit-GEMM conv: every DefaultConv* kernel of a real
cutlass_library 120a build and one kernel of every stratum of its --kernels all; the depthwise
direct conv of the build is left out (the model says why: tests/families/test_cutlass2_conv_truth.py)."""

from __future__ import annotations

from cutlint.families.cutlass2_conv import model
from cutlint.families.truth import storage_truth

TRUTH = storage_truth(
    model,
    arguments=lambda row: (row["template"], tuple(row["args"])),
    also=("tests/data/nvcc_cutlass2_conv_truth_all_kernels.json",),
    owns=lambda row: row["template"] != model.DEPTHWISE,
)
