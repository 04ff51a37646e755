"""MoeGemmRunner's Ampere-style tactic lists, rebuilt from the release's C++ lists (tactics.toml),
in the autotuner's order; checked against the real cutlass_heuristic.cpp and dispatch switch of
each release's wheel where the wheel is at hand."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.runners.sm8x_grouped.tactics import (
    RunnerKind,
    TileConfig,
    candidate_configs,
    runner_tactics,
    supported_sms,
    table,
)

HEURISTIC = "tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp"
DISPATCH = "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch.h"


def test_fp8_on_sm120_is_seven_tiles_by_three_stages_per_gemm() -> None:
    tactics = runner_tactics(120, RunnerKind.FP8)
    assert len(tactics) == 42
    assert [t.tactic for t in tactics] == list(range(42))
    assert {t.gemm for t in tactics[:21]} == {1} and {t.gemm for t in tactics[21:]} == {2}
    assert all(t.arch_tag == 89 and t.source_list == "ampere" for t in tactics)
    first, last = tactics[0], tactics[20]
    assert first.describe() == "GEMM1 32x128x64 warp 32x32x64 stages=2 (Sm89)"
    assert last.describe() == "GEMM1 16x256x128 warp 16x64x128 stages=4 (Sm89)"
    assert tactics[21].config == first.config


def test_sm89_starts_at_three_stages_and_repeats_the_list() -> None:
    """Below sm 90, getTmaWarpSpecializedConfigs returns the Ampere list and its swap_ab copies;
    getAmpereConfigs appends the list again: 3 x 14 per GEMM for FP8 on Ada."""
    tactics = runner_tactics(89, RunnerKind.FP8)
    assert len(tactics) == 84
    gemm1 = tactics[:42]
    assert [t.source_list for t in gemm1] == ["tma"] * 14 + ["tma-swap_ab"] * 14 + ["ampere"] * 14
    assert {t.config.stages for t in gemm1} == {3, 4}
    assert [t.config.tile for t in gemm1[:14]] == [t.config.tile for t in gemm1[28:]]
    assert all(t.config.swap_ab for t in gemm1[14:28])


@pytest.mark.parametrize(
    ("sm", "kind", "count"),
    [
        (120, RunnerKind.F16, 18),
        (121, RunnerKind.BF16, 18),
        (80, RunnerKind.F16, 54),
        (86, RunnerKind.BF16, 54),
        (89, RunnerKind.F16, 36),
        (121, RunnerKind.FP8, 42),
    ],
)
def test_counts(sm: int, kind: RunnerKind, count: int) -> None:
    tactics = runner_tactics(sm, kind)
    assert len(tactics) == count
    assert all(t.arch_tag == (89 if kind is RunnerKind.FP8 else 80) for t in tactics)


def test_outside_the_model() -> None:
    assert 86 not in supported_sms(RunnerKind.FP8)
    with pytest.raises(ValueError, match="outside this model"):
        runner_tactics(90, RunnerKind.F16)
    assert candidate_configs(86, RunnerKind.FP8) == []


def test_tile_names_carry_their_shapes() -> None:
    t = TileConfig.of("CtaShape16x256x128_WarpShape16x64x128")
    assert (str(t.threadblock), str(t.warp)) == ("16x256x128", "16x64x128")
    with pytest.raises(ValueError):
        TileConfig.of("CtaShape128x128x64B")


def _function(text: str, signature: str) -> str:
    start = text.index(signature)
    return text[start : text.index("\n}\n", start)]


@pytest.mark.parametrize("version", table()["releases"])
def test_lists_match_the_release(version: str, flashinfer_root: Callable[[str], Path]) -> None:
    """The tiles and stage bounds of tactics.toml, read back out of the release's own source."""
    nv = flashinfer_root(version) / "flashinfer" / "data" / "csrc" / "nv_internal"
    heuristic = _function(
        (nv / HEURISTIC).read_text(), "std::vector<CutlassTileConfig> get_candidate_tiles("
    )
    c = table()["candidates"]
    base = heuristic[heuristic.index("base_configs{") : heuristic.index("switch (gemm_type)")]
    assert re.findall(r"CutlassTileConfig::(\w+)", base) == c["default"]
    fp8 = heuristic[heuristic.index("if (sm == 89 || sm == 120 || sm == 121) {") :]
    fp8 = fp8[: fp8.index("};")]
    assert re.findall(r"CutlassTileConfig::(\w+)", fp8) == c["fp8_grouped"]
    configs = _function(
        (nv / HEURISTIC).read_text(), "std::vector<CutlassGemmConfig> get_candidate_configs("
    )
    assert "int const min_stages = (sm == 89) ? 3 : int8_configs_only ? 3 : 2;" in configs
    assert "int const max_stages = int8_configs_only ? 6 : (sm >= 80 ? 4 : 2);" in configs
    dispatch = (nv / DISPATCH).read_text()
    cases = re.findall(r"case cutlass_extensions::CutlassTileConfig::(CtaShape\w+):", dispatch)
    d = table()["dispatch"]
    assert cases[: len(d["same_type_16bit"])] == d["same_type_16bit"]
    fp8_at = dispatch.index(
        "std::is_same<T, WeightType>::value>::type* = nullptr>\nvoid dispatchMoeGemmToCutlass(",
        dispatch.index("#if defined(ENABLE_FP8)\ntemplate"),
    )
    fp8_cases = re.findall(
        r"case cutlass_extensions::CutlassTileConfig::(CtaShape\w+):",
        dispatch[fp8_at : dispatch.index("#endif", fp8_at)],
    )
    assert fp8_cases == d["fp8_same_type"]
