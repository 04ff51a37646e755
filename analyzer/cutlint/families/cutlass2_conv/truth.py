"""Compiler truth of the CUTLASS 2.x implicit-GEMM conv: every DefaultConv* kernel of a real
cutlass_library 120a build and one kernel of every stratum of its --kernels all; the depthwise
direct conv of the build is left out (the model says why: tests/families/test_cutlass2_conv_truth.py)."""

from __future__ import annotations

from cutlint.families.cutlass2_conv import model
from cutlint.families.truth import Row, storage_truth


def _kernel(row: Row) -> tuple[model.Kernel, str | None]:
    k = model.kernel_of(row["template"], tuple(row["args"]))
    return k, model.scope_reason(k)


TRUTH = storage_truth(
    _kernel,
    model.kernel_shared_storage,
    model.mma_shared_storage,
    model.epilogue_shared_storage,
    model.threads_per_block,
    also=("tests/data/nvcc_cutlass2_conv_truth_all_kernels.json",),
    owns=lambda row: row["template"] != model.DEPTHWISE,
)
