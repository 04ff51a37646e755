"""Compiler truth of the CUTLASS 2.x implicit-GEMM conv: every DefaultConv* kernel of a real
cutlass_library 120a build and one kernel of every stratum of its --kernels all; the depthwise
direct conv of the build is left out (the model says why: tests/families/test_cutlass2_conv_truth.py)."""

from __future__ import annotations

from cutlint.families.cutlass2_conv import model
from cutlint.families.truth import Comparison, Row, Truth, storage_comparison


def compare(row: Row) -> Comparison | str:
    k = model.kernel_of(row["template"], tuple(row["args"]))
    reason = model.scope_reason(k)
    if reason is not None:
        return reason
    return storage_comparison(
        row,
        model.kernel_shared_storage(k),
        model.mma_shared_storage(k),
        model.epilogue_shared_storage(k),
        k.stages,
        model.threads_per_block(k),
    )


TRUTH = Truth(
    compare,
    also=("tests/data/nvcc_cutlass2_conv_truth_all_kernels.json",),
    owns=lambda row: row["template"] != model.DEPTHWISE,
)
