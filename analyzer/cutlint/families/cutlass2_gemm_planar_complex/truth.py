"""Compiler truth of the CUTLASS 2.x planar-complex GEMM: every kernel of a real cutlass_library
120a build, and the planar-complex rows of the --kernels all strata it shares with BLAS-3."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_planar_complex import model
from cutlint.families.truth import Comparison, Row, Truth, storage_comparison

ALL_KERNELS = "tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json"


def compare(row: Row) -> Comparison | str:
    k = model.kernel_of(tuple(row["args"]))
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
    also=(ALL_KERNELS,),
    owns=lambda row: row["template"] == model.TEMPLATE,
)
