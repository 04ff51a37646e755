"""The SM120 model against the compiler: every row of tests/data/nvcc_sm120_truth.json, obtained
from nvcc on FlashInfer's real generated files, byte for byte."""

from __future__ import annotations

from typing import Any

import pytest

from cutlint.cutlass.versions import cutlass_model
from cutlint.families.sm120_blockscaled_grouped import model as sm120
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.records import Fusion, Shape3


def test_truth_covers_both_releases(nvcc_truth: list[dict[str, Any]]) -> None:
    counts = {v: sum(1 for r in nvcc_truth if r["version"] == v) for v in ("0.6.3", "0.7.2.post1")}
    assert counts == {"0.6.3": 40, "0.7.2.post1": 88}


def offending(
    version: str, tile: tuple[int, int, int], fusion: Fusion, swap: bool
) -> tuple[int, int]:
    cutlass = cutlass_model(flashinfer_releases()[version].cutlass, "test")
    t = sm120.Tactic(Shape3(m=tile[0], n=tile[1], k=tile[2]), sm120.NVFP4, 16, fusion, swap)
    stages = sm120.stage_count(t, cutlass).stages
    return stages, sm120.kernel_shared_storage(t, stages, cutlass).size


@pytest.mark.parametrize("version", ["0.6.3", "0.7.2.post1"])
@pytest.mark.parametrize("tile", [(128, 256, 128), (256, 128, 128)])
def test_headline_case(version: str, tile: tuple[int, int, int]) -> None:
    """The headline case (NVIDIA/cutlass#3144, flashinfer#2077): FINALIZE, SwapAB off: 3 stages, 102,400 B; SwapAB on: 2 stages, 74,752 B."""
    assert offending(version, tile, Fusion.FINALIZE, False) == (3, 102400)
    assert offending(version, tile, Fusion.FINALIZE, True) == (2, 74752)


def test_builder_budget_4_5_0() -> None:
    """CUTLASS 4.4.2+ reduces the capacity by 128 + 256 + 48 B before counting stages."""
    cutlass = cutlass_model((4, 5, 0), "test")
    t = sm120.Tactic(Shape3(m=128, n=256, k=128), sm120.NVFP4, 16, Fusion.FINALIZE, False)
    sc = sm120.stage_count(t, cutlass)
    assert sc.capacity - sum(r.bytes for r in sc.reductions) == 100944
    assert sc.carveout == 17408
    assert sc.stage_bytes == 8192 + 16384 + 128 + 1024 + 2048


def test_register_plan() -> None:
    """KS: 40 / 232 registers per thread for the load / MMA warp groups (128 x 40 + 256 x 232 =
    64,512 of 65,536); since CUTLASS 4.5.0 no split when the accumulator needs <= 64 registers."""
    t = sm120.Tactic(Shape3(m=128, n=128, k=128), sm120.NVFP4, 16, Fusion.NONE, False)
    plan = sm120.register_plan(t, cutlass_model((4, 5, 0), "test"))
    assert (plan.accumulator_registers, plan.reconfigured, plan.block_registers) == (
        128,
        True,
        64512,
    )
    small = sm120.Tactic(Shape3(m=128, n=32, k=128), sm120.NVFP4, 16, Fusion.NONE, False)
    assert not sm120.register_plan(small, cutlass_model((4, 5, 0), "test")).reconfigured
    assert sm120.register_plan(small, cutlass_model((4, 4, 2), "test")).reconfigured
