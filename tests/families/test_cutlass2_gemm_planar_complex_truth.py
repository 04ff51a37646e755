"""The CUTLASS 2.x planar-complex GEMM model equals nvcc, byte for byte, on a stratified sample of a
real cutlass_library 120a build's DefaultGemmPlanarComplexUniversal kernels
(tests/data/nvcc_cutlass2_planar_complex_truth.json, 48 rows: 3 of each of the 16 gemm/75 and
gemm/80 planar-complex directories; GemmKernel and GemmArrayKernel, half_t and bfloat16_t,
half_t and float accumulators, Sm75 2 stages and Sm80 3 stages)."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_gemm_planar_complex import model
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_planar_complex_truth.json"
ROWS = read_truth(TRUTH)["rows"]


def test_the_truth_covers_every_directory() -> None:
    assert len(ROWS) == 48 and not read_truth(TRUTH)["compile_errors"]
    assert len({r["file"].rsplit("/", 1)[0] for r in ROWS}) == 16
    assert any("_array_" in r["file"] for r in ROWS) and any(
        "_array_" not in r["file"] for r in ROWS
    )
    kernels = [model.kernel_of(tuple(r["args"])) for r in ROWS]
    assert {k.arch_tag for k in kernels} == set(model.ARCHES)
    assert {k.stages for k in kernels} == {2, 3}
    assert {k.element_a for k in kernels} == set(model.OPERANDS)
    assert {k.element_accumulator for k in kernels} == set(model.ACCUMULATORS)


def test_what_the_truth_does_not_hold_is_not_modeled() -> None:
    args = list(ROWS[0]["args"])
    args[12] = "cutlass::arch::Sm70"
    reason = model.scope_reason(model.kernel_of(tuple(args)))
    assert reason == "planar-complex kernels of ArchTag Sm70 are not modeled (Sm75, Sm80 are)"
    args = list(ROWS[0]["args"])
    args[11] = "cutlass::arch::OpClassSimt"
    reason = model.scope_reason(model.kernel_of(tuple(args)))
    assert reason == "OpClassSimt planar-complex kernels are not modeled (TensorOp is)"
