"""Compiler truth of the CUTLASS 2.x structured-sparse GEMM: every device::SparseGemm kernel of a
real cutlass_library 120a build and one kernel of every stratum of its --kernels all."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_sparse_gemm import model
from cutlint.families.truth import Row, storage_truth


def _kernel(row: Row) -> tuple[universal.Kernel, str | None]:
    k = model.kernel_of(tuple(row["args"]))
    return k, model.scope_reason(k)


TRUTH = storage_truth(
    _kernel,
    model.kernel_shared_storage,
    model.mma_shared_storage,
    model.epilogue_shared_storage,
    universal.threads_per_block,
    also=("tests/data/nvcc_cutlass2_sparse_gemm_truth_all_kernels.json",),
)
