"""The SM100 grouped blockwise-scaled FP8 kernels of cutlass_library
(`KernelPtrArrayTmaWarpSpecializedBlockwise1SmSm100`, `Sm100BlockwiseScaleConfig<M, N, K>` scale
layouts) against the compiler and on CUTLASS's own 100a build of them.

tests/data/nvcc_sm100_collective_builder_blockwise_truth.json holds nvcc's numbers
(cutlint.verify.alias_probe) for a stratified sample of cutlass_library 4.2.0's 20,736 grouped
blockwise kernels (every tile, every scale granularity of A and of B, C void / f16 / bf16 / f32,
every D, the three FP8 operand pairs, static and dynamic clusters, the kernels at the capacity);
the model must equal every row, TMEM columns included. The kernel files are made at test time by
CUTLASS's own generator, named one by one in its filter.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_collective_builder import model
from cutlint.families.sm100_collective_builder.recipe import Sm100CollectiveBuilderRecipe, claim
from cutlint.parse.extract import parse_source
from cutlint.records import Shape3, Verdict

ROOT = Path(__file__).parents[2]
TRUTH: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm100_collective_builder_blockwise_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
FIXTURES = ROOT / "fixtures"
FIXTURE = FIXTURES / "sm100-collective-builder" / "handwritten-blockwise-cutlass-4.2.0.cu"
"""A grouped 2-SM and a one-problem blockwise chain written by hand (rows of the truth too)."""
KERNELS = ",".join(
    sorted(Path(r["file"]).stem for r in ROWS if not (FIXTURES / r["file"]).is_file())
)
"""The truth's kernels, named one by one in the build's filter."""
BuildFn = Callable[..., Path]
CUTLASS = cutlass_model(parse_version("4.2.0"), "test")


@pytest.fixture(scope="module")
def blockwise_slice(cutlass_library_build: BuildFn) -> Path:
    return cutlass_library_build("100a", KERNELS)


def _recipe(path: Path, kernel: str) -> Sm100CollectiveBuilderRecipe:
    insts = parse_source(str(path), path.read_bytes()).instantiations
    inst = next(i for i in insts if i.chain and i.chain[0].name == kernel)
    r = claim(inst)
    assert isinstance(r, Sm100CollectiveBuilderRecipe), r
    return r


def modeled(r: Sm100CollectiveBuilderRecipe) -> dict[str, int]:
    t = model.tactic_of(r, CUTLASS)
    assert isinstance(t, model.Tactic), t
    stages = model.stage_count(t, CUTLASS).stages
    kernel = model.kernel_shared_storage(t, stages, CUTLASS)
    tmem = model.tmem_columns(t)
    return {
        "stages": stages,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "threads": model.max_threads_per_block(t, CUTLASS),
        "tmem_accumulators": tmem.total if tmem is not None else -1,
    }


def test_truth_is_stratified() -> None:
    names = " ".join(r["kernel"] for r in ROWS)
    for part in (
        *("_64x32x128_", "_64x64x128_", "_64x128x128_", "_64x256x128_"),
        *("_128x32x128_", "_128x64x128_", "_128x128x128_", "_128x256x128_"),
        *("grouped_1x128f32", "grouped_64x128f32", "grouped_128x128f32"),
        *("_1x128f32xe", "_32x128f32xe", "_64x128f32xe", "_128x128f32xe", "_256x128f32xe"),
        *("_void_f16_", "_void_bf16_", "_void_f32_", "_f16_f16_", "_bf16_bf16_", "_f32_f32_"),
        *("xe4m3_1x128f32xe5m2", "xe5m2_1x128f32xe4m3", "xe4m3_128x128f32xe4m3"),
        *("_0x0x1_", "_1x1x1_", "_2x1x1_", "_4x4x1_", "_1x4x1_"),
    ):
        assert part in names, part
    assert [Path(e["file"]).name for e in TRUTH["compile_errors"]] == [
        "handwritten-blockwise-exceeds-capacity-cutlass-4.2.0.cu"
    ]
    assert any(r["kernel_smem"] == 232448 for r in ROWS)
    assert all("tmem_accumulators" in r for r in ROWS)


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r["kernel"][38:120] for r in ROWS])
def test_model_equals_compiler(index: int, blockwise_slice: Path) -> None:
    row = ROWS[index]
    root = FIXTURES if (FIXTURES / row["file"]).is_file() else blockwise_slice
    got = modeled(_recipe(root / row["file"], row["kernel"]))
    assert got == {key: row[key] for key in got}


def test_slice_verdicts(blockwise_slice: Path) -> None:
    """`check --arch sm_100`: every kernel of the truth is claimed and modeled (all were CUT010
    before), the ones at 232,448 B with zero slack."""
    result = api.check([blockwise_slice], api.CheckOptions(arch="sm_100", cutlass_version="4.2.0"))
    rows = [r for f in result.files for r in f.instantiations]
    generated = [r for r in ROWS if not (FIXTURES / r["file"]).is_file()]
    assert len(rows) == len(generated)
    assert {r.recipe.family if r.recipe else None for r in rows} == {"sm100-collective-builder"}
    full = sum(r["kernel_smem"] == 232448 for r in generated)
    assert Counter(r.verdict for r in rows) == {
        Verdict.FITS: len(generated) - full,
        Verdict.ZERO_SLACK: full,
    }


def test_the_chain_nvcc_rejects_is_over_the_capacity() -> None:
    """The hand-written grouped chain without the epilogue carve-out is the one nvcc rejects at the
    ptr-array MMA-transform shell's static_assert (line 237 of 4.2.0), and the model puts it over
    sm100_smem_capacity_bytes there (CUT106 names that line)."""
    error = TRUTH["compile_errors"][0]["error"]
    assert "sm100_gemm_array_tma_warpspecialized_mma_transform.hpp(237)" in error
    assert "SMEM usage exceeded capacity" in error
    path = FIXTURES / TRUTH["compile_errors"][0]["file"]
    r = _recipe(path, "NoCarveBlockwiseGemm")
    assert modeled(r)["kernel_smem"] == 244736 > 232448
    assert model.smem_static_assert(r, "4.2.0").endswith(
        "sm100_gemm_array_tma_warpspecialized_mma_transform.hpp:237"
    )


@pytest.mark.parametrize(
    ("granularity", "reason"),
    [
        (None, "scale granularity"),
        (Shape3(m=256, n=1, k=128), "smaller than or equal to the tile shape"),
        (Shape3(m=1, n=512, k=128), "smaller than or equal to the tile shape"),
        (Shape3(m=1, n=128, k=16), "divisible by MMA_K"),
    ],
)
def test_unusual_granularities_are_reasons(granularity: Shape3 | None, reason: str) -> None:
    """A scale granularity the builder or the mainloop static_asserts against (or none read)
    is a reason, never a number."""
    r = _recipe(FIXTURE, "GroupedBlockwiseGemm")
    assert r.scale_granularity == Shape3(m=1, n=128, k=128)
    t = model.tactic_of(r.model_copy(update={"scale_granularity": granularity}), CUTLASS)
    assert isinstance(t, str) and reason in t, t
