"""The SM90 TMA warp-specialized grouped MoE GEMM family: claims
`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM` with `Sm90`, and computes its Resources with model.py
(the SM90 builder's stage count and the compiler's layout of GemmKernel::SharedStorage)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

from cutlint.cutlass.versions import outside_modeled_range
from cutlint.families import moe_macro_family as macro
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm90_tma_ws_grouped import model as sm90
from cutlint.model.context import ModelContext
from cutlint.records import (
    Fusion,
    Instantiation,
    MoeGemmRecipe,
    Recipe,
    Resources,
    SmemLayout,
    Variant,
)

NAME = "sm90-tma-ws-grouped"
SM = 90
"""`sm_90a` cubins load only on compute capability 9.0 (H100, H200)."""


class Sm90TmaWsGrouped:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR, RuleGroup.TMA_WS_MOE_DISPATCH}
    )
    package: ClassVar[str] = "cutlint.families.sm90_tma_ws_grouped"
    metrics: ClassVar[Mapping[str, str]] = macro.METRICS
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = macro.METRIC_INPUTS
    columns: ClassVar[tuple[str, ...]] = macro.COLUMNS
    probe: ClassVar[str | None] = "tma-ws-moe-launcher"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        got = macro.claim_macro(self.name, (SM,), inst, ctx)
        if got is not None and not isinstance(got, Unreadable) and macro.legacy_launcher(inst, ctx):
            return LegacyMoeGemmRecipe(family=got.family, args=macro.args_of(got))
        return got

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        stage_count = sm90.stage_count(t, ctx.cutlass)
        stages = stage_count.stages
        kernel = sm90.kernel_shared_storage(t, stages, ctx.cutlass)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=stage_count,
            layout=SmemLayout(
                regions=regions(kernel),
                size=kernel.size,
                align=kernel.align,
                mainloop_size=sm90.mainloop_shared_storage(t, stages, ctx.cutlass).size,
                epilogue_size=sm90.epilogue_shared_storage(t, ctx.cutlass).size,
            ),
            max_threads_per_block=sm90.max_threads_per_block(t),
            tma_descriptors=sm90.tma_descriptors(t),
            registers=sm90.register_plan(t),
            dispatch_supported=sm90.dispatch_supported(t),
            dispatch_source=sm90.family_data()["dispatch"]["tiles_source"],
            dispatch_reason=sm90.dispatch_reason(t) or "",
            variants=_variants(t, ctx),
            epilogue=None if t.legacy else sm90.epilogue_tile(t),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return macro.facts(recipe)

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        return macro.describe(recipe)

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        return macro.inputs(recipe)

    def title(self, recipe: Recipe) -> str:
        return macro.title(recipe)


FAMILY = Sm90TmaWsGrouped()


class LegacyMoeGemmRecipe(MoeGemmRecipe):
    """A call read by FlashInfer 0.5.x's 14-parameter launcher (moe_macro_family.legacy_launcher),
    which builds another Sm90 recipe: EpilogueScheduleSM90 = PtrArrayNoSmemWarpSpecialized and
    FINALIZE by EpilogueMoeFusedFinalizeBuilder (model.Tactic.legacy)."""


def _tactic(recipe: Recipe, ctx: ModelContext) -> sm90.Tactic | str:
    """The recipe's Tactic, or why it is outside what the model computes exactly."""
    a = macro.args_of(recipe)
    if ctx.arch.sm != SM:
        return CannotRun(f"an {a.arch_tag} kernel (sm_90a) does not run on {ctx.arch.name}")
    if why := outside_modeled_range(ctx.cutlass):
        return why
    return sm90.tactic_of(a, legacy=isinstance(recipe, LegacyMoeGemmRecipe))


def _variant(label: str, t: sm90.Tactic, ctx: ModelContext) -> Variant:
    stages = sm90.stage_count(t, ctx.cutlass).stages
    size = sm90.kernel_shared_storage(t, stages, ctx.cutlass).size
    return Variant(
        label=label,
        tile=t.tile,
        stages=stages,
        smem_bytes=size,
        fits=stages >= 2 and size <= ctx.arch.smem_optin,
    )


def _variants(t: sm90.Tactic, ctx: ModelContext) -> tuple[Variant, ...]:
    """SwapAB flipped and the other fusion: what the generator also emits for this tile."""
    swapped = dataclasses.replace(t, swap_ab=not t.swap_ab)
    other = Fusion.NONE if t.fusion is Fusion.FINALIZE else Fusion.FINALIZE
    refused = dataclasses.replace(t, fusion=other)
    return (
        _variant(f"SwapAB {'on' if swapped.swap_ab else 'off'}", swapped, ctx),
        _variant(f"{other.value} epilogue", refused, ctx),
    )
