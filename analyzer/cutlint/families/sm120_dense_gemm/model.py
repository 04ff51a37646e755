"""What an SM120 dense F8F6F4 CollectiveBuilder chain builds, from CUTLASS's shared parts.

The mainloop is `cutlint.cutlass.sm120_dense` (sm120_mma_builder.inl's stage count, sm120_mma_tma.hpp's
storage); the epilogue the SM120 TMA one (`cutlint.cutlass.sm120_epilogue`, EpilogueTileAuto or an
explicit tile) with a LinearCombination or an epilogue visitor tree as its fusion
(`cutlint.cutlass.sm90_evt`: vLLM's ScaledEpilogue, ScaledEpilogueBias); the shell the SM90
cooperative or pingpong one (`cutlint.cutlass.sm90_cooperative`), one problem only (the builder
static_asserts `!IsPtrArrayKernel`).

`plan()` types a recipe into the parts or says why it is outside what nvcc confirmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm90_evt
from cutlint.cutlass import sm120_dense as dense
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.alias_args import static_extents
from cutlint.families.base import family_toml
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount

MAJORS = ("cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor")
NS = "cutlass::gemm::collective::"


def data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Plan:
    tile: Shape3
    pingpong: bool
    ops: epilogue.EpilogueOperands
    fusion: Block
    epi_tile: tuple[int, int] | None
    """An explicit EpilogueTile (M, N); None for EpilogueTileAuto."""
    scheduler: shell.Scheduler
    carveout: int | None
    """StageCountAutoCarveout<N> with N a number (None: the epilogue's SharedStorage)."""
    fixed: int | None


def _strip(text: str) -> str:
    return text.replace(" ", "")


def schedule_of(r: CollectiveBuilderRecipe) -> str:
    return _strip(r.kernel_schedule).removeprefix("cutlass::gemm::")


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


def _epi_tile(r: CollectiveBuilderRecipe, tile: Shape3) -> tuple[int, int] | str | None:
    t = _strip(r.epilogue_tile)
    if t == "cutlass::epilogue::collective::EpilogueTileAuto":
        return None
    extents = static_extents(r.epilogue_tile)
    if extents is None or len(extents) != 2:
        return f"epilogue tile `{r.epilogue_tile}`: the model reads EpilogueTileAuto or a static cute::Shape<M, N>"
    m, n = extents
    if tile.m % m or tile.n % n:
        return f"epilogue tile {m}x{n} does not divide the CTA tile: the builder static_asserts it"
    return m, n


def _fusion(r: CollectiveBuilderRecipe, tile: Shape3) -> Block | str:
    fusion = _strip(r.fusion)
    if fusion == "" or fusion.startswith("cutlass::epilogue::fusion::LinearCombination<"):
        return epilogue.linear_combination_storage()
    if fusion.startswith(sm90_evt.TREE + "<"):
        bits: dict[str, int] = data()["element_bits"]
        return sm90_evt.storage(r.fusion, tile.n, {k: v // 8 for k, v in bits.items()})
    return f"fusion `{r.fusion}`: the model covers LinearCombination and epilogue visitor trees (Sm90TreeVisitor)"


def plan(r: CollectiveBuilderRecipe, cutlass: CutlassModel) -> Plan | str:
    """The parts this recipe instantiates, or why it is not modeled."""
    d = data()
    if cutlass.label not in d["cutlass"]:
        return f"CUTLASS {cutlass.label}: the family's numbers are confirmed by nvcc for CUTLASS {', '.join(d['cutlass'])} only"
    if r.tile is None or r.cluster is None:
        return "tile / cluster: the model reads static cute::Shape<M, N, K> only"
    if (r.cluster.m, r.cluster.n, r.cluster.k) != (1, 1, 1):
        return 'does not compile: sm120_mma_builder.inl static_asserts size(ClusterShape_MNK{}) == 1 ("no programmatic multicast on this arch")'
    if _strip(r.problem_shape) not in d["problem_shapes"]:
        return f"problem shape `{r.problem_shape}`: the builder is one problem only (static_assert !IsPtrArrayKernel)"
    if (_strip(r.layout_a), _strip(r.layout_b)) != MAJORS:
        return 'does not compile: sm120_mma_builder.inl static_asserts a TN layout ("Only TN layout is supported.")'
    if (
        _strip(r.element_a) not in d["f8f6f4_elements"]
        or _strip(r.element_b) not in d["f8f6f4_elements"]
    ):
        return f"elements `{r.element_a}` x `{r.element_b}`: the model covers {', '.join(d['f8f6f4_elements'])}"
    if _strip(r.accumulator) != "float":
        return f"accumulator `{r.accumulator}`: the model covers float"
    if _strip(r.epilogue_schedule) not in d["epilogue_schedules"]:
        return f"epilogue schedule `{r.epilogue_schedule}`: the model covers EpilogueScheduleAuto"
    if r.epilogue_tile_shape != r.tile:
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
    epi_tile = _epi_tile(r, r.tile)
    if isinstance(epi_tile, str):
        return epi_tile
    fusion = _fusion(r, r.tile)
    if isinstance(fusion, str):
        return fusion
    ops = epilogue.EpilogueOperands(
        c_bits=bits[c], d_bits=bits[dd], d_column_major=_strip(r.layout_d).endswith("ColumnMajor")
    )
    return Plan(
        tile=r.tile,
        pingpong=bool(d["schedules"][schedule_of(r)]),
        ops=ops,
        fusion=fusion,
        epi_tile=epi_tile,
        scheduler=shell.scheduler_for(tag),
        carveout=policy[0],
        fixed=policy[1],
    )


def epilogue_shared_storage(p: Plan) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: StageCountAutoCarveout's carveout."""
    return epilogue.shared_storage(p.tile, p.ops, p.fusion, p.epi_tile)


def mainloop_shared_storage(p: Plan, stages: int) -> Block:
    return dense.shared_storage(p.tile, stages)


def stage_count(p: Plan) -> StageCount:
    carveout = epilogue_shared_storage(p).size if p.carveout is None else p.carveout
    return dense.stage_count(p.tile, carveout, fixed=p.fixed)


def kernel_shared_storage(p: Plan, stages: int) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 cooperative / pingpong shell."""
    return shell.kernel_shared_storage(
        mainloop_tensors=dense.tensor_storage(p.tile, stages),
        mainloop_pipeline=dense.pipeline(stages),
        epilogue_tensors=epilogue.tensor_storage(p.tile, p.ops, p.fusion, p.epi_tile),
        epilogue_pipeline=epilogue.load_pipeline(p.tile, p.ops, p.epi_tile),
        scheduler=p.scheduler,
        scheduler_stages=dense.SCHEDULER_PIPELINE_STAGES,
        pingpong=p.pingpong,
    )


def epilogue_shape(p: Plan) -> EpilogueTile:
    return epilogue.shape(p.tile, p.ops, p.epi_tile)


def max_threads_per_block(p: Plan) -> int:
    return shell.max_threads_per_block(pingpong=p.pingpong)


def register_plan(p: Plan) -> RegisterPlan | None:
    """The cooperative shell's setmaxnreg split (HeavyRegisterPressure = RegsPerThread >= 208);
    the pingpong split is not modeled."""
    return None if p.pingpong else shell.register_plan(p.tile, sm120_blockscaled=False)
