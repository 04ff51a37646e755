"""The kernel families cutlint models, in claim order: the first family that claims a source form
owns it. Adding a family is one line here (and its folder; docs/architecture.md)."""

from __future__ import annotations

from cutlint.families.base import Claim, Family
from cutlint.families.cutlass2_blas3 import FAMILY as CUTLASS2_BLAS3
from cutlint.families.cutlass2_conv import FAMILY as CUTLASS2_CONV
from cutlint.families.cutlass2_gemm_grouped import FAMILY as CUTLASS2_GEMM_GROUPED
from cutlint.families.cutlass2_gemm_planar_complex import FAMILY as CUTLASS2_GEMM_PLANAR_COMPLEX
from cutlint.families.cutlass2_gemm_universal import FAMILY as CUTLASS2_GEMM_UNIVERSAL
from cutlint.families.cutlass2_sparse_gemm import FAMILY as CUTLASS2_SPARSE_GEMM
from cutlint.families.sm80_fused_moe import FAMILY as SM80_FUSED_MOE
from cutlint.families.sm90_collective_builder import FAMILY as SM90_COLLECTIVE_BUILDER
from cutlint.families.sm90_tma_ws_grouped import FAMILY as SM90_TMA_WS_GROUPED
from cutlint.families.sm100_collective_builder import FAMILY as SM100_COLLECTIVE_BUILDER
from cutlint.families.sm100_tma_ws_grouped import FAMILY as SM100_TMA_WS_GROUPED
from cutlint.families.sm120_blockscaled_grouped import FAMILY as SM120_BLOCKSCALED_GROUPED
from cutlint.families.sm120_collective_builder import FAMILY as SM120_COLLECTIVE_BUILDER
from cutlint.families.sm120_fp4_gemm import FAMILY as SM120_FP4_GEMM
from cutlint.families.sm120_fp4_group_gemm import FAMILY as SM120_FP4_GROUP_GEMM
from cutlint.families.sm120_fp8_groupwise import FAMILY as SM120_FP8_GROUPWISE
from cutlint.families.sm120_mxfp8_gemm import FAMILY as SM120_MXFP8_GEMM
from cutlint.model.context import ModelContext
from cutlint.records import Instantiation, Recipe

FAMILIES: tuple[Family, ...] = (
    SM120_BLOCKSCALED_GROUPED,
    SM90_TMA_WS_GROUPED,
    SM100_TMA_WS_GROUPED,
    SM80_FUSED_MOE,
    SM120_MXFP8_GEMM,
    SM120_FP4_GEMM,
    SM120_FP4_GROUP_GEMM,
    SM120_FP8_GROUPWISE,
    SM120_COLLECTIVE_BUILDER,
    SM90_COLLECTIVE_BUILDER,
    SM100_COLLECTIVE_BUILDER,
    CUTLASS2_GEMM_UNIVERSAL,
    CUTLASS2_GEMM_PLANAR_COMPLEX,
    CUTLASS2_BLAS3,
    CUTLASS2_CONV,
    CUTLASS2_GEMM_GROUPED,
    CUTLASS2_SPARSE_GEMM,
)

_BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}


def family_named(name: str) -> Family:
    return _BY_NAME[name]


def family_of(recipe: Recipe) -> Family:
    return _BY_NAME[recipe.family]


def claim(inst: Instantiation, ctx: ModelContext) -> tuple[Family, Claim] | None:
    """The family that owns `inst` and its claim, or None when no family claims it."""
    for family in FAMILIES:
        claimed = family.claim(inst, ctx)
        if claimed is not None:
            return family, claimed
    return None
