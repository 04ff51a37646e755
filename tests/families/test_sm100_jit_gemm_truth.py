"""The SM100 JIT GEMM model (FP4, MXFP8, FP8, BF16, SM103 ultra FP4, SVDQuant NVFP4) against the
compiler: every row of tests/data/nvcc_sm100_jit_gemm_truth.json (nvcc, sm_100a or sm_103a, on a
stratified sample of the files FlashInfer's own JIT functions render: every tile of every module,
each output type, XSM and cluster argument), byte for byte, member offsets included."""

from __future__ import annotations

from cutlint.families.sm100_jit_gemm import model
from cutlint.testing.truth import rows

ROWS = rows("sm100-jit-gemm")


DENSE = ("fp4_gemm_cutlass", "mxfp8_gemm_cutlass", "fp8_gemm_cutlass", "bf16_gemm_cutlass")


ULTRA = "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER"
SVDQUANT = "INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC"


def test_truth_covers_every_module_tile_type_and_xsm() -> None:
    assert {r["module"] for r in ROWS} == {
        *DENSE,
        "gemm_sm100",
        "fp4_gemm_cutlass_sm103",
        "nvfp4_svdquant_gemm_cutlass",
    }
    # the SM103 ultra kernels: every K768 tile, both XSMs, on both CUTLASS releases (0.6.x's
    # LinearCombination and 0.7.x's F32x2 fusion)
    ultra = [r for r in ROWS if r["name"] == ULTRA]
    assert {r["args"][2] for r in ultra} == {"128", "192", "256"}
    assert {r["args"][7] for r in ultra} == {"_1SM_sm103", "_2SM_sm103"}
    assert {r["version"] for r in ultra} >= {"0.6.3", "0.7.4"}
    # the SVDQuant module: every Config of the header
    svdquant = {r["args"][0] for r in ROWS if r["name"] == SVDQUANT}
    assert svdquant == set(model.family_data()["svdquant_configs"])
    store256 = [r for r in ROWS if r["module"] == "fp4_gemm_cutlass_sm103" and r["name"] != ULTRA]
    assert all(model.variant_of(r["defines"]) == "sm103_generic_store256" for r in store256)
    assert {r["args"][7] for r in store256} == {"_1SM", "_2SM"}
    for module in DENSE:
        rows = [r for r in ROWS if r["module"] == module and r["version"] == "0.7.4"]
        assert {r["args"][7] for r in rows} == {"_1SM", "_2SM"}
        types = {r["args"][0] for r in rows}
        assert types >= {"half", "__nv_bfloat16"}, (module, types)
    assert "float" in {r["args"][0] for r in ROWS if r["module"] == "bf16_gemm_cutlass"}
    group = [
        r
        for r in ROWS
        if r["name"] == "CutlassMXFP4GroupwiseScaledGroupGEMMSM100" and r["version"] == "0.7.4"
    ]
    # MmaSM x SwapAB, every tile of each
    assert {(r["args"][3], r["args"][4]) for r in group} == {
        (m, s) for m in ("1", "2") for s in ("true", "false")
    }
    assert len({tuple(r["args"][:3]) for r in group}) == 8
    blockwise = [r for r in ROWS if r["name"].startswith("CutlassGroupwiseScaledGEMMSM100")]
    # ScaleGranularityM, ScaleMajorK, MmaSM, and the low-latency kernel, on both CUTLASS releases
    assert {(r["args"][0], r["args"][3], r["args"][4]) for r in blockwise} == {
        (g, k, m) for g in ("1", "128") for k in ("true", "false") for m in ("1", "2")
    }
    assert {r["name"] for r in blockwise} == {
        "CutlassGroupwiseScaledGEMMSM100",
        "CutlassGroupwiseScaledGEMMSM100LowLatency",
    }
    grouped = [r for r in ROWS if r["name"] == "CutlassFP8GroupwiseScaledGroupGEMMSM100"]
    assert {(r["args"][0], r["args"][3], r["args"][4]) for r in grouped} == {
        (g, k, m) for g in ("1", "128") for k in ("true", "false") for m in ("1", "2")
    }
    assert {r["version"] for r in grouped} == {"0.6.3", "0.6.11.post2", "0.7.2.post1", "0.7.4"}
    # 0.5.2: one file verified on its own (its header differs from 0.6.3's in argument names and
    # the later LowLatency launcher, not in the kernel types)
    assert {r["version"] for r in blockwise} == {
        "0.5.2",
        "0.6.3",
        "0.6.11.post2",
        "0.7.2.post1",
        "0.7.4",
    }
