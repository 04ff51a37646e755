"""Reading a CUTLASS 3.x SM120 kernel off its alias chain: `GemmUniversal<ProblemShape, Mainloop,
Epilogue, TileScheduler>` whose mainloop and epilogue are `CollectiveBuilder<...>::CollectiveOp`
aliases (cutlint.parse.aliases), typed into a recipe. Syntax only: which CUTLASS parts the recipe
selects is model.py's business.

The argument orders are the builders' template parameter lists:
`cutlass/gemm/collective/collective_builder_decl.hpp` (ArchTag, OpClass, ElementA, GmemLayoutA,
AlignmentA, ElementB, GmemLayoutB, AlignmentB, ElementAccumulator, TileShape_MNK,
ClusterShape_MNK, StageCountType, KernelScheduleType) and
`cutlass/epilogue/collective/collective_builder.hpp` (ArchTag, OpClass, TileShape_MNK,
ClusterShape_MNK, EpilogueTileType, ElementAccumulator, ElementCompute, ElementC, GmemLayoutTagC,
AlignmentC, ElementD, GmemLayoutTagD, AlignmentD, Schedule, FusionOpOrCallbacks).
"""

from __future__ import annotations

import re

from pydantic import Field

from cutlint.families.alias_args import builder, static_shape
from cutlint.records import Instantiation, Recipe, Shape3

KERNEL = "cutlass::gemm::kernel::GemmUniversal"
MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder"
ARCH_TAGS = ("cutlass::arch::Sm120", "cutlass::arch::Sm121")
BLOCKWISE_CONFIG = "cutlass::detail::Sm120BlockwiseScaleConfig"


class CollectiveBuilderRecipe(Recipe):
    """One `GemmUniversal` built from SM120 CollectiveBuilders, its template arguments as written
    (namespaces kept, whitespace normalized) and the numbers among them typed."""

    kernel: str = Field(description="the alias that names the kernel (the chain's first link)")
    problem_shape: str
    tile_scheduler: str = Field(description="GemmUniversal's 4th argument (`void` if absent)")
    arch_tag: str
    opclass: str
    element_a: str
    layout_a: str
    alignment_a: str
    element_b: str
    layout_b: str
    alignment_b: str
    accumulator: str
    tile: Shape3 | None = Field(description="TileShape_MNK; None when not static integers")
    cluster: Shape3 | None
    stage_policy: str = Field(description="StageCountType as written")
    kernel_schedule: str
    epilogue_tile: str
    element_c: str
    layout_c: str
    element_d: str
    layout_d: str
    epilogue_schedule: str
    fusion: str = Field(description="the epilogue builder's fusion operation (`` if absent)")
    epilogue_alias: str
    epilogue_tile_shape: Shape3 | None = Field(description="the epilogue builder's TileShape_MNK")
    scale_granularity: Shape3 | None = Field(
        default=None,
        description="Sm120BlockwiseScaleConfig<M, N, K> the A/B layout tuples name (blockwise)",
    )


def _layout_and_scales(inst: Instantiation, layout: str) -> tuple[str, Shape3 | None]:
    """A blockwise builder's layout argument is `cute::tuple<Layout[*], LayoutSF[*]>`, LayoutSF an
    alias of `decltype(Config::deduce_layoutSF?())` with Config = Sm120BlockwiseScaleConfig<M, N,
    K>: the gmem layout, and the scale granularity (None when not read)."""
    m = re.fullmatch(r"cute::tuple<\s*([^,]+?)\s*,\s*(\w+)\s*\*?\s*>", layout.strip())
    if not m:
        return layout, None
    sf = inst.alias(m[2])
    config = re.fullmatch(r"decltype\((\w+)::deduce_layoutSF[AB]\(\)\)", sf.target) if sf else None
    cfg = inst.alias(config[1]) if config else None
    if cfg is None or cfg.target != BLOCKWISE_CONFIG or not cfg.args or len(cfg.args) < 3:
        return m[1], None
    try:
        g = [int(x) for x in cfg.args[:3]]
    except ValueError:
        return m[1], None
    return m[1], Shape3(m=g[0], n=g[1], k=g[2])


def read(inst: Instantiation, family: str) -> CollectiveBuilderRecipe | None:
    """The recipe of a `GemmUniversal` alias whose mainloop is an SM120/SM121 CollectiveBuilder;
    None when the chain is not that (another family's, or no builder at all)."""
    if inst.name != KERNEL or not inst.chain or len(inst.args) not in (3, 4):
        return None
    ml = builder(inst, inst.args[1], MAINLOOP_BUILDER)
    if ml is None or ml.args is None or len(ml.args) != 13 or ml.args[0] not in ARCH_TAGS:
        return None  # (another arch's builder: asked first, as most chains are)
    ep = builder(inst, inst.args[2], EPILOGUE_BUILDER)
    if ep is None or ep.args is None or len(ep.args) not in (14, 15):
        return None
    layout_a, scales_a = _layout_and_scales(inst, ml.args[3])
    layout_b, scales_b = _layout_and_scales(inst, ml.args[6])
    return CollectiveBuilderRecipe(
        family=family,
        kernel=inst.chain[0].name,
        problem_shape=inst.args[0],
        tile_scheduler=inst.args[3] if len(inst.args) == 4 else "void",
        arch_tag=ml.args[0],
        opclass=ml.args[1],
        element_a=ml.args[2],
        layout_a=layout_a,
        alignment_a=ml.args[4],
        element_b=ml.args[5],
        layout_b=layout_b,
        alignment_b=ml.args[7],
        accumulator=ml.args[8],
        tile=static_shape(ml.args[9]),
        cluster=static_shape(ml.args[10]),
        stage_policy=ml.args[11],
        kernel_schedule=ml.args[12],
        epilogue_tile=ep.args[4],
        element_c=ep.args[7],
        layout_c=ep.args[8],
        element_d=ep.args[10],
        layout_d=ep.args[11],
        epilogue_schedule=ep.args[13],
        fusion=ep.args[14] if len(ep.args) == 15 else "",
        epilogue_alias=ep.name,
        epilogue_tile_shape=static_shape(ep.args[2]),
        # one config names both scale layouts; two that differ are not read
        scale_granularity=scales_a if scales_a == scales_b else None,
    )
