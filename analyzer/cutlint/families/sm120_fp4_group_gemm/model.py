"""FlashInfer's NVFP4 and MXFP4 groupwise-scaled grouped GEMMs for SM120/SM121
(`INSTANTIATE_GROUP_GEMM_{NVFP4,MXFP4}_GROUPWISE_SM120`).

The recipe (group_gemm_*_groupwise_sm120.cuh): a grouped block-scaled SM120 mainloop
(`KernelScheduleAuto`, which the builder makes the ptr-array cooperative schedule;
`StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>` against the grouped
`ReducedSmemCapacityBytes`), the ptr-array SM120 epilogue with no C and D row-major
(column-major when SwapAB), and the SM90 ptr-array cooperative kernel shell. NVFP4 operands are
`nv_float4_t` (4-bit in shared memory, SFVec 16); MXFP4 operands are an FP8 x FP4 pair with ue8m0
scales (MXF8F6F4: 8-bit in shared memory, SFVec 32).

0.6.8rc1 - 0.6.10.post1's headers have no SwapAB parameter (13 arguments: D row-major, the
14-argument form with SwapAB false) and bundle CUTLASS 4.4.2, whose block-scaled builder sizes
SFB over tile N and whose ptr-array kernel always splits registers (the knobs `sfb_min_tile_n`
and `low_register_pressure` of cutlass/data/cutlass.toml, both from 4.5.0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_array_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel, cutlass_model, parse_version
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount

_OPERANDS = {"NVFP4": mainloop.NVFP4, "MXFP8_MXFP4": mainloop.MXFP8_MXFP4}


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Tactic:
    macro: str
    tile: Shape3
    swap_ab: bool
    operands: mainloop.Operands
    output: str


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    macro = data["macros"].get(name)
    if macro is None:
        return f"`{name}` is not one of {', '.join(data['macros'])}"
    if len(args) == len(data["parameters"]) - 1:
        args = (*args[:3], "false", *args[3:])  # 0.6.8rc1 - 0.6.10.post1: no SwapAB, D row-major
    if len(args) != len(data["parameters"]):
        return f"`{name}` takes {len(data['parameters'])} arguments; this call passes {len(args)}"
    m, n, k, swap, a, b, sfa, sfb, out = args[:9]
    if swap not in ("true", "false"):
        return f"SwapAB `{swap}` is not `true` or `false`"
    for t in (a, b):
        if t not in macro["inputs"]:
            return f"input type `{t}`: the model covers {', '.join(macro['inputs'])} for `{name}`"
    for t in (sfa, sfb):
        if t not in macro["scales"]:
            return f"scale type `{t}`: the model covers {', '.join(macro['scales'])} for `{name}`"
    if out not in data["output_bits"]:
        return f"output type `{out}`: the model covers {', '.join(data['output_bits'])}"
    try:
        tile = Shape3(m=int(m), n=int(n), k=int(k))
    except ValueError:
        return f"tile {m}x{n}x{k} is not three integers"
    if tile.m % mainloop.SF_BLOCK_MN or tile.n % 32 or tile.k % 128:
        return f"tile {tile}: the model covers M a multiple of 128, N of 32, K of 128"
    return Tactic(name, tile, swap == "true", _OPERANDS[macro["operands"]], out)


@dataclass(frozen=True)
class Recipe:
    """A modeled release's headers: the same kernel types in every release, on its CUTLASS."""

    version: str
    """The modeled release whose headers they are."""
    cutlass: str
    """The CUTLASS the release bundles."""

    def cutlass_model(self) -> CutlassModel:
        return cutlass_model(parse_version(self.cutlass), f"FlashInfer {self.version}")


def recipe_for(version: str | None) -> Recipe | None:
    """The recipe of a release's headers (its own or the one it shares), or None."""
    data = family_data()
    name = data.get("recipe_of", {}).get(version, version)
    r = data["recipes"].get(name) if name is not None else None
    if r is None:
        return None
    return Recipe(version=name, cutlass=r["cutlass"])


def _cutlass(recipe: Recipe | None) -> CutlassModel | None:
    """The recipe's CUTLASS knobs; no recipe: CUTLASS 4.5.0 (the shared parts' default)."""
    return None if recipe is None else recipe.cutlass_model()


def release_known(version: str | None) -> str | None:
    """None when a release's headers build this recipe, else why not modeled."""
    if recipe_for(version) is not None:
        return None
    recipes = ", ".join(family_data()["recipes"])
    return f"FlashInfer {version or '(unknown release)'}: the recipe is known for {recipes}"


def epilogue_operands(t: Tactic) -> epilogue.EpilogueOperands:
    return epilogue.EpilogueOperands(
        c_bits=0, d_bits=family_data()["output_bits"][t.output], d_column_major=t.swap_ab
    )


def epilogue_shape(t: Tactic) -> EpilogueTile:
    return epilogue.shape(t.tile, epilogue_operands(t))


def epilogue_shared_storage(t: Tactic) -> Block:
    return epilogue.array_shared_storage(
        t.tile, epilogue_operands(t), epilogue.linear_combination_storage()
    )


def stage_count(t: Tactic, recipe: Recipe | None = None) -> StageCount:
    return mainloop.stage_count(
        t.tile, t.operands, epilogue_shared_storage(t).size, grouped=True, cutlass=_cutlass(recipe)
    )


def mainloop_shared_storage(t: Tactic, stages: int, recipe: Recipe | None = None) -> Block:
    return mainloop.grouped_mainloop_shared_storage(t.tile, t.operands, stages, _cutlass(recipe))


def kernel_shared_storage(t: Tactic, stages: int, recipe: Recipe | None = None) -> Block:
    ops = epilogue_operands(t)
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop.mainloop_tensor_storage(
            t.tile, t.operands, stages, grouped=True, cutlass=_cutlass(recipe)
        ),
        mainloop_pipeline=mainloop.mainloop_pipeline(stages),
        mainloop_tensormaps=mainloop.mainloop_tensormaps(),
        epilogue_tensors=epilogue.tensor_storage(
            t.tile, ops, epilogue.linear_combination_storage()
        ),
        epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
        epilogue_tensormaps=epilogue.array_tensormaps(),
    )


def max_threads_per_block() -> int:
    return shell.max_threads_per_block()


def register_plan(t: Tactic, recipe: Recipe | None = None) -> RegisterPlan:
    """The ptr-array kernel's register split; before CUTLASS 4.5.0 it never skips it (knob
    `low_register_pressure`). No recipe: CUTLASS 4.5.0."""
    cutlass = _cutlass(recipe)
    low = cutlass is None or cutlass.has("low_register_pressure")
    return shell.register_plan(t.tile, sm120_blockscaled=low)


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "default"
) -> KernelNumbers | str:
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    why = release_known(version)
    if why is not None:
        return why
    if kernel != "default":
        return f"`{name}` builds one kernel (`default`), not `{kernel}`"
    recipe = recipe_for(version)
    sc = stage_count(t, recipe)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=kernel,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages, recipe),
        max_threads_per_block=max_threads_per_block(),
    )
