"""The SM120 block-scaled grouped MoE GEMM family: claims `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`
with `Sm120`/`Sm121`, and computes its Resources with model.py (the builder's stage count and the
compiler's layout of GemmKernel::SharedStorage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cutlint.cutlass.versions import CutlassModel, outside_modeled_range
from cutlint.families import moe_macro_family as macro
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm120_blockscaled_grouped import model as sm120
from cutlint.model.context import ModelContext
from cutlint.records import (
    ElementType,
    Fusion,
    Instantiation,
    MoeGemmArgs,
    Recipe,
    Resources,
    SmemLayout,
    Variant,
)

OUTPUT_BITS = {ElementType.F16: 16, ElementType.BF16: 16}
"""Output types the SM120 epilogue model covers (ReuseSmem and the swizzle assume 16-bit)."""


LEGACY_FINALIZE = (
    "FINALIZE of FlashInfer 0.5.x's 14-parameter launcher: EpilogueMoeFusedFinalizeBuilder "
    "(cutlass_extensions), another epilogue than the model's fusion-callbacks scatter"
)


class Sm120BlockscaledGrouped:
    name: ClassVar[str] = "sm120-blockscaled-grouped"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {
            RuleGroup.SMEM_AT_INITIALIZE,
            RuleGroup.STAGE_FLOOR,
            RuleGroup.SM120_STAGE_BUDGET,
            RuleGroup.SM120_MOE_CLUSTER,
            RuleGroup.SM120_MOE_DISPATCH,
        }
    )
    package: ClassVar[str] = "cutlint.families.sm120_blockscaled_grouped"
    metrics: ClassVar[Mapping[str, str]] = macro.METRICS
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = macro.METRIC_INPUTS
    columns: ClassVar[tuple[str, ...]] = macro.COLUMNS
    probe: ClassVar[str | None] = "tma-ws-moe-launcher"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        got = macro.claim_macro(self.name, (120, 121), inst, ctx)
        if (
            got is not None
            and not isinstance(got, Unreadable)
            and macro.args_of(got).fusion is Fusion.FINALIZE
            and macro.legacy_launcher(inst, ctx)
        ):
            # FlashInfer 0.5.x: CollectiveEpilogueFinalize = EpilogueMoeFusedFinalizeBuilder
            # (moe_gemm_tma_ws_launcher.inl), not the fusion-callbacks scatter the model builds
            return Unreadable(problems=(), reason=LEGACY_FINALIZE)
        return got

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(macro.args_of(recipe), ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        a = macro.args_of(recipe)
        t = _tactic(a, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        stage_count = sm120.stage_count(t, ctx.cutlass)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=stage_count,
            layout=_smem_layout(t, stage_count.stages, ctx.cutlass),
            max_threads_per_block=sm120.max_threads_per_block(),
            tma_descriptors=sm120.TMA_DESCRIPTORS,
            dispatch_supported=_dispatch_supported(a, ctx),
            dispatch_source=DISPATCH_SOURCE,
            variants=_variants(t, ctx),
            epilogue=sm120.epilogue_shape(t, ctx.cutlass),
            registers=sm120.register_plan(t, ctx.cutlass),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return macro.facts(recipe)

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        return macro.describe(recipe)

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        return macro.inputs(recipe)

    def title(self, recipe: Recipe) -> str:
        return macro.title(recipe)


FAMILY = Sm120BlockscaledGrouped()


def _tactic(a: MoeGemmArgs, ctx: ModelContext) -> sm120.Tactic | str:
    """The SM120 recipe's inputs, or why this instantiation is outside what the model covers."""
    if ctx.arch.sm not in (120, 121):
        return CannotRun(f"an {a.arch_tag} kernel does not run on {ctx.arch.name}")
    if why := outside_modeled_range(ctx.cutlass):
        return why
    if a.act_type is None or a.weight_type is None or a.output_type is None or a.fusion is None:
        return "an element type or the fusion is unknown (see the CUT0xx diagnostic)"
    operands = sm120.operands_for(a.act_type, a.weight_type, a.mxfpx)
    if operands is None:
        return f"{a.act_type} x {a.weight_type} with MXFPX={str(a.mxfpx).lower()} is not a block-scaled SM120 combination the model covers"
    if a.output_type not in OUTPUT_BITS:
        return f"output type {a.output_type}: the SM120 epilogue model covers f16 and bf16"
    if a.fusion is Fusion.ACTIVATION:
        return "ACTIVATION fusion is SM10x-only in the launcher (a static_assert on SM120); not modeled"
    if a.cta_tile.n < sm120.SF_BLOCK_MN and not ctx.cutlass.has("sfb_min_tile_n"):
        return f"tile N = {a.cta_tile.n} < 128 needs CUTLASS >= 4.5.0 for SM120 block-scaled (sSFBTileShape_N); not modeled for {ctx.cutlass.label}"
    if a.cta_tile.m % sm120.SF_BLOCK_MN or a.cta_tile.n % 32 or a.cta_tile.k % 64:
        return f"tile {a.cta_tile}: the model covers M a multiple of 128, N of 32 and K of 64"
    return sm120.Tactic(a.cta_tile, operands, OUTPUT_BITS[a.output_type], a.fusion, a.swap_ab)


def _smem_layout(t: sm120.Tactic, stages: int, cutlass: CutlassModel) -> SmemLayout:
    kernel = sm120.kernel_shared_storage(t, stages, cutlass)
    return SmemLayout(
        regions=regions(kernel),
        size=kernel.size,
        align=kernel.align,
        mainloop_size=sm120.mainloop_shared_storage(t, stages, cutlass).size,
        epilogue_size=sm120.epilogue_shared_storage(t, cutlass).size,
    )


def _variant(label: str, t: sm120.Tactic, cutlass: CutlassModel, smem_optin: int) -> Variant:
    stages = sm120.stage_count(t, cutlass).stages
    size = sm120.kernel_shared_storage(t, stages, cutlass).size
    return Variant(
        label=label,
        tile=t.tile,
        stages=stages,
        smem_bytes=size,
        fits=stages >= 2 and size <= smem_optin,
    )


def _variants(t: sm120.Tactic, ctx: ModelContext) -> tuple[Variant, ...]:
    swapped = sm120.Tactic(t.tile, t.operands, t.output_bits, t.fusion, not t.swap_ab)
    other = Fusion.NONE if t.fusion is Fusion.FINALIZE else Fusion.FINALIZE
    refused = sm120.Tactic(t.tile, t.operands, t.output_bits, other, t.swap_ab)
    return (
        _variant(
            f"SwapAB {'on' if swapped.swap_ab else 'off'}",
            swapped,
            ctx.cutlass,
            ctx.arch.smem_optin,
        ),
        _variant(f"{other.value} epilogue", refused, ctx.cutlass, ctx.arch.smem_optin),
    )


DISPATCH_SOURCE = (
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch_tma_ws.h: "
    "are_tile_shapes_supported_sm120 (of the FlashInfer release that wrote the file)"
)


def _dispatch_supported(a: MoeGemmArgs, ctx: ModelContext) -> bool | None:
    """The launcher's are_tile_shapes_supported_sm120 for this FlashInfer release (1x1x1 only);
    None when the release is unknown: cannot say it is refused, so the rule stays quiet."""
    if a.cluster.m * a.cluster.n * a.cluster.k != 1 or a.dynamic_cga:
        return False
    if ctx.flashinfer is None:
        return None
    return (a.cta_tile.m, a.cta_tile.n, a.cta_tile.k) in ctx.flashinfer.sm120_tiles
