"""The CUTLASS 2.x grouped GEMM model equals nvcc, byte for byte, on every DefaultGemmGrouped
kernel of a real cutlass_library 120a build (tests/data/nvcc_cutlass2_gemm_grouped_truth.json, 12
rows: Sm80 f16/bf16 tensor op, column-major C (MapArguments' internal transpose), kDeviceOnly) and
on one kernel of every stratum of the 120a generator's --kernels all
(nvcc_cutlass2_gemm_grouped_truth_all_kernels.json, 5 of its 792: 3 to 10 stages)."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_gemm_grouped import model
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_gemm_grouped_truth.json"
ROWS = read_truth(TRUTH)["rows"]
ALL_KERNELS = TRUTH.with_name("nvcc_cutlass2_gemm_grouped_truth_all_kernels.json")
STRATA = read_truth(ALL_KERNELS)["rows"]


def test_the_truth_holds_every_grouped_kernel_of_the_build() -> None:
    assert len(ROWS) == 12 and not read_truth(TRUTH)["compile_errors"]
    assert {r["template"] for r in ROWS} == {model.TEMPLATE}
    assert all(model.kernel_of(tuple(r["args"]))[1] == model.DEVICE_ONLY for r in ROWS)


def test_the_all_kernels_strata_reach_ten_stages() -> None:
    assert len(STRATA) == 5 and not read_truth(ALL_KERNELS)["compile_errors"]
    assert {r["stages"] for r in STRATA} == {3, 4, 5, 6, 10}


def test_a_column_major_c_swaps_and_transposes_the_operands() -> None:
    """kernel::detail::MapArguments<..., true>: row-major A (`t`) becomes a column-major B."""
    args = next(tuple(r["args"]) for r in ROWS if "_tn_" in r["kernel"])
    k, _ = model.kernel_of(args)
    assert (k.layout_a, k.layout_b, k.layout_c) == (
        universal.ROW_MAJOR,
        universal.COLUMN_MAJOR,
        universal.ROW_MAJOR,
    )
    assert model.transposed(universal.kernel_of(args[:19] + args[20:]))


def test_other_schedules_are_not_modeled() -> None:
    k, _ = model.kernel_of(tuple(ROWS[0]["args"]))
    reason = model.scope_reason(k, "cutlass::gemm::kernel::GroupScheduleMode::kHostPrecompute")
    assert reason is not None and "kHostPrecompute" in reason
