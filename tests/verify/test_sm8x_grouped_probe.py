"""The grouped-runner probe: the patched dispatch header, and one real compile.

The default run holds one compile (FlashInfer 0.7.4's dispatch header, three kernels: FP8
16x256x128 with 3 stages, which fails on SM120, its 2-stage neighbour, and bf16 128x128x64 with 4
stages); it also calls the FP8 kernel the way MoeGemmRunner::queryOccupancyForConfig does (a
default GroupedGemmInput with only `occupancy` set) and sees it throw at the FP8 `alpha_scales`
check before any occupancy is computed: the 0.7.x pre-filter reports 0 for every FP8 x FP8 tactic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.probe_records import ProbeError
from cutlint.verify.sm8x_grouped_probe import (
    DISPATCH_REL,
    HELPERS_HPP,
    GroupedConfig,
    driver_source,
    patch_dispatch,
    run_probe,
)

TRUTH = Path(__file__).parent.parent / "data" / "nvcc_sm8x_grouped_truth.json"
CONFIGS = [
    GroupedConfig("e4m3", "f16", 89, (16, 256, 128), (16, 64, 128), 3),
    GroupedConfig("e4m3", "f16", 89, (16, 256, 128), (16, 64, 128), 2),
    GroupedConfig("bf16", "bf16", 80, (128, 128, 64), (64, 32, 64), 4),
]


@pytest.mark.parametrize("version", ["0.6.4", "0.7.4"])
def test_patch_keeps_the_kernel_types_and_drops_the_run(
    version: str, flashinfer_root: Callable[[str], Path]
) -> None:
    dispatch = FlashInferTree(flashinfer_root(version)).nv_internal / DISPATCH_REL
    text = dispatch.read_text()
    patched = patch_dispatch(text, dispatch)
    assert HELPERS_HPP in patched
    start = text.index("struct genericMoeGemmKernelLauncher {")
    kept = text[
        start : text.index(
            "using GemmGrouped = cutlass::gemm::device::GemmGrouped<GemmKernel>;", start
        )
    ]
    assert kept in patched
    call = patched[patched.index("struct genericMoeGemmKernelLauncher {") :]
    call = call[: call.index("sm80_generic_fused_moe_gemm_kernelLauncher<")]
    assert "::cutlint_grouped_probe::report<GemmKernel," in call
    for gone in ("maximum_active_blocks", "gemm.initialize", "gemm.run"):
        assert gone not in call


def test_patch_fails_loudly_on_a_changed_header(tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match="genericMoeGemmKernelLauncher"):
        patch_dispatch(
            "namespace tensorrt_llm::kernels::cutlass_kernels_oss {\n}\n", tmp_path / "x.h"
        )


def test_driver_queries_only_fp8() -> None:
    text = driver_source(CONFIGS, query_fp8=True)
    assert text.count("query.occupancy = &occupancy;") == 2
    assert text.count("in.alpha_scales = alpha;") == 3


@pytest.mark.compiler
def test_real_compile_equals_the_truth_and_the_fp8_query_throws(
    nvcc: str, flashinfer_root: Callable[[str], Path], tmp_path: Path
) -> None:
    run = run_probe(CONFIGS, flashinfer_root("0.7.4"), nvcc, workdir=tmp_path, query_fp8=True)
    truth = {
        json.dumps(r["config"], sort_keys=True): r
        for r in json.loads(TRUTH.read_text())["rows"]
        if "0.7.4" in r["versions"]
    }
    for row in run.rows:
        c = row.config
        key = json.dumps(
            {
                "arch": c.arch,
                "element": c.element,
                "output": c.output,
                "stages": c.stages,
                "threadblock": list(c.threadblock),
                "warp": list(c.warp),
            },
            sort_keys=True,
        )
        assert (row.kernel_smem, row.threads_per_block, row.members) == (
            truth[key]["kernel_smem"],
            truth[key]["threads_per_block"],
            truth[key]["members"],
        )
    assert [r.kernel_smem for r in run.rows] == [104448, 69632, 131072]
    assert len(run.queries) == 2
    for q in run.queries:
        assert q["status"] == "threw"
        assert "alpha_scale_ptr_array shouldn't be nullptr for FP8 Ada" in q["what"]
