"""Compiler truth of the CUTLASS 2.x planar-complex GEMM: every kernel of a real cutlass_library
120a build, and the planar-complex rows of the --kernels all strata it shares with BLAS-3."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_planar_complex import model
from cutlint.families.truth import Row, storage_truth

ALL_KERNELS = "tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json"


def _kernel(row: Row) -> tuple[model.Kernel, str | None]:
    k = model.kernel_of(tuple(row["args"]))
    return k, model.scope_reason(k)


TRUTH = storage_truth(
    _kernel,
    model.kernel_shared_storage,
    model.mma_shared_storage,
    model.epilogue_shared_storage,
    model.threads_per_block,
    also=(ALL_KERNELS,),
    owns=lambda row: row["template"] == model.TEMPLATE,
)
