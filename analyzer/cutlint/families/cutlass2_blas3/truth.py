"""Compiler truth of the CUTLASS 2.x BLAS-3 kernels (Rank-K, Rank-2K, TRMM, SYMM/HEMM): every one of
a real cutlass_library 120a build, and the BLAS-3 rows of the --kernels all strata it shares with
the planar-complex GEMM."""

from __future__ import annotations

from cutlint.families.cutlass2_blas3 import model
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
    also=("tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json",),
    owns=lambda row: row["template"] in model.TEMPLATES,
)
