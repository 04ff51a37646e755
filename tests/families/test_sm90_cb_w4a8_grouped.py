"""sm90-collective-builder's mixed-input ptr-array (grouped) model, term by term, against nvcc:
vLLM 0.34.0's 11 `W4A8GroupedGemmKernel`s (tests/data/nvcc_tu_vllm_truth.json) and two added
tiles (tests/data/nvcc_tu_vllm_w4a8_variations_truth.json, tests/tools/
make_nvcc_tu_w4a8_variations.py), replayed from the builders clang resolved (no libclang, no
compiler)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.families.sm90_collective_builder import model
from cutlint.records import Shape3
from tests.tools.tu_truth import truth_read

DATA = Path(__file__).parents[1] / "data"
VARIATIONS = DATA / "nvcc_tu_vllm_w4a8_variations_truth.json"
_NS = "cutlass::epilogue::fusion::"


def _evt(tile: Shape3, array: str) -> str:
    """vLLM's W4A8 epilogue (per-row and per-column scales) as clang spells it."""
    shape = f"cute::tuple<cute::C<{tile.m}>, cute::C<{tile.n}>, cute::C<{tile.k}>>"
    rnd = "cutlass::FloatRoundStyle::round_to_nearest"
    return (
        f"{_NS}Sm90TreeVisitor<{_NS}Sm90Compute<cutlass::multiplies, cutlass::bfloat16_t, float,"
        f" {rnd}>, {_NS}Sm90ColOrScalarBroadcast{array}<0, {shape}, float>,"
        f" {_NS}Sm90TreeVisitor<{_NS}Sm90Compute<cutlass::multiplies, float, float, {rnd}>,"
        f" {_NS}Sm90RowOrScalarBroadcast{array}<0, {shape}, float>, {_NS}Sm90AccFetch>>"
    )


def _tactics(m: int, n: int, carveout: int) -> tuple[model.Tactic, model.Tactic]:
    """The dense W4A8 kernel of a tile and its grouped twin (int4 x e4m3, an `Array<e4m3, 8>`
    lookup-table scale, bf16 C and D, cooperative)."""
    tile = Shape3(m=m, n=n, k=128)
    dense = model.Tactic(
        shell=Shell.TMA_COOPERATIVE,
        fp8_fast_accum=False,
        tile=tile,
        cluster=Shape3(m=1, n=1, k=1),
        a_bits=4,
        b_bits=8,
        accumulator_bits=32,
        stage_policy=model.StagePolicy.CARVEOUT,
        stage_value=carveout,
        epilogue=model.EpilogueKind.TMA,
        c_bits=16,
        d_bits=16,
        c_m_major=True,
        d_m_major=True,
        scheduler=Sm90Scheduler.PERSISTENT,
        mixed_input=True,
        scale_bits=64,
        evt=_evt(tile, ""),
    )
    return dense, replace(dense, grouped=True, evt=_evt(tile, "Array"))


def _size(t: model.Tactic) -> tuple[int, int]:
    stages = model.stage_count(t).stages
    return model.kernel_shared_storage(t, stages).size, stages


def test_the_builder_carves_out_four_tensormaps_and_the_scheduler_pipeline() -> None:
    """GMMA_TMA_WS_RS: KernelSmemCarveout = 4 x 128 B (A, B, scale, zero) + 128 B
    (PipelineAsync<8>), then the capacity is rounded down to SmemAlignment = 1024: 231,424 B."""
    _, grouped = _tactics(128, 16, 10240)
    count = model.stage_count(grouped)
    terms = {t.name: t.bytes for t in count.reductions}
    assert terms["TensorMapStorage"] == 512
    assert terms["SchedulerPipelineStorage"] == 128
    assert terms["capacity round-down"] == 384
    assert count.capacity - sum(terms.values()) == 231424
    assert (count.stages, count.stage_bytes) == (19, 11280)


def test_the_grouped_kernel_is_1024_bytes_above_the_dense_one() -> None:
    """The same mainloop and epilogue tensors (224,256 B for 128x16); the dense shell's 353 B of
    pipelines and scheduler pad to the TensorStorage's 1024 alignment, the ptr-array shell's
    1,536 B after them (pipelines with the scheduler's 480, responses 128, padding 32, the
    mainloop's four and the epilogue's three tensormaps 896) to 2,048."""
    dense, grouped = _tactics(128, 16, 10240)
    assert _size(dense) == (225280, 19)
    assert _size(grouped) == (226304, 19)
    block = model.kernel_shared_storage(grouped, 19)
    maps = [p for p in block.flat() if ".tensormaps." in p.name]
    assert [p.name.rsplit(".", 1)[1] for p in maps] == [
        "smem_tensormap_A",
        "smem_tensormap_B",
        "smem_tensormap_scale",
        "smem_tensormap_zero",
        "smem_tensormap_C",
        "smem_tensormap_D",
    ]
    assert sum(p.size for p in maps) == 896
    assert maps[0].offset % 128 == 0


def test_the_carveout_costs_a_stage_at_128x32() -> None:
    """(232,448 - 18,432) / 13,328 = 16.06 for one problem, (231,424 - 18,432) / 13,328 = 15.98
    grouped: nvcc measured 15 (the variations file)."""
    dense, grouped = _tactics(128, 32, 18432)
    assert _size(dense) == (232448, 16)
    assert _size(grouped) == (220160, 15)


def _entries() -> list[Any]:
    data = [json.loads(p.read_text()) for p in (DATA / "nvcc_tu_vllm_truth.json", VARIATIONS)]
    return [
        pytest.param(f, id=f"{i}-{Path(f['file']).stem}")
        for i, d in enumerate(data)
        for f in d["files"]
        if f["file"].endswith("w4a8_grouped_mm_entry.cu")
    ]


@pytest.mark.parametrize("entry", _entries())
def test_every_grouped_w4a8_row_is_modeled_equal_to_nvcc(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    from cutlint.engine.tu_model import model as tu_model

    read = truth_read(entry, tmp_path / "include", "4.5.0")
    models = tu_model(read)
    assert len(models) == len(read.kernels) in (11, 2)
    for k, m in zip(read.kernels, models, strict=True):
        assert m is not None and m.family == "sm90-collective-builder", k.type_expr
        assert m.reason is None, (k.type_expr, m.reason)
        assert (m.shared_storage, m.stages) == (k.shared_storage, k.stages), k.type_expr
