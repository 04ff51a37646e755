"""Reading an SM100 CollectiveBuilder chain into a typed recipe (syntax only).

The chain is the parser's (cutlint.parse.aliases): `GemmUniversal<ProblemShape, Mainloop,
Epilogue[, TileScheduler]>`, whose Mainloop and Epilogue arguments name aliases of
`CollectiveBuilder<...>::CollectiveOp`. The argument orders are the builders' template parameter
lists (cutlass/gemm/collective/collective_builder_decl.hpp, 13 arguments;
cutlass/epilogue/collective/collective_builder.hpp, 15). Which CUTLASS parts the recipe selects is
model.py's business.
"""

from __future__ import annotations

from pydantic import Field

from cutlint.families.alias_args import builder, static_shape
from cutlint.families.sm100_collective_builder.blockwise import scale_granularity
from cutlint.records import Instantiation, Recipe, Shape3

NAME = "sm100-collective-builder"
GEMM_UNIVERSAL = "cutlass::gemm::kernel::GemmUniversal"
MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder"
SM100 = "cutlass::arch::Sm100"
MAINLOOP_ARGS = 13
EPILOGUE_ARGS = 15
GROUPED_PROBLEM_SHAPES = ("GroupProblemShape", "MoEProblemShape")
"""The problem shapes of a grouped GEMM (cutlass/gemm/group_array_problem_shape.hpp):
`GroupProblemShape` (a problem shape per group) and `MoEProblemShape` (max M, N, K and
`tokens_per_expert`, in 4.2.0 already). The kernel shell is chosen by the schedule, not by the
problem shape: both go to the ptr-array shell, whose group scheduler's CLCResponse is the same
WorkTileInfo for either (sm100_tile_scheduler_group.hpp)."""


class Sm100CollectiveBuilderRecipe(Recipe):
    """A `GemmUniversal` whose mainloop is an `Sm100` CollectiveBuilder, as the chain writes it."""

    kernel: str = Field(description="the kernel alias (cutlass_library: <name>_base)")
    problem_shape: str
    tile_scheduler: str = Field(description="GemmUniversal's 4th argument, `void` if absent")
    mainloop: tuple[str, ...] = Field(description="the mainloop builder's 13 arguments")
    epilogue_alias: str = Field(description="the epilogue builder's alias name")
    epilogue: tuple[str, ...] = Field(description="the epilogue builder's 15 arguments")
    tile: Shape3 = Field(description="TileShape_MNK: the MMA tile (both CTAs of a 2-SM MMA)")
    cluster: Shape3 | None = Field(
        description="ClusterShape_MNK; None for a dynamic cluster (`cute::Shape<int, int, _1>`)"
    )
    scale_granularity: Shape3 | None = Field(
        default=None,
        description="blockwise: the Sm100BlockwiseScaleConfig<M, N, K> of the A/B layout tuples",
    )


def is_grouped(r: Sm100CollectiveBuilderRecipe) -> bool:
    """A grouped problem shape (GROUPED_PROBLEM_SHAPES)."""
    return any(shape in r.problem_shape for shape in GROUPED_PROBLEM_SHAPES)


def is_pointer(layout: str) -> bool:
    """A builder's layout tag given as a pointer (`cutlass::layout::ColumnMajor*`): a tensor per
    group (the builders' InternalStride = remove_pointer_t<Stride> differs from Stride)."""
    return layout.replace(" ", "").endswith("*")


def claim(inst: Instantiation) -> Sm100CollectiveBuilderRecipe | str | None:
    """The recipe, a reason the chain cannot be read (str), or None: not an Sm100 builder kernel."""
    if inst.name != GEMM_UNIVERSAL or len(inst.args) not in (3, 4):
        return None
    mainloop = builder(inst, inst.args[1], MAINLOOP_BUILDER)
    if mainloop is None or mainloop.args is None or not mainloop.args:
        return None
    if mainloop.args[0] != SM100:
        return None
    if len(mainloop.args) != MAINLOOP_ARGS:
        return f"the SM100 mainloop CollectiveBuilder takes {MAINLOOP_ARGS} arguments, found {len(mainloop.args)}"
    epilogue = builder(inst, inst.args[2], EPILOGUE_BUILDER)
    if epilogue is None or epilogue.args is None:
        return f"GemmUniversal's epilogue `{inst.args[2]}` is not an alias of an epilogue CollectiveBuilder in this file"
    if len(epilogue.args) != EPILOGUE_ARGS:
        return f"the epilogue CollectiveBuilder takes {EPILOGUE_ARGS} arguments, found {len(epilogue.args)}"
    tile = static_shape(mainloop.args[9])
    if tile is None or min(tile.m, tile.n, tile.k) < 1:
        return (
            f"tile `{mainloop.args[9]}` must be a static cute::Shape<cute::_M, cute::_N, cute::_K>"
        )
    cluster = static_shape(mainloop.args[10])
    if cluster is not None and min(cluster.m, cluster.n, cluster.k) < 1:
        return f"cluster `{mainloop.args[10]}` has a non-positive extent"
    return Sm100CollectiveBuilderRecipe(
        family=NAME,
        kernel=inst.chain[0].name if inst.chain else "",
        problem_shape=inst.args[0],
        tile_scheduler=inst.args[3] if len(inst.args) == 4 else "void",
        mainloop=mainloop.args,
        epilogue_alias=epilogue.name,
        epilogue=epilogue.args,
        tile=tile,
        cluster=cluster,
        scale_granularity=scale_granularity(inst, mainloop.args),
    )
