"""Compiler truth of the CUTLASS 2.x structured-sparse GEMM: every device::SparseGemm kernel of a
real cutlass_library 120a build and one kernel of every stratum of its --kernels all."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_sparse_gemm import model
from cutlint.families.truth import Comparison, Row, Truth, storage_comparison


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
        universal.threads_per_block(k),
    )


TRUTH = Truth(compare, also=("tests/data/nvcc_cutlass2_sparse_gemm_truth_all_kernels.json",))
