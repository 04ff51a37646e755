"""FlashInfer's NVFP4 and MXFP4 groupwise-scaled grouped GEMMs for SM120/SM121
(`INSTANTIATE_GROUP_GEMM_{NVFP4,MXFP4}_GROUPWISE_SM120`).

The recipe (group_gemm_*_groupwise_sm120.cuh): a grouped block-scaled SM120 mainloop
(`KernelScheduleAuto`, which the builder makes the ptr-array cooperative schedule;
`StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>` against the grouped
`ReducedSmemCapacityBytes`), the ptr-array SM120 epilogue with no C and D row-major
(column-major when SwapAB), and the SM90 ptr-array cooperative kernel shell. NVFP4 operands are
`nv_float4_t` (4-bit in shared memory, SFVec 16); MXFP4 operands are an FP8 x FP4 pair with ue8m0
scales (MXF8F6F4: 8-bit in shared memory, SFVec 32).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_array_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
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


def release_known(version: str | None) -> str | None:
    recipes: dict[str, Any] = family_data()["recipes"]
    if version in recipes:
        return None
    return (
        f"FlashInfer {version or '(unknown release)'}: the recipe is known for {', '.join(recipes)}"
    )


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


def stage_count(t: Tactic) -> StageCount:
    return mainloop.stage_count(t.tile, t.operands, epilogue_shared_storage(t).size, grouped=True)


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mainloop.grouped_mainloop_shared_storage(t.tile, t.operands, stages)


def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    ops = epilogue_operands(t)
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop.mainloop_tensor_storage(t.tile, t.operands, stages, grouped=True),
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


def register_plan(t: Tactic) -> RegisterPlan:
    return shell.register_plan(t.tile, sm120_blockscaled=True)


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
    sc = stage_count(t)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=kernel,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages),
        max_threads_per_block=max_threads_per_block(),
    )
