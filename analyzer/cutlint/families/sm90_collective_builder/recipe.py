"""Reading an SM90 CollectiveBuilder chain into a typed recipe, and the recipe into the model's
Tactic (or the precise reason it is outside what the model computes exactly).

The chain is the parser's (cutlint.parse.aliases): the kernel alias
`GemmUniversal<ProblemShape, Mainloop, Epilogue[, TileScheduler]>`, whose Mainloop and Epilogue
arguments name aliases of `CollectiveBuilder<...>::CollectiveOp`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.families.base import family_toml
from cutlint.families.sm90_collective_builder import model
from cutlint.families.sm90_collective_builder.model import EpilogueKind, StagePolicy, Tactic
from cutlint.records import Instantiation, Recipe, Shape3, TypeAlias

NAME = "sm90-collective-builder"
GEMM_UNIVERSAL = "cutlass::gemm::kernel::GemmUniversal"
MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder"
SM90 = "cutlass::arch::Sm90"
MAINLOOP_ARGS = 13
EPILOGUE_ARGS = 15

_STATIC_INT = re.compile(r"^(?:cute::)?(?:_(\d+)|Int<(\d+)>)$")
_SHAPE = re.compile(r"^cute::Shape<(.*)>$")
_CARVEOUT_SIZEOF = re.compile(
    r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*static_cast<int>\(\s*sizeof\(\s*"
    r"(?:typename\s+)?(\w+)::SharedStorage\s*\)\s*\)\s*>$"
)
_CARVEOUT_INT = re.compile(r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*(\d+)\s*>$")
_STAGE_COUNT = re.compile(r"^cutlass::gemm::collective::StageCount<\s*(\d+)\s*>$")
_STAGE_AUTO = "cutlass::gemm::collective::StageCountAuto"


class Sm90CollectiveBuilderRecipe(Recipe):
    """A `GemmUniversal` whose mainloop is an SM90 CollectiveBuilder, as the chain writes it."""

    kernel: str = Field(description="the kernel alias (cutlass_library: <name>_base)")
    problem_shape: str
    tile_scheduler: str = Field(description="GemmUniversal's 4th argument, `void` if absent")
    mainloop: tuple[str, ...] = Field(description="the mainloop builder's 13 arguments")
    epilogue_alias: str = Field(description="the epilogue builder's alias name")
    epilogue: tuple[str, ...] = Field(description="the epilogue builder's 15 arguments")
    tile: Shape3
    cluster: Shape3


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


def static_shape(arg: str) -> Shape3 | None:
    """`cute::Shape<cute::_128, cute::_256, cute::_64>` -> 128x256x64 (None: not static)."""
    m = _SHAPE.match(arg.replace(" ", ""))
    if not m:
        return None
    values = []
    for part in m.group(1).split(","):
        v = _STATIC_INT.match(part)
        if not v:
            return None
        values.append(int(v.group(1) or v.group(2)))
    if len(values) != 3:
        return None
    return Shape3(m=values[0], n=values[1], k=values[2])


def builder(inst: Instantiation, arg: str, target: str) -> TypeAlias | None:
    alias = inst.alias(arg)
    if alias is None or alias.target != target or alias.args is None:
        return None
    return alias


def claim(inst: Instantiation) -> Sm90CollectiveBuilderRecipe | str | None:
    """The recipe, a reason the chain cannot be read (str), or None: not an SM90 builder kernel."""
    if inst.name != GEMM_UNIVERSAL or len(inst.args) not in (3, 4):
        return None
    mainloop = builder(inst, inst.args[1], MAINLOOP_BUILDER)
    if mainloop is None or mainloop.args is None or not mainloop.args:
        return None
    if mainloop.args[0] != SM90:
        return None
    if len(mainloop.args) != MAINLOOP_ARGS:
        return f"the SM90 mainloop CollectiveBuilder takes {MAINLOOP_ARGS} arguments, found {len(mainloop.args)}"
    epilogue = builder(inst, inst.args[2], EPILOGUE_BUILDER)
    if epilogue is None or epilogue.args is None:
        return f"GemmUniversal's epilogue `{inst.args[2]}` is not an alias of an epilogue CollectiveBuilder in this file"
    if len(epilogue.args) != EPILOGUE_ARGS:
        return f"the epilogue CollectiveBuilder takes {EPILOGUE_ARGS} arguments, found {len(epilogue.args)}"
    tile = static_shape(mainloop.args[9])
    cluster = static_shape(mainloop.args[10])
    if tile is None or cluster is None:
        return f"tile `{mainloop.args[9]}` and cluster `{mainloop.args[10]}` must be static cute::Shape<cute::_N, ...>"
    return Sm90CollectiveBuilderRecipe(
        family=NAME,
        kernel=inst.chain[0].name if inst.chain else "",
        problem_shape=inst.args[0],
        tile_scheduler=inst.args[3] if len(inst.args) == 4 else "void",
        mainloop=mainloop.args,
        epilogue_alias=epilogue.name,
        epilogue=epilogue.args,
        tile=tile,
        cluster=cluster,
    )


# --- the recipe's Tactic -----------------------------------------------------------------------


def _elements() -> dict[str, Any]:
    data: dict[str, Any] = family_toml(model.PACKAGE)["elements"]
    return data


def _bits(element: str) -> int | None:
    e = _elements().get(element)
    return None if e is None else int(e["bits"])


_SCHEDULES = {
    "KernelTmaWarpSpecializedCooperative": (Shell.TMA_COOPERATIVE, False),
    "KernelTmaWarpSpecializedCooperativeFP8FastAccum": (Shell.TMA_COOPERATIVE, True),
    "KernelTmaWarpSpecializedPingpong": (Shell.TMA_PINGPONG, False),
    "KernelTmaWarpSpecializedPingpongFP8FastAccum": (Shell.TMA_PINGPONG, True),
    "KernelTmaWarpSpecialized": (Shell.TMA_BASIC, False),
    "KernelTmaWarpSpecializedFP8FastAccum": (Shell.TMA_BASIC, True),
    "KernelCpAsyncWarpSpecializedCooperative": (Shell.CP_ASYNC_COOPERATIVE, False),
    "KernelCpAsyncWarpSpecialized": (Shell.CP_ASYNC_BASIC, False),
}
_SCHEDULERS = {
    "void": Sm90Scheduler.PERSISTENT,
    "cutlass::gemm::PersistentScheduler": Sm90Scheduler.PERSISTENT,
    "cutlass::gemm::StreamKScheduler": Sm90Scheduler.STREAM_K,
}
_PROBLEM_SHAPES = ("cute::Shape<int,int,int,int>", "cute::Shape<int,int,int>")
_ROW = "cutlass::layout::RowMajor"
TMA = model.TMA_ALIGNMENT_BYTES
CP_ASYNC = model.CP_ASYNC_MIN_ALIGNMENT_BYTES
_COL = "cutlass::layout::ColumnMajor"


def _aligned(bits: int, alignment: int, need_bytes: int) -> bool:
    return bits * alignment % (need_bytes * 8) == 0


def _shell(r: Sm90CollectiveBuilderRecipe, a_bits: int, b_bits: int) -> tuple[Shell, bool] | str:
    schedule = _short(r.mainloop[12])
    align_a, align_b = int(r.mainloop[4]), int(r.mainloop[7])
    tma_ok = _aligned(a_bits, align_a, TMA) and _aligned(b_bits, align_b, TMA)
    if schedule == "KernelScheduleAuto":
        # GB: KernelScheduleAuto: TMA-compatible -> (M == 64 ? Pingpong : Cooperative), else
        # KernelCpAsyncWarpSpecialized (nvcc >= 12.1)
        if not tma_ok:
            return Shell.CP_ASYNC_BASIC, False
        if r.tile.m == model.AUTO_PINGPONG_TILE_M:
            return Shell.TMA_PINGPONG, False
        return Shell.TMA_COOPERATIVE, False
    picked = _SCHEDULES.get(schedule)
    if picked is None:
        return f"kernel schedule {schedule} is not modeled"
    shell, fast = picked
    if shell.tma and not tma_ok:
        return (
            f"A/B alignment {align_a}/{align_b} is below TMA's {TMA} B: the SM90 TMA builder's "
            "static_assert 'Should meet TMA alignment requirement' (does not compile; not modeled)"
        )
    if not shell.tma and not (
        _aligned(a_bits, align_a, CP_ASYNC) and _aligned(b_bits, align_b, CP_ASYNC)
    ):
        return f"A/B alignment below cp.async's {CP_ASYNC} B (a static_assert; not modeled)"
    return shell, fast


def _stage_policy(r: Sm90CollectiveBuilderRecipe) -> tuple[StagePolicy, int] | str:
    arg = r.mainloop[11]
    if arg == _STAGE_AUTO:
        return StagePolicy.CARVEOUT, 0
    m = _CARVEOUT_SIZEOF.match(arg)
    if m:
        if m.group(1) != r.epilogue_alias:
            return f"stage carveout of `{m.group(1)}`, not of this kernel's epilogue: not modeled"
        return StagePolicy.EPILOGUE_CARVEOUT, 0
    m = _CARVEOUT_INT.match(arg)
    if m:
        return StagePolicy.CARVEOUT, int(m.group(1))
    m = _STAGE_COUNT.match(arg)
    if m:
        return StagePolicy.FIXED, int(m.group(1))
    return f"stage policy `{arg}` is not modeled"


def tactic_of(r: Sm90CollectiveBuilderRecipe) -> Tactic | str:
    """The Tactic the builders make of this recipe, or why it is outside the model."""
    ml, ep = r.mainloop, r.epilogue
    if ml[1] != "cutlass::arch::OpClassTensorOp" or ep[1] != "cutlass::arch::OpClassTensorOp":
        return f"operator class {_short(ml[1])}: the model covers OpClassTensorOp"
    if ml[2].startswith("cute::tuple<") or ml[5].startswith("cute::tuple<"):
        return (
            f"A/B {ml[2]} x {ml[5]}: mixed-input with scales (the RS mixed-input mainloop) is not "
            "modeled"
        )
    elements = _elements()
    a, b = elements.get(ml[2]), elements.get(ml[5])
    if a is None or b is None or not a["operand"] or not b["operand"]:
        return f"A/B {ml[2]} x {ml[5]}: the model covers f16, bf16, e4m3 and e5m2 operands"
    a_bits, b_bits = int(a["bits"]), int(b["bits"])
    if a_bits != b_bits:
        return f"{ml[2]} x {ml[5]}: mixed-width input (the RS mixed-input mainloop) is not modeled"
    k_major = ml[3] == _ROW and ml[6] == _COL
    if a_bits != 16 and not k_major:
        return (
            f"{a_bits}-bit A/B not both K-major: the builder takes the register-sourced (RS) "
            "mainloop (sm90_common.inl: is_use_rmem_A), not modeled"
        )
    acc_bits = _bits(ml[8])
    if acc_bits is None or ml[8] not in ("float", "cutlass::half_t"):
        return f"accumulator {ml[8]} is not modeled"
    shell = _shell(r, a_bits, b_bits)
    if isinstance(shell, str):
        return shell
    kind, fast = shell
    if fast and not (a.get("fp8") and b.get("fp8")):
        return "an FP8FastAccum schedule with non-FP8 inputs (a static_assert; not modeled)"
    policy = _stage_policy(r)
    if isinstance(policy, str):
        return policy
    scheduler = _SCHEDULERS.get(r.tile_scheduler)
    if scheduler is None:
        return f"tile scheduler {r.tile_scheduler} is not modeled"
    if scheduler is Sm90Scheduler.STREAM_K and kind in (Shell.TMA_BASIC, Shell.CP_ASYNC_BASIC):
        return f"a stream-K scheduler with the non-persistent {kind.value} kernel is not modeled"
    if r.problem_shape.replace(" ", "") not in _PROBLEM_SHAPES:
        return f"problem shape {r.problem_shape}: the model covers cute::Shape<int,int,int[,int]>"
    tile = r.tile
    if tile.m % model.GMMA_M or tile.n % 16 or tile.k * a_bits % 512:
        return (
            f"tile {tile}: the model covers M a multiple of 64, N a multiple of 16 and K a whole "
            "number of 64-byte rows"
        )
    if kind is Shell.TMA_COOPERATIVE and tile.m < model.COOPERATIVE_MIN_TILE_M:
        return f"tile M {tile.m} < 128 with a cooperative schedule (a static_assert; not modeled)"
    if static_shape(ep[2]) != tile or static_shape(ep[3]) != r.cluster:
        return "the epilogue builder's tile or cluster differs from the mainloop's: not modeled"
    epilogue = _epilogue(r, kind)
    if isinstance(epilogue, str):
        return epilogue
    epi_kind, c_bits, d_bits = epilogue
    return Tactic(
        shell=kind,
        fp8_fast_accum=fast,
        tile=tile,
        cluster=r.cluster,
        a_bits=a_bits,
        b_bits=b_bits,
        accumulator_bits=acc_bits,
        stage_policy=policy[0],
        stage_value=policy[1],
        epilogue=epi_kind,
        c_bits=c_bits,
        d_bits=d_bits,
        c_m_major=ep[8] == _COL,
        d_m_major=ep[11] == _COL,
        scheduler=scheduler,
    )


def _epilogue(
    r: Sm90CollectiveBuilderRecipe, shell: Shell
) -> tuple[EpilogueKind, int | None, int] | str:
    ep = r.epilogue
    schedule = _short(ep[13])
    if ep[4] != "cutlass::epilogue::collective::EpilogueTileAuto":
        return f"epilogue tile {ep[4]}: the model covers EpilogueTileAuto"
    if not ep[14].replace(" ", "").startswith("cutlass::epilogue::fusion::LinearCombination<"):
        return f"epilogue fusion {ep[14]}: the model covers LinearCombination"
    d_bits = _bits(ep[10])
    c_bits = None if ep[7] == "void" else _bits(ep[7])
    if d_bits is None or (ep[7] != "void" and c_bits is None):
        return f"ElementC/ElementD {ep[7]}/{ep[10]} is not modeled"
    for layout in (ep[8], ep[11]):
        if layout not in (_ROW, _COL):
            return f"C/D layout {layout} is not modeled"
    if schedule in ("NoSmemWarpSpecialized", "EpilogueScheduleAuto"):
        # EB: EpilogueScheduleAuto picks NoSmemWarpSpecialized
        return EpilogueKind.NO_SMEM, c_bits, d_bits
    expected = {
        Shell.TMA_COOPERATIVE: "TmaWarpSpecializedCooperative",
        Shell.TMA_PINGPONG: "TmaWarpSpecialized",
        Shell.TMA_BASIC: "TmaWarpSpecialized",
    }.get(shell)
    if schedule != expected:
        return f"epilogue schedule {schedule} with the {shell.value} kernel is not modeled"
    for bits, align in ((c_bits, int(ep[9])), (d_bits, int(ep[12]))):
        if bits is not None and not _aligned(bits, align, TMA):
            return (
                "C/D alignment below TMA's 16 B: the epilogue builder's static_assert 'C/D Should "
                "meet TMA alignment requirement' (does not compile; not modeled)"
            )
    return EpilogueKind.TMA, c_bits, d_bits
