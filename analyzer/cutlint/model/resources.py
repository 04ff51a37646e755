"""From an instantiation record to its Resources on one arch, or to NotModeled with the reason.

This is the model's one entry point: it chooses the recipe for the instantiation's family and
arch, runs the stage-count and layout computations, and adds the neighbouring variants that the
rules use to say what would fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel, format_version, modeled_range
from cutlint.model import sm120_blockscaled as sm120
from cutlint.producers.flashinfer.releases import FlashInferRelease
from cutlint.records import (
    ArchLimits,
    ElementType,
    Family,
    Fusion,
    Instantiation,
    MoeGemmArgs,
    NotModeled,
    Region,
    Resources,
    SmemLayout,
    Variant,
)

OUTPUT_BITS = {ElementType.F16: 16, ElementType.BF16: 16}
"""Output types the SM120 epilogue model covers (ReuseSmem and the swizzle assume 16-bit)."""


@dataclass(frozen=True)
class ModelContext:
    """What the model needs besides the instantiation: the target arch and the CUTLASS version."""

    arch: ArchLimits
    cutlass: CutlassModel
    flashinfer: FlashInferRelease | None = None


def model_instantiation(inst: Instantiation, ctx: ModelContext) -> Resources | NotModeled:
    if inst.family is Family.EXPLICIT_LAUNCHER:
        return NotModeled(
            reason=f"explicit launcher instantiation `{inst.name}`: this family is not modeled yet"
        )
    if inst.family is Family.MACRO_CALL:
        return NotModeled(reason=f"`{inst.name}(...)`: this family is not modeled yet")
    if inst.moe is None:
        return NotModeled(
            reason="the macro's arguments could not be read (see the CUT0xx diagnostic)"
        )
    tactic_or_reason = _sm120_tactic(inst.moe, ctx)
    if isinstance(tactic_or_reason, str):
        return NotModeled(reason=tactic_or_reason)
    return _resources(inst.moe, tactic_or_reason, ctx)


def _sm120_tactic(a: MoeGemmArgs, ctx: ModelContext) -> sm120.Tactic | str:
    """The SM120 recipe's inputs, or why this instantiation is outside what the model covers."""
    if a.sm not in (120, 121):
        return f"{a.arch_tag} TMA warp-specialized grouped GEMM: only the SM120 block-scaled recipe is modeled"
    if ctx.arch.sm not in (120, 121):
        return f"an {a.arch_tag} kernel does not run on {ctx.arch.name}"
    first, last = modeled_range()
    if not first <= ctx.cutlass.version <= last:
        return f"CUTLASS {ctx.cutlass.label} is outside the modeled range {format_version(first)}-{format_version(last)}"
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
        regions=_regions(kernel),
        size=kernel.size,
        align=kernel.align,
        mainloop_size=sm120.mainloop_shared_storage(t, stages, cutlass).size,
        epilogue_size=sm120.epilogue_shared_storage(t, cutlass).size,
    )


def _regions(block: Block) -> tuple[Region, ...]:
    return tuple(
        Region(
            name=p.name.removeprefix("SharedStorage."),
            offset=p.offset,
            size=p.size,
            align=p.align,
            source=p.source,
        )
        for p in block.flat()
    )


def _variant(label: str, t: sm120.Tactic, ctx: ModelContext) -> Variant:
    stages = sm120.stage_count(t, ctx.cutlass).stages
    size = sm120.kernel_shared_storage(t, stages, ctx.cutlass).size
    return Variant(
        label=label,
        tile=t.tile,
        swap_ab=t.swap_ab,
        fusion=t.fusion,
        stages=stages,
        smem_bytes=size,
        fits=stages >= 2 and size <= ctx.arch.smem_optin,
    )


def _variants(t: sm120.Tactic, ctx: ModelContext) -> tuple[Variant, ...]:
    swapped = sm120.Tactic(t.tile, t.operands, t.output_bits, t.fusion, not t.swap_ab)
    other = Fusion.NONE if t.fusion is Fusion.FINALIZE else Fusion.FINALIZE
    refused = sm120.Tactic(t.tile, t.operands, t.output_bits, other, t.swap_ab)
    return (
        _variant(f"SwapAB {'on' if swapped.swap_ab else 'off'}", swapped, ctx),
        _variant(f"{other.value} epilogue", refused, ctx),
    )


def _dispatch_supported(a: MoeGemmArgs, ctx: ModelContext) -> bool:
    """The launcher's are_tile_shapes_supported_sm120 for this FlashInfer release (1x1x1 only)."""
    if a.cluster.m * a.cluster.n * a.cluster.k != 1 or a.dynamic_cga:
        return False
    if ctx.flashinfer is None:
        return True  # unknown release: cannot say it is refused; the rule stays quiet
    return (a.cta_tile.m, a.cta_tile.n, a.cta_tile.k) in ctx.flashinfer.sm120_tiles


def _resources(a: MoeGemmArgs, t: sm120.Tactic, ctx: ModelContext) -> Resources:
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
        variants=_variants(t, ctx),
        epilogue=sm120.epilogue_shape(t, ctx.cutlass),
        registers=sm120.register_plan(t, ctx.cutlass),
    )
