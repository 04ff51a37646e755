"""Compiler truth of the CUTLASS 2.x grouped GEMM: every DefaultGemmGrouped kernel of a real
cutlass_library 120a build and one kernel of every stratum of its --kernels all."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_grouped import model
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.truth import Comparison, Row, Truth, storage_comparison


def compare(row: Row) -> Comparison | str:
    k, schedule = model.kernel_of(tuple(row["args"]))
    reason = model.scope_reason(k, schedule)
    if reason is not None:
        return reason
    return storage_comparison(
        row,
        model.kernel_shared_storage(k),
        universal.mma_shared_storage(k),
        universal.epilogue_shared_storage(k),
        k.stages,
        universal.threads_per_block(k),
    )


TRUTH = Truth(compare, also=("tests/data/nvcc_cutlass2_gemm_grouped_truth_all_kernels.json",))
