"""Compiler truth of the CUTLASS 2.x grouped GEMM: every DefaultGemmGrouped kernel of a real
cutlass_library 120a build and one kernel of every stratum of its --kernels all."""

from __future__ import annotations

from cutlint.families.cutlass2_gemm_grouped import model
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.truth import Row, storage_truth


def _kernel(row: Row) -> tuple[universal.Kernel, str | None]:
    k, schedule = model.kernel_of(tuple(row["args"]))
    return k, model.scope_reason(k, schedule)


TRUTH = storage_truth(
    model,
    kernel=_kernel,
    parts=universal,
    also=("tests/data/nvcc_cutlass2_gemm_grouped_truth_all_kernels.json",),
)
