"""The CUTLASS 2.x structured-sparse GEMM model equals nvcc, byte for byte, on every
device::SparseGemm kernel of a real cutlass_library 120a build
(tests/data/nvcc_cutlass2_sparse_gemm_truth.json, 28 rows: Sm80 f16, bf16, tf32, int8 and int4;
uint16 and uint32 metadata; 3, 4 and 6 stages; 20 of them over sm_120's opt-in) and on one kernel
of every stratum of the 120a generator's --kernels all
(nvcc_cutlass2_sparse_gemm_truth_all_kernels.json, 12 of its 360)."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_sparse_gemm import model
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_sparse_gemm_truth.json"
ROWS = read_truth(TRUTH)["rows"]
ALL_KERNELS = TRUTH.with_name("nvcc_cutlass2_sparse_gemm_truth_all_kernels.json")
STRATA = read_truth(ALL_KERNELS)["rows"]
SM120_OPTIN = 101376


def test_the_truth_holds_every_sparse_kernel_of_the_build() -> None:
    assert len(ROWS) == 28 and not read_truth(TRUTH)["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in ROWS]
    assert {k.element_a for k in kernels} == {
        "cutlass::half_t",
        "cutlass::bfloat16_t",
        "float",
        "int8_t",
        "cutlass::int4b_t",
    }
    assert {k.stages for k in kernels} == {3, 4, 6}
    assert sum(r["kernel_smem"] > SM120_OPTIN for r in ROWS) == 20


def test_the_all_kernels_strata_hold_every_element_and_both_verdicts() -> None:
    assert len(STRATA) == 12 and not read_truth(ALL_KERNELS)["compile_errors"]
    assert {model.kernel_of(tuple(r["args"])).element_a for r in STRATA} >= {"int8_t", "float"}
    assert 0 < sum(r["kernel_smem"] > SM120_OPTIN for r in STRATA) < len(STRATA)


def test_the_metadata_is_uint16_for_16_bit_and_wider_a_and_uint32_below() -> None:
    names = {
        b.name.rsplit(".", 1)[-1]
        for b in model.mma_shared_storage(model.kernel_of(tuple(ROWS[0]["args"]))).flat()
    }
    assert names == {"operand_A", "operand_B", "operand_E"}
