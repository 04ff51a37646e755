"""The dense FP4 SM120 model against the compiler: every row of
tests/data/nvcc_sm120_fp4_gemm_truth.json (nvcc on the files FlashInfer 0.6.11.post2, 0.7.2.post1,
0.7.4, 0.6.8.post1, 0.6.7.post3, 0.6.6, 0.6.4, 0.6.3 and 0.5.2 render: every kernel of each
instantiation), byte for byte."""

from __future__ import annotations

import pytest

from cutlint.families.sm120_fp4_gemm import model
from cutlint.model.arch import arch_for
from cutlint.testing.truth import rows

ROWS = rows("sm120-fp4-gemm")


def test_truth_covers_every_release_and_both_kernels() -> None:
    releases = ("0.6.11.post2", "0.7.2.post1", "0.7.4")
    # 0.6.4 - 0.6.8.post1: 3 tiles x 2 outputs x 2 kernels, no SWAP_AB_ (CUTLASS 4.2.1 / 4.4.2);
    # 0.5.2, 0.6.3: one tile x 2 outputs, one kernel (`GemmKernel`, labeled default)
    older = {"0.6.8.post1": 12, "0.6.7.post3": 12, "0.6.6": 12, "0.6.4": 12, "0.6.3": 2, "0.5.2": 2}
    counts = {v: sum(1 for r in ROWS if r["version"] == v) for v in (*releases, *older)}
    assert counts == {**dict.fromkeys(releases, 64), **older}
    assert {r["label"] for r in ROWS} == {"default", "streamk"}
    assert {r["label"] for r in ROWS if r["version"] in ("0.5.2", "0.6.3")} == {"default"}


def test_one_kernel_before_0_6_4() -> None:
    """0.5.0 - 0.6.3 define one kernel per call: the adapter asks for it alone."""
    assert model.kernels_of("0.6.3") == ("default",)
    assert model.kernels_of("0.5.0") == ("default",)
    assert model.kernels_of("0.6.5") == ("default", "streamk")
    args = ("half", "128", "128", "128", "1", "1", "1", "_1SM")
    streamk = model.evaluate("INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER", args, "0.6.3", "streamk")
    assert isinstance(streamk, str)


@pytest.mark.parametrize("arch", ["sm_120", "sm_121"])
def test_tensorrt_llm_11368_tiles(arch: str) -> None:
    """TensorRT-LLM#11368 names the SM120 FP4 tiles 128x128x256B and 256x128x128B, which its
    dispatch passes as CTA K = 256 and 128 elements: FlashInfer's (128, 128, 256) and
    (256, 128, 128), built by the same recipe (StageCountAutoCarveout, TmaWarpSpecialized, void C,
    StaticPersistentScheduler). With CUTLASS 4.5.0 both fit on both arches, with the same verdict."""
    limit = arch_for(arch).smem_optin
    got = {}
    for m, n, k in ((128, 128, 256), (256, 128, 128)):
        for swap in ("false", "true"):
            numbers = model.evaluate(
                "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
                ("__nv_bfloat16", str(m), str(n), str(k), "1", "1", "1", "_1SM", swap),
                "0.7.4",
            )
            assert not isinstance(numbers, str)
            got[(m, n, k, swap)] = (numbers.stages, numbers.smem, numbers.smem <= limit)
    assert got == {
        (128, 128, 256, "false"): (2, 83968, True),
        (128, 128, 256, "true"): (2, 83968, True),
        (256, 128, 128, "false"): (3, 93184, True),
        (256, 128, 128, "true"): (3, 93184, True),
    }
