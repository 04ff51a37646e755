"""The CUTLASS 2.x universal GEMM model equals nvcc, byte for byte, on every DefaultGemmUniversal
kernel of a real cutlass_library 120a build (tests/data/nvcc_cutlass2_gemm_truth.json, 208 rows:
SIMT and tensor op, Sm50 to Sm80, real, complex, mixed-input, interleaved, 2 to 5 stages) and on
every further one of the 70, 80, 89 and 90a builds (nvcc_cutlass2_gemm_truth_other_builds.json,
95 rows: Volta, Sm75 interleaved int8/int4, 1-bit, FP8 Sm89, Sm90 f64 and complex f64), and on one
kernel of every further stratum of the 120a generator's --kernels all
(nvcc_cutlass2_gemm_truth_all_kernels.json, 308 rows: 2 to 10 stages, split-K warps, 84 over sm_120)."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_gemm_universal import model
from cutlint.testing.truth import read_truth

DATA = Path(__file__).parents[1] / "data"
TRUTH = DATA / "nvcc_cutlass2_gemm_truth.json"
OTHER_BUILDS = DATA / "nvcc_cutlass2_gemm_truth_other_builds.json"
ROWS = read_truth(TRUTH)["rows"]
ALL_KERNELS = DATA / "nvcc_cutlass2_gemm_truth_all_kernels.json"
MORE = read_truth(OTHER_BUILDS)["rows"]
STRATA = read_truth(ALL_KERNELS)["rows"]


def test_the_truth_covers_every_stratum() -> None:
    """Every operator class, arch directory and stage count of the build is in the rows."""
    assert len(ROWS) == 208 and not read_truth(TRUTH)["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in ROWS]
    assert {k.opclass.rsplit("::", 1)[-1] for k in kernels} == {"OpClassSimt", "OpClassTensorOp"}
    assert {k.arch_tag for k in kernels} == {50, 60, 61, 75, 80}
    assert {k.stages for k in kernels} == {2, 3, 4, 5}
    assert any(k.complex for k in kernels) and any(k.interleaved for k in kernels)


def test_the_other_builds_add_volta_fp8_sm90_and_one_bit_kernels() -> None:
    assert len(MORE) == 95 and not read_truth(OTHER_BUILDS)["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in MORE]
    assert {k.arch_tag for k in kernels} == {70, 75, 80, 89, 90}
    assert {"cutlass::float_e4m3_t", "cutlass::uint1b_t"} <= {k.element_a for k in kernels}
    assert not {r["kernel"] for r in MORE} & {r["kernel"] for r in ROWS}


def test_the_all_kernels_strata_reach_ten_stages_and_split_k_warps() -> None:
    assert len(STRATA) == 308 and not read_truth(ALL_KERNELS)["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in STRATA]
    assert {k.stages for k in kernels} == {2, 3, 4, 5, 6, 9, 10}
    assert any(k.threadblock.k > k.warp.k for k in kernels)
    assert sum(r["kernel_smem"] > 101376 for r in STRATA) == 84
