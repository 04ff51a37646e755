"""The SM100 CollectiveBuilder family's block-scaled grouped chain on CUTLASS 4.5.0 against the
compiler: SGLang 0.5.23's MXFP8 grouped MoE GEMM and variations of it.

tests/data/nvcc_sm100_collective_builder_mxfp8_grouped_truth.json holds nvcc's numbers
(cutlint.verify.alias_probe, 100a) for the chains of fixtures/sm100-collective-builder/*-4.5.0.cu
compiled against FlashInfer 0.7.2.post1's CUTLASS 4.5.0 (the CUTLASS SGLang 0.5.23's JIT puts on
its include path): SGLang's `ExpertSpecializationSm100MXFP8BlockscaledMoeGroupGemmTraits<
MMA2SMConfig, bf16 / half>` (an RC grouped GEMM: A one tensor, B a pointer per expert,
MoEProblemShape, a cluster shape given at run time, an EVT of the accumulator), a 1-SM tile, MMA
N = 256 on a static cluster, N = 64 with an f32 row-major D, a fixed carve-out, a fully grouped
GEMM (A and B pointers, GroupProblemShape, C), an NVF4 RC grouped GEMM, an RC grouped GEMM with
C, and a MoEProblemShape GEMM with A and B pointers. The model must equal every row byte for
byte; no compiler runs here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.versions import cutlass_model, parse_version
from cutlint.families.sm100_collective_builder import model
from cutlint.families.sm100_collective_builder.family import FAMILY, tactic_of
from cutlint.families.sm100_collective_builder.recipe import Sm100CollectiveBuilderRecipe
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from tests.tools import sm100_cb

ROOT = Path(__file__).parents[2]
TRUTH: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "nvcc_sm100_collective_builder_mxfp8_grouped_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]
FIXTURES = ROOT / "fixtures"
CUTLASS = cutlass_model(parse_version("4.5.0"), "test")
CUTLASS_420 = cutlass_model(parse_version("4.2.0"), "test")


def _recipe(row: dict[str, Any]) -> Sm100CollectiveBuilderRecipe:
    return sm100_cb.recipe(FIXTURES / row["file"], row["kernel"])


def _tactic(r: Sm100CollectiveBuilderRecipe) -> model.Tactic:
    return sm100_cb.tactic(r, CUTLASS)


def modeled(r: Sm100CollectiveBuilderRecipe) -> dict[str, int]:
    return sm100_cb.modeled(r, CUTLASS)


def test_truth_covers_sglang_and_variations() -> None:
    assert TRUTH["cutlass"] == "4.5.0" and not TRUTH["compile_errors"]
    kernels = {r["kernel"] for r in ROWS}
    assert {"SglMxfp8Bf16Gemm", "SglMxfp8F16Gemm"} <= kernels
    assert len(kernels) == len(ROWS) >= 10


@pytest.mark.parametrize("row", ROWS, ids=[r["kernel"] for r in ROWS])
def test_model_equals_compiler(row: dict[str, Any]) -> None:
    got = modeled(_recipe(row))
    assert got == {key: row[key] for key in got}


def test_family_covers_the_chain_on_450_only() -> None:
    """The block-scaled grouped chain is claimed and covered for CUTLASS 4.5.0; on 4.2.0 an RC
    grouped chain (A not a pointer) is outside the model, with the reason."""
    r = _recipe(next(row for row in ROWS if row["kernel"] == "SglMxfp8Bf16Gemm"))
    assert FAMILY.covers(r, ModelContext(arch=arch_for("sm_100"), cutlass=CUTLASS)) is None
    why = tactic_of(r, CUTLASS_420)
    assert isinstance(why, str) and "A and B both pointers" in why, why


def test_rc_group_mainloop_holds_two_tensor_maps() -> None:
    """sm100_blockscaled_mma_array_warpspecialized_rcggemm.hpp: B's and SFB's descriptors (256 B),
    while the builder's carve-out still counts four (A, SFA, B, SFB)."""
    t = _tactic(_recipe(next(row for row in ROWS if row["kernel"] == "SglMxfp8Bf16Gemm")))
    assert t.mainloop.rc_group and t.mainloop.tensormaps == 4
    maps = ml.tensormap_storage(t.mainloop)
    assert maps.size == 256 and [p.name for p in maps.pieces] == [
        "smem_tensormap_B",
        "smem_tensormap_SFB",
    ]
    grouped = _tactic(_recipe(next(row for row in ROWS if row["kernel"] == "MxGroupedGemm")))
    assert not grouped.mainloop.rc_group and ml.tensormap_storage(grouped.mainloop).size == 512


@pytest.mark.parametrize(
    ("index", "value", "reason"),
    [
        (6, "cutlass::layout::ColumnMajor", "B as a pointer"),
        (12, "cutlass::gemm::KernelTmaWarpSpecialized2SmMxf8f6f4Sm100", "ptr-array schedule"),
    ],
)
def test_unusual_layouts_are_reasons(index: int, value: str, reason: str) -> None:
    r = _recipe(next(row for row in ROWS if row["kernel"] == "SglMxfp8Bf16Gemm"))
    args = list(r.mainloop)
    args[index] = value
    t = tactic_of(r.model_copy(update={"mainloop": tuple(args)}), CUTLASS)
    assert isinstance(t, str) and reason in t, t
