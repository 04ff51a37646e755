"""FlashInfer's dense MXFP8 GEMM for SM120/SM121 (`INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120`).

The recipe is `DeviceGemmMxfp8GemmSm120_*` in `flashinfer/gemm/mxfp8_gemm_template_sm120.h`: a
block-scaled SM120 mainloop over `mx_float8_t<e4m3>` operands (`KernelScheduleAuto`, which the
builder makes cooperative), an SM120 TMA epilogue with `ElementC = void` and D row-major (column-
major when SwapAB), and `GemmUniversal<..., PersistentScheduler>`, i.e. the SM90 cooperative
kernel shell with the CLC scheduler. The stage count is the builder's
`StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`, except where the release's
header fixes `StageCount<2>` (0.6.11.post2, tiles with a 256 side; 0.6.8.post1, every tile, whose
macro has no SWAP_AB_: a 4-argument call is the 5-argument one with SwapAB false): data/family.toml.

The two computations stay apart, as in every family: `stage_count` (what the builder or the
launcher decides) and `kernel_shared_storage` (what the compiler lays out for that count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Tactic:
    """What one macro call instantiates (its arguments, typed)."""

    output: str
    """T as written: `half`, `__nv_bfloat16`."""
    tile: Shape3
    swap_ab: bool


@dataclass(frozen=True)
class Recipe:
    """How a release's header builds the kernel where releases differ: the stage policy."""

    version: str
    fixed_stages: int | None
    fixed_when_tile_dim: int | None
    source: str

    def fixed_for(self, tile: Shape3) -> int | None:
        """`StageCount<N>` when the header fixes it for this tile (for every tile when no
        `fixed_when_tile_dim`), else None (auto carveout)."""
        if self.fixed_stages is None:
            return None
        if self.fixed_when_tile_dim is None:
            return self.fixed_stages
        return self.fixed_stages if self.fixed_when_tile_dim in (tile.m, tile.n) else None


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    """The typed arguments of one `INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120(...)`, or why the
    call is outside what this family models."""
    data = family_data()
    if name != data["macro"]:
        return f"`{name}` is not {data['macro']}"
    if len(args) == len(data["parameters"]) - 1:
        args = (*args, "false")  # 0.6.8rc1 - 0.6.10.post1: no SWAP_AB_, D row-major
    if len(args) != len(data["parameters"]):
        return f"`{name}` takes {len(data['parameters'])} arguments; this call passes {len(args)}"
    out, m, n, k, swap = args
    if out not in data["output_bits"]:
        return f"output type `{out}`: the model covers {', '.join(data['output_bits'])}"
    if swap not in ("true", "false"):
        return f"SWAP_AB `{swap}` is not `true` or `false`"
    try:
        tile = Shape3(m=int(m), n=int(n), k=int(k))
    except ValueError:
        return f"tile {m}x{n}x{k} is not three integers"
    if tile.m % mainloop.SF_BLOCK_MN or tile.n % 32 or tile.k % 128:
        return f"tile {tile}: the model covers M a multiple of 128, N of 32, K of 128"
    return Tactic(output=out, tile=tile, swap_ab=swap == "true")


def recipe_for(version: str | None) -> Recipe | str:
    """The header's recipe of a FlashInfer release, or why there is none."""
    recipes: dict[str, Any] = family_data()["recipes"]
    if version is None:
        return f"unknown FlashInfer release: the stage policy is known for {', '.join(recipes)}"
    r = recipes.get(family_data().get("recipe_of", {}).get(version, version))
    if r is None:
        return f"FlashInfer {version}: the stage policy is known for {', '.join(recipes)}"
    return Recipe(version, r.get("fixed_stages"), r.get("fixed_when_tile_dim"), r["source"])


def epilogue_operands(t: Tactic) -> epilogue.EpilogueOperands:
    """ElementC = void; D is the output type, column-major when SwapAB (the header's LayoutC)."""
    return epilogue.EpilogueOperands(
        c_bits=0, d_bits=family_data()["output_bits"][t.output], d_column_major=t.swap_ab
    )


def epilogue_shape(t: Tactic) -> EpilogueTile:
    return epilogue.shape(t.tile, epilogue_operands(t))


def epilogue_shared_storage(t: Tactic) -> Block:
    return epilogue.shared_storage(
        t.tile, epilogue_operands(t), epilogue.linear_combination_storage()
    )


def stage_count(t: Tactic, recipe: Recipe) -> StageCount:
    fixed = recipe.fixed_for(t.tile)
    carveout = None if fixed is not None else epilogue_shared_storage(t).size
    return mainloop.stage_count(t.tile, mainloop.MXFP8, carveout, fixed)


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mainloop.mainloop_shared_storage(t.tile, mainloop.MXFP8, stages)


def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    ops = epilogue_operands(t)
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop.mainloop_tensor_storage(t.tile, mainloop.MXFP8, stages),
        mainloop_pipeline=mainloop.mainloop_pipeline(stages),
        epilogue_tensors=epilogue.tensor_storage(
            t.tile, ops, epilogue.linear_combination_storage()
        ),
        epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
        scheduler=shell.scheduler_for(family_data()["kernel"]["tile_scheduler"]),
    )


def max_threads_per_block() -> int:
    return shell.max_threads_per_block()


def register_plan(t: Tactic) -> RegisterPlan:
    return shell.register_plan(t.tile, sm120_blockscaled=True)


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "default"
) -> KernelNumbers | str:
    """The numbers of one instantiation's kernel under a release's recipe, or why not modeled."""
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    recipe = recipe_for(version)
    if isinstance(recipe, str):
        return recipe
    if kernel != "default":
        return f"`{name}` builds one kernel (`default`), not `{kernel}`"
    sc = stage_count(t, recipe)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=kernel,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages),
        max_threads_per_block=max_threads_per_block(),
    )
