"""What an SM120 NVFP4 dense GEMM with `KernelScheduleAuto` builds, from CUTLASS's shared parts.

The mainloop is the block-scaled one (`cutlint.cutlass.sm120_blockscaled`: the stage count of
`sm100_compute_stage_count_or_override_blockscaled` over the builder's reduced capacity, and
sm120_blockscaled_mma_tma.hpp's storage) with the operands select_instr picks for the element
pair; the epilogue the SM120 TMA one (`cutlint.cutlass.sm120_epilogue`, EpilogueTileAuto) whose
fusion is a `LinearCombination` (empty) or a `LinCombPerColBias` (`cutlint.cutlass.fusion`: one
CTA row of bias); the shell the SM90 cooperative one (`cutlint.cutlass.sm90_cooperative`), one
problem only.

`plan()` types a recipe into the parts or says why it is outside what nvcc confirmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import fusion as fusions
from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as blockscaled
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_toml
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount

MAJORS = ("cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor")
NS = "cutlass::gemm::collective::"
FUSION_NS = "cutlass::epilogue::fusion::"
OPERANDS = {"NVFP4": blockscaled.NVFP4, "MXFP4": blockscaled.MXFP4}


def data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Plan:
    tile: Shape3
    operands: blockscaled.Operands
    ops: epilogue.EpilogueOperands
    fusion: Block
    scheduler: shell.Scheduler
    carveout: int | None
    """StageCountAutoCarveout<N> with N a number (None: the epilogue's SharedStorage)."""
    fixed: int | None


def _strip(text: str) -> str:
    return text.replace(" ", "")


def claims(r: CollectiveBuilderRecipe) -> bool:
    """A block-scaled chain of one problem whose mainloop schedule the builder picks."""
    return (
        _strip(r.opclass) == "cutlass::arch::OpClassBlockScaledTensorOp"
        and _strip(r.kernel_schedule) == data()["schedule"]
        and not _strip(r.problem_shape).startswith("cutlass::gemm::GroupProblemShape<")
    )


def _stage_policy(r: CollectiveBuilderRecipe) -> tuple[int | None, int | None] | str:
    """(carveout, None: the epilogue's SharedStorage; fixed stages), or why not read.
    `StageCountAuto` is `StageCountAutoCarveout<0>` (collective_builder_decl.hpp)."""
    p = _strip(r.stage_policy)
    if (
        p
        == f"{NS}StageCountAutoCarveout<static_cast<int>(sizeof(typename{r.epilogue_alias}::SharedStorage))>"
    ):
        return None, None
    m = re.fullmatch(rf"{NS}StageCountAutoCarveout<([0-9]+)>", p)
    if m:
        return int(m[1]), None
    m = re.fullmatch(rf"{NS}StageCount<([0-9]+)>", p)
    if m:
        return None, int(m[1])
    if p == f"{NS}StageCountAuto":
        return 0, None
    return f"stage policy `{r.stage_policy}`: the model reads StageCountAutoCarveout<sizeof(epilogue SharedStorage)> or <N>, StageCount<N>, StageCountAuto"


def _fusion(r: CollectiveBuilderRecipe, tile: Shape3, bits: dict[str, int]) -> Block | str:
    """`FusionCallbacks::SharedStorage`: LinearCombination, or LinCombPerColBias whose bias row
    (ElementBias = ElementOutput unless given: fusion/operations.hpp) stages CTA_N elements."""
    fusion = _strip(r.fusion)
    if fusion == "" or fusion.startswith(f"{FUSION_NS}LinearCombination<"):
        return epilogue.linear_combination_storage()
    m = re.fullmatch(rf"{FUSION_NS}LinCombPerColBias<([\w:]+),float(?:,([\w:]+))?(?:,.*)?>", fusion)
    if m and (m[2] or m[1]) in bits:
        return fusions.per_col_bias(tile.n, bits[m[2] or m[1]])
    return f"fusion `{r.fusion}`: the model covers LinearCombination and LinCombPerColBias (float compute)"


def plan(r: CollectiveBuilderRecipe, cutlass: CutlassModel) -> Plan | str:
    """The parts this recipe instantiates, or why it is not modeled."""
    d = data()
    if cutlass.label not in d["cutlass"]:
        return f"CUTLASS {cutlass.label}: the family's numbers are confirmed by nvcc for CUTLASS {', '.join(d['cutlass'])} only"
    if r.tile is None or r.cluster is None:
        return "tile / cluster: the model reads static cute::Shape<M, N, K> only"
    if (r.cluster.m, r.cluster.n, r.cluster.k) != (1, 1, 1):
        return 'does not compile: sm120_blockscaled_mma_builder.inl static_asserts size(ClusterShape_MNK{}) == 1 ("no programmatic multicast on this arch")'
    if _strip(r.problem_shape) not in d["problem_shapes"]:
        return f"problem shape `{r.problem_shape}`: the model covers one problem ({', '.join(d['problem_shapes'])})"
    if (_strip(r.layout_a), _strip(r.layout_b)) != MAJORS:
        return 'does not compile: sm120_blockscaled_mma_builder.inl static_asserts a TN layout ("Only TN layout is supported.")'
    a, b = _strip(r.element_a), _strip(r.element_b)
    if a != b or a not in d["operands"]:
        return f"elements `{r.element_a}` x `{r.element_b}` under KernelScheduleAuto: the model covers {', '.join(d['operands'])} (both operands)"
    operands = OPERANDS[d["operands"][a]]
    t = r.tile
    if t.m % 128 or t.n % 128 or t.k % 128:
        return f"tile {t}: the model covers M, N and K multiples of 128 (SFA/SFB in 128-row blocks)"
    if _strip(r.accumulator) != "float":
        return f"accumulator `{r.accumulator}`: the model covers float"
    if _strip(r.epilogue_schedule) not in d["epilogue_schedules"]:
        return f"epilogue schedule `{r.epilogue_schedule}`: the model covers EpilogueScheduleAuto"
    if _strip(r.epilogue_tile) != "cutlass::epilogue::collective::EpilogueTileAuto":
        return f"epilogue tile `{r.epilogue_tile}`: the model covers EpilogueTileAuto"
    if r.epilogue_tile_shape != t:
        return "the epilogue builder's tile differs from the mainloop's: not modeled"
    bits: dict[str, int] = d["element_bits"]
    c, dd = _strip(r.element_c), _strip(r.element_d)
    if c not in bits or dd not in bits or dd == "void":
        return (
            f"C/D `{r.element_c}`/`{r.element_d}`: the model covers {', '.join(bits)} (D not void)"
        )
    if _strip(r.layout_d) not in MAJORS or _strip(r.layout_c) != _strip(r.layout_d):
        return "C/D layouts: the model covers RowMajor or ColumnMajor, C as D"
    policy = _stage_policy(r)
    if isinstance(policy, str):
        return policy
    tag = _strip(r.tile_scheduler).removeprefix("cutlass::gemm::")
    if tag not in ("void", "PersistentScheduler", "StreamKScheduler", "StaticPersistentScheduler"):
        return f"tile scheduler `{r.tile_scheduler}`: not modeled"
    fusion = _fusion(r, t, bits)
    if isinstance(fusion, str):
        return fusion
    ops = epilogue.EpilogueOperands(
        c_bits=bits[c], d_bits=bits[dd], d_column_major=_strip(r.layout_d).endswith("ColumnMajor")
    )
    return Plan(
        tile=t,
        operands=operands,
        ops=ops,
        fusion=fusion,
        scheduler=shell.scheduler_for(tag),
        carveout=policy[0],
        fixed=policy[1],
    )


def epilogue_shared_storage(p: Plan) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: StageCountAutoCarveout's carveout."""
    return epilogue.shared_storage(p.tile, p.ops, p.fusion)


def stage_count(p: Plan, cutlass: CutlassModel) -> StageCount:
    carveout = epilogue_shared_storage(p).size if p.carveout is None else p.carveout
    return blockscaled.stage_count(p.tile, p.operands, carveout, fixed=p.fixed, cutlass=cutlass)


def mainloop_shared_storage(p: Plan, stages: int, cutlass: CutlassModel) -> Block:
    return blockscaled.mainloop_shared_storage(p.tile, p.operands, stages, cutlass)


def kernel_shared_storage(p: Plan, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 cooperative shell (IsCooperative: the builder's
    KernelTmaWarpSpecializedCooperativeBlockScaledSm120)."""
    return shell.kernel_shared_storage(
        mainloop_tensors=blockscaled.mainloop_tensor_storage(
            p.tile, p.operands, stages, cutlass=cutlass
        ),
        mainloop_pipeline=blockscaled.mainloop_pipeline(stages),
        epilogue_tensors=epilogue.tensor_storage(p.tile, p.ops, p.fusion),
        epilogue_pipeline=epilogue.load_pipeline(p.tile, p.ops),
        scheduler=p.scheduler,
        scheduler_stages=blockscaled.SCHEDULER_PIPELINE_STAGES,
        pingpong=False,
    )


def epilogue_shape(p: Plan) -> EpilogueTile:
    return epilogue.shape(p.tile, p.ops)


def max_threads_per_block(p: Plan) -> int:
    return shell.max_threads_per_block()


def register_plan(p: Plan, cutlass: CutlassModel) -> RegisterPlan | None:
    """The cooperative shell's setmaxnreg split; CUTLASS 4.5.0 lowers HeavyRegisterPressure to
    128 for a block-scaled mainloop (IsSm120BlockScaled in
    sm90_gemm_tma_warpspecialized_cooperative.hpp)."""
    return shell.register_plan(p.tile, sm120_blockscaled=cutlass.version >= (4, 5, 0))
