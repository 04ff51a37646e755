"""The CUTLASS 2.x implicit-GEMM conv model equals nvcc, byte for byte, on every DefaultConv*
kernel of a real cutlass_library 120a build (tests/data/nvcc_cutlass2_conv_truth.json, 139 rows:
conv2d and conv3d fprop, dgrad, wgrad and group fprop; SIMT and tensor op, Sm50 to Sm80; analytic,
optimized, fixed- and few-channels iterators; NHWC and interleaved NC32HW32/NC64HW64; 2 to 5
stages), and on one kernel of every stratum of the 120a generator's --kernels all
(nvcc_cutlass2_conv_truth_all_kernels.json, 124 of its 10,455 implicit-GEMM convs: 2 to 10 stages,
split-K warps, 23 over sm_120), and says why it leaves the depthwise direct conv out."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_conv import model
from cutlint.testing.truth import read_truth

DATA = Path(__file__).parents[1] / "data"
TRUTH = DATA / "nvcc_cutlass2_conv_truth.json"
ALL = read_truth(TRUTH)["rows"]
ROWS = [r for r in ALL if r["template"] != model.DEPTHWISE]
ALL_KERNELS = DATA / "nvcc_cutlass2_conv_truth_all_kernels.json"
STRATA = read_truth(ALL_KERNELS)["rows"]


def test_the_truth_covers_every_stratum() -> None:
    assert len(ALL) == 139 and not read_truth(TRUTH)["compile_errors"]
    assert len(ROWS) == 138
    kernels = [model.kernel_of(r["template"], tuple(r["args"])) for r in ROWS]
    assert {r["template"] for r in ROWS} == set(model.TEMPLATES)
    assert {k.opclass.rsplit("::", 1)[-1] for k in kernels} == {"OpClassSimt", "OpClassTensorOp"}
    assert {k.arch_tag for k in kernels} == {50, 75, 80}
    assert {k.stages for k in kernels} == {2, 3, 4, 5}
    assert {k.iterator_algorithm for k in kernels} == {
        "kAnalytic",
        "kOptimized",
        "kFixedChannels",
        "kFewChannels",
    }
    assert any(k.interleaved for k in kernels)


def test_the_all_kernels_strata_reach_ten_stages_split_k_warps_and_the_optin() -> None:
    assert len(STRATA) == 124 and not read_truth(ALL_KERNELS)["compile_errors"]
    kernels = [model.kernel_of(r["template"], tuple(r["args"])) for r in STRATA]
    assert {k.stages for k in kernels} == {2, 3, 4, 5, 6, 10}
    assert any(k.threadblock.k > k.warp.k for k in kernels)
    assert {r["template"] for r in STRATA} == set(model.TEMPLATES)
    assert sum(r["kernel_smem"] > 101376 for r in STRATA) == 23
