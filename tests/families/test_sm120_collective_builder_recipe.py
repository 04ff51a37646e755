"""The sm120-collective-builder family reads its recipe off a chain and says precisely what it does
not model (hand-written chains, no generator needed)."""

from __future__ import annotations

import pytest

from cutlint.cutlass.versions import cutlass_model
from cutlint.families.registry import claim
from cutlint.families.sm120_collective_builder import FAMILY, model
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.extract import parse_source
from cutlint.records import Shape3

CTX = ModelContext(arch=arch_for("sm_120"), cutlass=cutlass_model((4, 2, 0), "test"))

CHAIN = """
using E = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::{arch}, {opclass},
    cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    {epi_tile}, float, float,
    {c}, cutlass::layout::RowMajor, 8, {d}, cutlass::layout::RowMajor, 16,
    cutlass::epilogue::collective::EpilogueScheduleAuto,
    cutlass::epilogue::fusion::LinearCombination<{d}, float, {c}, float>
  >::CollectiveOp;
using M = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::{arch}, {opclass},
    {a}, cutlass::layout::RowMajor, 32, {a}, cutlass::layout::ColumnMajor, 32, float,
    cute::Shape<cute::_128, cute::_128, cute::_128>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    {stages},
    cutlass::gemm::{schedule}
  >::CollectiveOp;
using K = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int,int,int,int>, M, E, {scheduler}>;
"""
DEFAULTS = {
    "arch": "Sm120",
    "opclass": "cutlass::arch::OpClassBlockScaledTensorOp",
    "epi_tile": "cutlass::epilogue::collective::EpilogueTileAuto",
    "c": "cutlass::half_t",
    "d": "cutlass::float_e5m2_t",
    "a": "cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue4m3_t>",
    "stages": "cutlass::gemm::collective::StageCountAutoCarveout<"
    "static_cast<int>(sizeof(typename E::SharedStorage))>",
    "schedule": "KernelTmaWarpSpecializedNvf4Sm120",
    "scheduler": "void",
}


def recipe(**changes: str) -> CollectiveBuilderRecipe | None:
    text = CHAIN.format(**{**DEFAULTS, **changes})
    (inst,) = parse_source("k.cu", text.encode()).instantiations
    claimed = claim(inst, CTX)
    if claimed is None or claimed[0] is not FAMILY:
        return None
    family, r = claimed
    assert family is FAMILY and isinstance(r, CollectiveBuilderRecipe)
    return r


def test_the_recipe_is_read_off_the_chain() -> None:
    r = recipe()
    assert r is not None
    assert r.tile == Shape3(m=128, n=128, k=128) and r.cluster == Shape3(m=1, n=1, k=1)
    assert r.kernel_schedule == "cutlass::gemm::KernelTmaWarpSpecializedNvf4Sm120"
    assert (r.element_c, r.element_d, r.epilogue_alias) == (
        "cutlass::half_t",
        "cutlass::float_e5m2_t",
        "E",
    )
    assert FAMILY.covers(r, CTX) is None
    # NVFP4 per stage: A 8,192 + B 8,192 + SFA 1,024 + SFB 1,024 + 16; the half C / e5m2 D
    # epilogue carves out 13,312 B: (101,376 - 13,312) / 18,448 = 4 (nvcc: 4, 88,064 B)
    res = FAMILY.resources(r, CTX)
    assert (res.stage_count.stages, res.layout.size, res.layout.epilogue_size) == (4, 88064, 13312)


def test_an_sm90_chain_is_left_to_the_sm90_family() -> None:
    assert recipe(arch="Sm90") is None
    text = CHAIN.format(**{**DEFAULTS, "arch": "Sm90"})
    (inst,) = parse_source("k.cu", text.encode()).instantiations
    claimed = claim(inst, CTX)
    assert claimed is not None and claimed[0].name == "sm90-collective-builder"


def test_a_fixed_stage_count_is_taken_as_given() -> None:
    r = recipe(stages="cutlass::gemm::collective::StageCount<3>")
    assert r is not None
    sc = FAMILY.resources(r, CTX).stage_count
    assert sc.fixed and sc.stages == 3


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        (
            {"opclass": "cutlass::arch::OpClassSparseTensorOp"},
            "the model covers KernelScheduleSparseF8f6f4Sm120",
        ),
        ({"schedule": "KernelScheduleAuto"}, "KernelScheduleAuto picks by element type"),
        (
            {"epi_tile": "cute::Shape<cute::_64, cute::_64>"},
            "the model covers EpilogueTileAuto",
        ),
        ({"scheduler": "cutlass::gemm::MyScheduler"}, "tile scheduler"),
        ({"stages": "MyStages"}, "stage policy `MyStages`"),
        ({"d": "cutlass::int8_t"}, "ElementD `cutlass::int8_t`"),
        (
            {"a": "cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue8m0_t>"},
            "under KernelTmaWarpSpecializedNvf4Sm120",
        ),
    ],
)
def test_what_is_not_modeled_says_why(changes: dict[str, str], reason: str) -> None:
    r = recipe(**changes)
    assert r is not None
    why = FAMILY.covers(r, CTX)
    assert why is not None and reason in why, why


def test_a_dense_f8f6f4_chain_is_the_dense_family_s() -> None:
    """The dense F8F6F4 builder (sm120_mma_builder.inl) is sm120-dense-gemm's, ahead in claim
    order: this family never sees it."""
    dense = {
        "opclass": "cutlass::arch::OpClassTensorOp",
        "a": "cutlass::float_e4m3_t",
        "schedule": "KernelTmaWarpSpecializedCooperative",
    }
    text = CHAIN.format(**{**DEFAULTS, **dense})
    (inst,) = parse_source("k.cu", text.encode()).instantiations
    claimed = claim(inst, CTX)
    assert claimed is not None and claimed[0].name == "sm120-dense-gemm"


def test_only_the_confirmed_cutlass_versions_are_modeled() -> None:
    r = recipe()
    assert r is not None
    assert model.plan(r, cutlass_model((4, 5, 0), "test")) is not None
    why = FAMILY.covers(r, ModelContext(arch=CTX.arch, cutlass=cutlass_model((4, 4, 2), "test")))
    assert why is not None and "4.2.0, 4.5.0 only" in why
    other_arch = ModelContext(arch=arch_for("sm_100"), cutlass=CTX.cutlass)
    assert "does not run on sm_100" in (FAMILY.covers(r, other_arch) or "")
