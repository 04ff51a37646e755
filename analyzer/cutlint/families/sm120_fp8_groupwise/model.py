"""FlashInfer's FP8 groupwise-scaled GEMM and grouped GEMM for SM120/SM121
(`CutlassGroupwiseScaledGEMMSM120`, `CutlassFP8GroupwiseScaledGroupGEMMSM120`).

Both launchers build a 128x128x128 cooperative kernel from CUTLASS's SM120 blockwise-scaling
builder (`KernelScheduleSm120Blockwise`, `StageCountAutoCarveout<sizeof(CollectiveEpilogue::
SharedStorage)>`) with float scales of granularity (gM, 128, 128). The GEMM has a source C of
the output type (so C and D share one union of 3 buffers) and the SM90 cooperative shell with the
CLC scheduler (2 stages, the blockwise builder's); the grouped GEMM has no C, the ptr-array
epilogue (tensormaps for C and 2 x D) and the ptr-array cooperative shell.

Every release from 0.5.0 builds these kernels the same way: the headers of 0.5.x - 0.6.10 differ
from 0.6.11.post2's only in what follows the kernel types (a stream sync, PDL at launch) and in
static_assert messages, and the CUTLASS parts they use (the blockwise builder and mainloops, the
SM120 epilogue builder, the SM90 epilogues, the cooperative and ptr-array cooperative shells and
their schedulers) lay out and count stages the same in CUTLASS 4.2.1, 4.4.2 and 4.5.0. A recipe
in data/family.toml names each modeled release's headers and bundled CUTLASS; `recipe_of` maps
the releases whose headers and CUTLASS are a modeled release's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_array_cooperative as array_shell
from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockwise as mainloop
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import RegisterPlan, Shape3, StageCount


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Tactic:
    launcher: str
    grouped: bool
    tile: Shape3
    scales: mainloop.Scales
    scale_major_k: bool
    input: str
    output: str


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    launcher = data["launchers"].get(name.rsplit("::", 1)[-1])
    if launcher is None:
        return f"`{name}` is not one of {', '.join(data['launchers'])}"
    if len(args) != len(data["parameters"]):
        return (
            f"`{name}` takes {len(data['parameters'])} template arguments; this passes {len(args)}"
        )
    gm, gn, gk, major_k, dtype_in, dtype_out = args
    if dtype_in not in data["input_types"]:
        return f"input type `{dtype_in}`: the model covers {', '.join(data['input_types'])}"
    if dtype_out not in data["output_bits"]:
        return f"output type `{dtype_out}`: the model covers {', '.join(data['output_bits'])}"
    if major_k not in ("true", "false"):
        return f"ScaleMajorK `{major_k}` is not `true` or `false`"
    try:
        scales = mainloop.Scales(int(gm), int(gn), int(gk))
    except ValueError:
        return f"scale granularity {gm}, {gn}, {gk} is not three integers"
    m, n, k = launcher["tile"]
    tile = Shape3(m=m, n=n, k=k)
    # the header's static_asserts: gM in {1, 128}, gN = gK = 128
    if scales.m not in (1, 128) or scales.n != 128 or scales.k != 128:
        return f"scale granularity ({gm}, {gn}, {gk}): the launcher static_asserts gM in {{1, 128}}, gN = gK = 128"
    return Tactic(
        launcher=name.rsplit("::", 1)[-1],
        grouped=launcher["grouped"],
        tile=tile,
        scales=scales,
        scale_major_k=major_k == "true",
        input=dtype_in,
        output=dtype_out,
    )


@dataclass(frozen=True)
class Recipe:
    """A modeled release's headers: the same kernel types in every release, on its CUTLASS."""

    version: str
    """The modeled release whose headers they are."""
    cutlass: str
    """The CUTLASS the release bundles."""


def recipe_for(version: str | None) -> Recipe | None:
    """The recipe of a release's headers (its own or the one it shares), or None."""
    data = family_data()
    name = data.get("recipe_of", {}).get(version, version)
    r = data["recipes"].get(name) if name is not None else None
    if r is None:
        return None
    return Recipe(version=name, cutlass=r["cutlass"])


def release_known(version: str | None) -> str | None:
    """None when a release's headers build this recipe, else why not modeled."""
    if recipe_for(version) is not None:
        return None
    known = ", ".join(family_data()["recipes"])
    return f"FlashInfer {version or '(unknown release)'}: the recipe is known for {known}"


def epilogue_operands(t: Tactic) -> epilogue.EpilogueOperands:
    bits = family_data()["output_bits"][t.output]
    return epilogue.EpilogueOperands(
        c_bits=0 if t.grouped else bits, d_bits=bits, d_column_major=False
    )


def epilogue_shared_storage(t: Tactic) -> Block:
    fusion = epilogue.linear_combination_storage()
    if t.grouped:
        return epilogue.array_shared_storage(t.tile, epilogue_operands(t), fusion)
    return epilogue.shared_storage(t.tile, epilogue_operands(t), fusion)


def stage_count(t: Tactic) -> StageCount:
    return mainloop.stage_count(t.tile, t.scales, epilogue_shared_storage(t).size)


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mainloop.shared_storage(t.tile, t.scales, stages, t.grouped)


def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    ops = epilogue_operands(t)
    tensors = epilogue.tensor_storage(t.tile, ops, epilogue.linear_combination_storage())
    if t.grouped:
        return array_shell.kernel_shared_storage(
            mainloop_tensors=mainloop.tensor_storage(t.tile, t.scales, stages, True),
            mainloop_pipeline=mainloop.pipeline(stages),
            mainloop_tensormaps=mainloop.tensormaps(),
            epilogue_tensors=tensors,
            epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
            epilogue_tensormaps=epilogue.array_tensormaps(),
        )
    return shell.kernel_shared_storage(
        mainloop_tensors=mainloop.tensor_storage(t.tile, t.scales, stages, False),
        mainloop_pipeline=mainloop.pipeline(stages),
        epilogue_tensors=tensors,
        epilogue_pipeline=epilogue.load_pipeline(t.tile, ops),
        scheduler=shell.scheduler_for(family_data()["launchers"][t.launcher]["tile_scheduler"]),
        scheduler_stages=mainloop.SCHEDULER_PIPELINE_STAGES,
    )


def max_threads_per_block(t: Tactic) -> int:
    return array_shell.max_threads_per_block() if t.grouped else shell.max_threads_per_block()


def register_plan(t: Tactic) -> RegisterPlan:
    if t.grouped:
        return array_shell.register_plan(t.tile, sm120_blockscaled=False)
    return shell.register_plan(t.tile, sm120_blockscaled=False)


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
        max_threads_per_block=max_threads_per_block(t),
    )
