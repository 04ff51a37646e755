"""What an SM120 CollectiveBuilder chain builds, from CUTLASS's shared parts (cutlint.cutlass).

These mainloops are modeled, each with its builder's stage count:
- block-scaled (`OpClassBlockScaledTensorOp` with an explicit Nvf4 / Mxf4 / Mxf8f6f4 schedule):
  cutlint.cutlass.sm120_blockscaled, `sm100_compute_stage_count_or_override_blockscaled`;
- blockwise-scaled (`OpClassTensorOp` with `KernelTmaWarpSpecializedBlockwise{Cooperative,
  Pingpong}Sm120`): cutlint.cutlass.sm120_blockwise, `sm120_compute_stage_count_or_override_blockwise`;
- sparse F8F6F4 (`OpClassSparseTensorOp`, `KernelScheduleSparseF8f6f4Sm120`), one problem, in the
  builder's 1.5-stage-B branch: cutlint.cutlass.sm120_sparse;
- block-scaled sparse (`OpClassBlockScaledSparseTensorOp`, CUTLASS example 80), one problem, both
  branches of its builder: cutlint.cutlass.sm120_blockscaled_sparse, in sm120_sparse's shell;
the SM120 TMA epilogue (cutlint.cutlass.sm120_epilogue: single or ptr-array) and the SM90
cooperative / pingpong kernel shell (cutlint.cutlass.sm90_cooperative for one problem,
cutlint.cutlass.kernel for a grouped problem shape).

`plan()` types a recipe into the parts or says why it is outside what the compiler confirmed:
the CUTLASS versions listed in data/family.toml (`cutlass`; the block-scaled builder's budget
differs between them, see cutlint.cutlass.sm120_blockscaled).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from cutlint.cutlass import kernel as array_shell
from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm120_blockscaled as blockscaled
from cutlint.cutlass import sm120_blockscaled_sparse as bs_sparse
from cutlint.cutlass import sm120_blockwise as blockwise
from cutlint.cutlass import sm120_epilogue as epilogue
from cutlint.cutlass import sm120_sparse as sparse
from cutlint.cutlass import tma
from cutlint.cutlass.headers import SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.alias_args import static_extents
from cutlint.families.base import family_toml
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount, TmaPlan


def data() -> dict[str, Any]:
    return family_toml(__package__)


BLOCKSCALED = "cutlass::arch::OpClassBlockScaledTensorOp"
TENSOROP = "cutlass::arch::OpClassTensorOp"
SPARSE = "cutlass::arch::OpClassSparseTensorOp"
BS_SPARSE = "cutlass::arch::OpClassBlockScaledSparseTensorOp"
SPARSE_EPILOGUE = "cutlass::epilogue::SparseTmaWarpSpecializedCooperativeSm120"
SPARSE_SCHEDULE = "KernelScheduleSparseF8f6f4Sm120"
OPERANDS = {
    "NVFP4": blockscaled.NVFP4,
    "MXFP4": blockscaled.MXFP4,
    "MXF8F6F4": blockscaled.MXF8F6F4,
}


@dataclass(frozen=True)
class Plan:
    """The recipe's inputs, typed into what the parts take."""

    kind: str
    """`block-scaled`, `blockwise`, `sparse` or `blockscaled-sparse`."""
    tile: Shape3
    pingpong: bool
    grouped: bool
    epilogue_ops: epilogue.EpilogueOperands
    fusion: Block
    scheduler: shell.Scheduler | None
    """The tile scheduler of a kernel of one problem (None: grouped, the ptr-array shell's)."""
    scheduler_stages: int
    carveout: int | None
    """StageCountAutoCarveout<N> with N given as a number (None: the epilogue's SharedStorage)."""
    fixed_stages: int | None
    operands: blockscaled.Operands | None = None
    scales: blockwise.Scales | None = None
    sparse_operands: bs_sparse.SparseOperands | None = None
    """The block-scaled sparse builder's operands (kind `blockscaled-sparse`)."""
    epi_tile: epilogue.EpiTile = None
    """An explicit EpilogueTile (`Shape<_128, _32>`), None for EpilogueTileAuto."""
    epi_cta: Shape3 | None = None
    """The epilogue builder's own TileShape_MNK where it is not the mainloop's (SGLang's SM120
    blockwise pingpong: a 64x128x128 mainloop, a 128x128x128 epilogue); None: the same."""

    @property
    def epilogue_cta(self) -> Shape3:
        return self.epi_cta or self.tile


def _strip(text: str) -> str:
    return text.replace(" ", "")


def _pointer(layout: str) -> tuple[str, bool]:
    t = _strip(layout)
    return t.removesuffix("*"), t.endswith("*")


def _stage_policy(r: CollectiveBuilderRecipe) -> tuple[int | None, int | None] | str:
    """(carveout bytes, None for the epilogue's SharedStorage; fixed stages) or why not.
    `StageCountAuto` is `StageCountAutoCarveout<0>` (collective_builder_decl.hpp)."""
    p = _strip(r.stage_policy)
    ns = "cutlass::gemm::collective::"
    if (
        p
        == f"{ns}StageCountAutoCarveout<static_cast<int>(sizeof(typename{r.epilogue_alias}::SharedStorage))>"
    ):
        return None, None
    m = re.fullmatch(rf"{ns}StageCountAutoCarveout<([0-9]+)>", p)
    if m:
        return int(m[1]), None
    m = re.fullmatch(rf"{ns}StageCount<([0-9]+)>", p)
    if m:
        return None, int(m[1])
    if p == f"{ns}StageCountAuto":
        return 0, None
    return (
        f"stage policy `{r.stage_policy}`: the model reads StageCountAutoCarveout<sizeof(the "
        "kernel's epilogue::SharedStorage)> or <N>, StageCount<N> and StageCountAuto"
    )


def _epilogue(
    r: CollectiveBuilderRecipe, grouped: bool, bs_sparse_kernel: bool = False
) -> tuple[epilogue.EpilogueOperands, Block] | str:
    """The epilogue's operands and fusion storage, or why not modeled. A block-scaled sparse
    kernel's epilogue may also take SparseTmaWarpSpecializedCooperativeSm120 (its tile rule:
    cutlint.cutlass.sm120_epilogue.sparse_tile_shape) and a column-major LinCombBlockScaleFactor
    (example 80b), both confirmed by nvcc there only."""
    d = data()
    schedules: list[str] = d["epilogue_schedules"] + ([SPARSE_EPILOGUE] if bs_sparse_kernel else [])
    bits: dict[str, int] = d["element_bits"]
    fp6: list[str] = d["fp6_elements"]
    if _strip(r.epilogue_tile) != "cutlass::epilogue::collective::EpilogueTileAuto" and (
        _explicit_epi_tile(r) is None or grouped
    ):
        return f"epilogue tile `{r.epilogue_tile}`: the model covers EpilogueTileAuto (and a static cute::Shape<_M, _N> for a blockwise kernel of one problem)"
    if _strip(r.epilogue_schedule) not in schedules:
        return f"epilogue schedule `{r.epilogue_schedule}`: the model covers {', '.join(schedules)}"
    if r.epilogue_tile_shape != r.tile and (r.epilogue_tile_shape is None or grouped):
        return "the epilogue builder's tile differs from the mainloop's: not modeled"
    c, d_ = _strip(r.element_c), _strip(r.element_d)
    if c not in bits or c in fp6:
        return f"ElementC `{r.element_c}`: the model covers {', '.join(k for k in bits if k not in fp6)}"
    if d_ not in bits or d_ == "void":
        return f"ElementD `{r.element_d}`: the model covers a non-void {', '.join(k for k in bits if k != 'void')}"
    layout_d, d_ptr = _pointer(r.layout_d)
    layout_c, c_ptr = _pointer(r.layout_c)
    majors = ("cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor")
    if layout_d not in majors or layout_c not in majors or d_ptr != grouped or c_ptr != grouped:
        return f"C/D layouts `{r.layout_c}`, `{r.layout_d}`: the model covers RowMajor or ColumnMajor (a pointer for a grouped kernel)"
    if layout_c != layout_d:
        return "C and D in different layouts: not modeled"
    ops = epilogue.EpilogueOperands(
        c_bits=bits[c],
        d_bits=bits[d_],
        d_column_major=layout_d.endswith("ColumnMajor"),
        d_fp6=d_ in fp6,
    )
    fusion = _strip(r.fusion)
    if fusion == "" or fusion.startswith("cutlass::epilogue::fusion::LinearCombination<"):
        return ops, epilogue.linear_combination_storage()
    m = re.fullmatch(
        r"cutlass::epilogue::fusion::LinCombBlockScaleFactor<[0-9]+,[\w:]+,float,[\w:]+,"
        r"cutlass::layout::RowMajor(?:,.*)?>",
        fusion,
    )
    if m and not ops.d_column_major and not grouped:
        return ops, epilogue.block_scale_factor_row_storage()
    col = re.fullmatch(
        r"cutlass::epilogue::fusion::LinCombBlockScaleFactor<[0-9]+,[\w:]+,float,[\w:]+,"
        r"cutlass::layout::ColumnMajor(?:,.*)?>",
        fusion,
    )
    if col and ops.d_column_major and bs_sparse_kernel:
        return ops, epilogue.block_scale_factor_col_storage()
    return f"fusion `{r.fusion}`: the model covers LinearCombination and LinCombBlockScaleFactor (float compute, row-major D, one problem; column-major D for a block-scaled sparse kernel)"


def _explicit_epi_tile(r: CollectiveBuilderRecipe) -> tuple[int, int] | None:
    """`cute::Shape<cute::_128, cute::_32>` -> (128, 32): SM120_EPILOGUE_BUILDER takes a static
    tuple as the epilogue subtile as given (sm120_compute_tile_shape_or_override)."""
    values = static_extents(r.epilogue_tile)
    return (values[0], values[1]) if values is not None and len(values) == 2 else None


def plan(r: CollectiveBuilderRecipe, cutlass: CutlassModel) -> Plan | str:
    """The parts this recipe instantiates, or why it is not modeled. The epilogue's parts are
    the epilogue builder's: its own TileShape and EpilogueTile, an explicit one or a TileShape
    other than the mainloop's for a blockwise kernel of one problem (SGLang's swap-AB and
    pingpong kernels; nvcc-confirmed there, not yet for the block-scaled builders)."""
    p = _plan(r, cutlass)
    if isinstance(p, str):
        return p
    epi_cta = r.epilogue_tile_shape if r.epilogue_tile_shape != r.tile else None
    explicit = _explicit_epi_tile(r)
    if explicit is not None and p.kind != "blockwise":
        return f"epilogue tile `{r.epilogue_tile}`: the model covers EpilogueTileAuto (and a static cute::Shape<_M, _N> for a blockwise kernel of one problem)"
    if epi_cta is not None and p.kind != "blockwise":
        return "the epilogue builder's tile differs from the mainloop's: not modeled (but for a blockwise kernel of one problem)"
    if p.kind == "blockscaled-sparse":
        return p  # its epilogue tile is the sparse schedule's (_bs_sparse_plan)
    return replace(p, epi_tile=explicit, epi_cta=epi_cta)


def _plan(r: CollectiveBuilderRecipe, cutlass: CutlassModel) -> Plan | str:
    d = data()
    if cutlass.label not in d["cutlass"]:
        return f"CUTLASS {cutlass.label}: the family's numbers are confirmed by nvcc for CUTLASS {', '.join(d['cutlass'])} only (give --cutlass-version)"
    opclass = _strip(r.opclass)
    if r.tile is None or r.cluster is None:
        return f"tile `{r.tile}` / cluster: the model reads static cute::Shape<cute::_M, cute::_N, cute::_K> only"
    if (r.cluster.m, r.cluster.n, r.cluster.k) != (1, 1, 1) and opclass not in (
        BLOCKSCALED,
        BS_SPARSE,
    ):
        return f"cluster {r.cluster}: the 4.2.0 blockwise builder has no cluster static_assert (NVIDIA/cutlass#3459); not modeled"
    grouped = _grouped(r)
    if not grouped and _strip(r.problem_shape) not in d["problem_shapes"]:
        return f"problem shape `{r.problem_shape}`: the model covers {', '.join(d['problem_shapes'])} and GroupProblemShape"
    layout_a, a_ptr = _pointer(r.layout_a)
    layout_b, b_ptr = _pointer(r.layout_b)
    majors = ("cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor")
    if layout_a not in majors or layout_b not in majors or a_ptr != grouped or b_ptr != grouped:
        return f"A/B layouts `{r.layout_a}`, `{r.layout_b}`: the model reads RowMajor or ColumnMajor (a pointer for a grouped kernel)"
    if _strip(r.accumulator) != "float":
        return f"accumulator `{r.accumulator}`: the model covers float"
    policy = _stage_policy(r)
    if isinstance(policy, str):
        return policy
    carveout, fixed = policy
    epi = _epilogue(r, grouped, bs_sparse_kernel=opclass == BS_SPARSE)
    if isinstance(epi, str):
        return epi
    ops, fusion = epi
    if ops.d_fp6 and (r.tile.m if ops.d_column_major else r.tile.n) % 128:
        return f"does not compile, so nothing to lay out: {BUILDER_ASSERTS['fp6_tile']}"
    schedule = _strip(r.kernel_schedule).removeprefix("cutlass::gemm::")
    tag = _strip(r.tile_scheduler).removeprefix("cutlass::gemm::")
    if grouped:
        if tag not in ("void", "GroupScheduler"):
            return f"tile scheduler `{r.tile_scheduler}` of a grouped kernel: the model covers the default (GroupScheduler)"
        sched = None
    elif tag in ("void", "PersistentScheduler", "StreamKScheduler", "StaticPersistentScheduler"):
        sched = shell.scheduler_for(tag)
    else:
        return f"tile scheduler `{r.tile_scheduler}`: the model covers void, PersistentScheduler, StreamKScheduler, StaticPersistentScheduler"
    t = r.tile
    if opclass == BLOCKSCALED:
        s = d["blockscaled_schedules"].get(schedule)
        if s is None:
            return f"block-scaled schedule `{r.kernel_schedule}`: the model covers {', '.join(d['blockscaled_schedules'])} (KernelScheduleAuto picks by element type: not modeled)"
        if grouped:
            return "a grouped block-scaled kernel (ptr-array mainloop): no compiler truth yet, not modeled"
        pairs: list[str] = s["elements"]
        if _strip(r.element_a) not in pairs or _strip(r.element_b) not in pairs:
            return f"elements `{r.element_a}` x `{r.element_b}` under {schedule}: the model covers {', '.join(pairs)}"
        if t.m % 128 or t.n % 128 or t.k % 128:
            return f"tile {t}: the model covers M, N and K multiples of 128 (SFA/SFB in 128-row blocks)"
        return Plan(
            "block-scaled",
            t,
            s["pingpong"],
            False,
            ops,
            fusion,
            sched,
            blockscaled.SCHEDULER_PIPELINE_STAGES,
            carveout,
            fixed,
            operands=OPERANDS[s["operands"]],
        )
    if opclass == TENSOROP:
        s = d["blockwise_schedules"].get(schedule)
        if s is None:
            return f"SM120 schedule `{r.kernel_schedule}` with OpClassTensorOp: only the blockwise-scaled builder ({', '.join(d['blockwise_schedules'])}) is modeled; the dense f8f6f4 builder (sm120_mma_builder.inl) is not"
        if (
            _strip(r.element_a) not in d["f8f6f4_elements"]
            or _strip(r.element_b) not in d["f8f6f4_elements"]
        ):
            return f"elements `{r.element_a}` x `{r.element_b}`: the blockwise builder takes F8F6F4 types"
        g = r.scale_granularity
        if g is None and schedule.endswith("KernelScheduleAuto"):
            return f"SM120 schedule `{r.kernel_schedule}` with OpClassTensorOp and plain A/B layouts: the dense f8f6f4 builder (sm120_mma_builder.inl), not modeled by this family"
        if g is None:
            return "the scale granularity (Sm120BlockwiseScaleConfig of LayoutSFA/LayoutSFB) is not read off the chain"
        if t.m % g.m or t.n % g.n or t.k != g.k:
            return f"tile {t} with scale granularity {g}: the builder static_asserts M % gM == 0, N % gN == 0, K == gK"
        return Plan(
            "blockwise",
            t,
            s["pingpong"],
            grouped,
            ops,
            fusion,
            sched,
            blockwise.SCHEDULER_PIPELINE_STAGES,
            carveout,
            fixed,
            scales=blockwise.Scales(g.m, g.n, g.k),
        )
    if opclass == SPARSE:
        return _sparse_plan(r, t, ops, fusion, sched, carveout, fixed, cutlass)
    if opclass == BS_SPARSE:
        return _bs_sparse_plan(r, t, ops, fusion, sched, carveout, fixed, cutlass)
    return f"operator class `{r.opclass}`: not modeled"


def _grouped(r: CollectiveBuilderRecipe) -> bool:
    """A grouped GEMM: its problem shape is a GroupProblemShape."""
    return _strip(r.problem_shape).startswith("cutlass::gemm::GroupProblemShape<")


def _sparse_plan(
    r: CollectiveBuilderRecipe,
    t: Shape3,
    ops: epilogue.EpilogueOperands,
    fusion: Block,
    sched: shell.Scheduler | None,
    carveout: int | None,
    fixed: int | None,
    cutlass: CutlassModel,
) -> Plan | str:
    """The sparse F8F6F4 kernel (cutlint.cutlass.sm120_sparse), where its builder's branch is the
    one the model follows."""
    grouped = _grouped(r)
    d = data()
    schedule = _strip(r.kernel_schedule).removeprefix("cutlass::gemm::")
    if schedule != SPARSE_SCHEDULE:
        return f"sparse schedule `{r.kernel_schedule}`: the model covers {SPARSE_SCHEDULE}"
    if grouped or sched is not shell.Scheduler.CLC or _strip(r.tile_scheduler) != "void":
        return "a sparse kernel with a grouped problem shape or a tile scheduler other than the default: not modeled"
    if (_pointer(r.layout_a)[0], _pointer(r.layout_b)[0]) != (
        "cutlass::layout::RowMajor",
        "cutlass::layout::ColumnMajor",
    ):
        return "a sparse kernel with A or B not K-major: not modeled"
    if fixed is not None:
        return "StageCount<N> for the sparse builder (it returns one count for StagesA and StagesB): not modeled"
    if (
        _strip(r.element_a) not in d["f8f6f4_elements"]
        or _strip(r.element_b) not in d["f8f6f4_elements"]
    ):
        return f"elements `{r.element_a}` x `{r.element_b}`: the sparse builder takes F8F6F4 types"
    p = Plan(
        "sparse",
        t,
        False,
        False,
        ops,
        fusion,
        sched,
        sparse.SCHEDULER_PIPELINE_STAGES,
        carveout,
        None,
    )
    stages = sparse.stage_count(
        t, epilogue_shared_storage(p).size if carveout is None else carveout
    )
    if isinstance(stages, str):
        return stages
    return _within_capacity(p, stages.stages_a, cutlass)


def _within_capacity(p: Plan, stages_a: int, cutlass: CutlassModel) -> Plan | str:
    """`p`, or why it does not compile: the asymmetric-DMA shell static_asserts its storage, so
    over the capacity the file does not compile (not CUT101's failure at initialize())."""
    size = kernel_shared_storage(p, stages_a, cutlass).size
    if size > sparse.SM120_SMEM_CAPACITY:
        return (
            f"does not compile, so nothing to launch: {size:,} B > {sparse.SM120_SMEM_CAPACITY:,} B "
            f"and {SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA} static_asserts SharedStorageSize <= sm120_smem_capacity_bytes "
            '("SMEM usage exceeded capacity.")'
        )
    return p


def _fusion_sf_vec(r: CollectiveBuilderRecipe) -> int:
    """`FusionOp::SFVecSize`: LinCombBlockScaleFactor's first argument; 0 for another fusion
    (cutlass/epilogue/fusion/operations.hpp: FusionOperation::SFVecSize = 0)."""
    m = re.match(r"cutlass::epilogue::fusion::LinCombBlockScaleFactor<([0-9]+),", _strip(r.fusion))
    return int(m[1]) if m else 0


def _bs_sparse_plan(
    r: CollectiveBuilderRecipe,
    t: Shape3,
    ops: epilogue.EpilogueOperands,
    fusion: Block,
    sched: shell.Scheduler | None,
    carveout: int | None,
    fixed: int | None,
    cutlass: CutlassModel,
) -> Plan | str:
    """The block-scaled sparse kernel (cutlint.cutlass.sm120_blockscaled_sparse): CUTLASS
    example 80's builder, its explicit schedules and typed element pairs, one problem."""
    d = data()
    schedule = _strip(r.kernel_schedule).removeprefix("cutlass::gemm::")
    s = d["blockscaled_sparse_schedules"].get(schedule)
    if s is None:
        return f"block-scaled sparse schedule `{r.kernel_schedule}`: the model covers {', '.join(d['blockscaled_sparse_schedules'])}"
    if r.cluster is not None and (r.cluster.m, r.cluster.n, r.cluster.k) != (1, 1, 1):
        return (
            "does not compile, so nothing to lay out: cutlass/gemm/collective/builders/"
            "sm120_blockscaled_sparse_mma_builder.inl static_asserts cute::size(ClusterShape_MNK{}) "
            '== Int<1>{} ("no programmatic multicast on this arch")'
        )
    if _grouped(r) or sched is not shell.Scheduler.CLC or _strip(r.tile_scheduler) != "void":
        return "a sparse kernel with a grouped problem shape or a tile scheduler other than the default: not modeled"
    if (_pointer(r.layout_a)[0], _pointer(r.layout_b)[0]) != (
        "cutlass::layout::RowMajor",
        "cutlass::layout::ColumnMajor",
    ):
        return "a sparse kernel with A or B not K-major: not modeled"
    if fixed is not None:
        return (
            f"does not compile, so nothing to lay out: {bs_sparse.BUILDER}: "
            "sm120_compute_stage_count_or_override_blockscaled_sparse(StageCount<N>) returns an int, "
            'and PipelineStagesB = get<1>(PipelineStages) fails ("Index out of range")'
        )
    elements: dict[str, int] = d["blockscaled_sparse_elements"]
    allowed: list[str] = s["elements"]
    a, b = _strip(r.element_a), _strip(r.element_b)
    if a not in allowed or b not in allowed:
        return f"elements `{r.element_a}` x `{r.element_b}` under {schedule}: the model covers {', '.join(allowed)}"
    sparse_ops = bs_sparse.operands(s["instr"], elements[a])
    why = bs_sparse.outside(t, sparse_ops)
    if why is not None:
        return why
    sf_vec = _fusion_sf_vec(r)
    epi_tile = None
    if _strip(r.epilogue_schedule) == SPARSE_EPILOGUE:
        epi_tile = epilogue.sparse_tile_shape(ops, sf_vec)
    if ops.d_column_major and sf_vec:
        epi_m = epilogue.tile_shape(ops, epi_tile)[0]
        if epi_m % sf_vec or epi_m // sf_vec not in (1, 2, 4):
            return (
                f"does not compile, so nothing to lay out: {epilogue.SF_STORE}: "
                f"Sm120BlockScaleFactorColStore static_asserts that the epilogue tile's M ({epi_m}) "
                f"is 1, 2 or 4 times SFVecSize ({sf_vec})"
            )
    p = Plan(
        "blockscaled-sparse",
        t,
        False,
        False,
        ops,
        fusion,
        sched,
        sparse.SCHEDULER_PIPELINE_STAGES,
        carveout,
        None,
        sparse_operands=sparse_ops,
        epi_tile=epi_tile,
    )
    stages = bs_sparse.stage_count(
        t, sparse_ops, epilogue_shared_storage(p).size if carveout is None else carveout
    )
    if isinstance(stages, str):
        return stages
    return _within_capacity(p, stages.stages_a, cutlass)


# --- what does not compile ----------------------------------------------------------------------

BUILDER_ASSERTS = {
    "tn": (
        "cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl (4.2.0 line 95) and "
        "sm120_blockwise_mma_builder.inl (line 151): static_assert((UmmaMajorA == UMMA::Major::K "
        '&& UmmaMajorB == UMMA::Major::K), "Only TN layout is supported.")'
    ),
    "cluster": (
        "cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl (4.2.0 line 100): "
        'static_assert(cute::size(ClusterShape_MNK{}) == Int<1>{}, "no programmatic multicast on '
        'this arch")'
    ),
    "fp6_tile": (
        "cutlass/epilogue/collective/builders/sm120_builder.inl (4.2.0 line 158): "
        "sm120_compute_tile_shape_or_override, static_assert(!IsFP6 || (CTA_M % 128 == 0 && "
        'IsColMajorD) || (CTA_N % 128 == 0 && IsRowMajorD), "CTA tile for FP6 ElementD must have '
        'a contiguous extent that is a multiple of 128.") (NVIDIA/cutlass#3211)'
    ),
}


def static_assert_failure(r: CollectiveBuilderRecipe) -> str:
    """The builder static_assert this recipe fails, with its header ("" when none): the file does
    not compile. plan() lets through only failures that leave the parts computable (the layouts
    of A/B and the cluster change no size in the formulas); an FP6 D tile the epilogue builder
    rejects is a reason plan() gives instead (its epilogue tile does not divide the CTA tile)."""
    if _strip(r.opclass) not in (BLOCKSCALED, TENSOROP):
        return ""
    layouts = (_pointer(r.layout_a)[0], _pointer(r.layout_b)[0])
    if layouts != ("cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor"):
        return BUILDER_ASSERTS["tn"]
    if r.cluster is not None and (r.cluster.m, r.cluster.n, r.cluster.k) != (1, 1, 1):
        return BUILDER_ASSERTS["cluster"]
    return ""


# --- the parts -----------------------------------------------------------------------------------


def epilogue_tensor_storage(p: Plan) -> Block:
    return epilogue.tensor_storage(p.epilogue_cta, p.epilogue_ops, p.fusion, p.epi_tile)


def epilogue_shared_storage(p: Plan) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the carveout of StageCountAutoCarveout."""
    if p.grouped:
        return epilogue.array_shared_storage(p.tile, p.epilogue_ops, p.fusion)
    return epilogue.shared_storage(p.epilogue_cta, p.epilogue_ops, p.fusion, p.epi_tile)


def sparse_stages(p: Plan) -> sparse.SparseStages:
    """StagesA, StagesB and StagesE of a sparse or block-scaled sparse kernel."""
    carveout = epilogue_shared_storage(p).size if p.carveout is None else p.carveout
    if p.sparse_operands is not None:
        bs = bs_sparse.stage_count(p.tile, p.sparse_operands, carveout)
        assert not isinstance(bs, str), bs  # plan() returned the reason instead
        return bs
    s = sparse.stage_count(p.tile, carveout)
    assert not isinstance(s, str), s  # plan() returned the reason instead
    return s


def stage_count(p: Plan, cutlass: CutlassModel) -> StageCount:
    carveout = epilogue_shared_storage(p).size if p.carveout is None else p.carveout
    if p.kind in ("sparse", "blockscaled-sparse"):
        return sparse_stages(p).count
    if p.operands is not None:
        return blockscaled.stage_count(
            p.tile, p.operands, carveout, fixed=p.fixed_stages, cutlass=cutlass
        )
    assert p.scales is not None
    return blockwise.stage_count(p.tile, p.scales, carveout, fixed=p.fixed_stages)


def mainloop_shared_storage(p: Plan, stages: int, cutlass: CutlassModel) -> Block:
    if p.kind in ("sparse", "blockscaled-sparse"):
        s = sparse_stages(p)
        if p.sparse_operands is not None:
            tensors = bs_sparse.tensor_storage(p.tile, p.sparse_operands, s)
            return sparse.shared_storage(tensors, s, bs_sparse.COLLECTIVE)
        return sparse.shared_storage(sparse.tensor_storage(p.tile, s), s)
    if p.operands is not None:
        return blockscaled.mainloop_shared_storage(p.tile, p.operands, stages, cutlass)
    assert p.scales is not None
    return blockwise.shared_storage(p.tile, p.scales, stages, p.grouped)


def kernel_shared_storage(p: Plan, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage`: the SM90 cooperative or pingpong shell, one problem or
    ptr-array; a sparse kernel's asymmetric-DMA shell (cutlint.cutlass.sm120_sparse)."""
    epi_pipeline = epilogue.load_pipeline(p.epilogue_cta, p.epilogue_ops, p.epi_tile)
    if p.kind in ("sparse", "blockscaled-sparse"):
        assert p.scheduler is not None
        s = sparse_stages(p)
        tensors = (
            bs_sparse.tensor_storage(p.tile, p.sparse_operands, s)
            if p.sparse_operands is not None
            else sparse.tensor_storage(p.tile, s)
        )
        return sparse.kernel_shared_storage(
            tensors, s, epilogue_tensor_storage(p), epi_pipeline, p.scheduler
        )
    if p.operands is not None:
        tensors = blockscaled.mainloop_tensor_storage(p.tile, p.operands, stages, cutlass=cutlass)
        pipeline = blockscaled.mainloop_pipeline(stages)
    else:
        assert p.scales is not None
        tensors = blockwise.tensor_storage(p.tile, p.scales, stages, p.grouped)
        pipeline = blockwise.pipeline(stages)
    if p.grouped:
        return array_shell.ptr_array_shared_storage(
            array_shell.ShellParts(
                mainloop_tensors=tensors,
                epilogue_tensors=epilogue_tensor_storage(p),
                mainloop_pipeline=pipeline,
                epilogue_pipeline=epi_pipeline,
                mainloop_tensormaps=blockwise.tensormaps(),
                epilogue_tensormaps=epilogue.array_tensormaps(),
            ),
            pingpong=p.pingpong,
        )
    assert p.scheduler is not None
    return shell.kernel_shared_storage(
        mainloop_tensors=tensors,
        mainloop_pipeline=pipeline,
        epilogue_tensors=epilogue_tensor_storage(p),
        epilogue_pipeline=epi_pipeline,
        scheduler=p.scheduler,
        scheduler_stages=p.scheduler_stages,
        pingpong=p.pingpong,
    )


def epilogue_shape(p: Plan) -> EpilogueTile:
    return epilogue.shape(p.epilogue_cta, p.epilogue_ops, p.epi_tile)


def max_threads_per_block(p: Plan) -> int:
    if p.pingpong:
        return shell.max_threads_per_block(pingpong=True)
    return shell.max_threads_per_block()


def register_plan(p: Plan, cutlass: CutlassModel) -> RegisterPlan | None:
    """The cooperative shell's setmaxnreg split: HeavyRegisterPressure = RegsPerThread >= 208 in
    CUTLASS 4.2.0; 4.5.0 lowers it to 128 for a block-scaled mainloop (IsSm120BlockScaled in
    sm90_gemm_tma_warpspecialized_cooperative.hpp). The pingpong and ptr-array splits are not
    modeled here."""
    if p.pingpong or p.grouped:
        return None
    if p.kind in ("sparse", "blockscaled-sparse"):
        return sparse.register_plan(p.tile)
    blockscaled_threshold = p.kind == "block-scaled" and cutlass.version >= (4, 5, 0)
    return shell.register_plan(p.tile, sm120_blockscaled=blockscaled_threshold)


def tma_misaligned(r: CollectiveBuilderRecipe) -> str:
    """The A/B alignment no SM120 TMA builder specialization takes (cutlint.cutlass.tma), in
    words; "" when aligned or not decided here (the sparse builders' own alignment rule,
    sm1xx_sparse_gemm_is_aligned, is not modeled). Block-scaled: sm1xx_blockscaled_gemm_is_aligned
    on the pair's data type, its sub-byte rule under an mxf8f6f4 schedule only; blockwise and
    dense: sm1xx_gemm_is_aligned."""
    opclass = _strip(r.opclass)
    if opclass not in (BLOCKSCALED, TENSOROP):
        return ""
    bits_a, bits_b = tma.element_bits(r.element_a), tma.element_bits(r.element_b)
    align_a, align_b = r.alignment_a.strip(), r.alignment_b.strip()
    if bits_a is None or bits_b is None or not (align_a.isdigit() and align_b.isdigit()):
        return ""
    subbyte_rule = opclass == TENSOROP or "Mxf8f6f4" in r.kernel_schedule
    return tma.sm1xx_misaligned((bits_a, int(align_a)), (bits_b, int(align_b)), subbyte_rule)


def tma_plan(r: CollectiveBuilderRecipe) -> TmaPlan | None:
    """A's and B's tensor maps as far as the chain decides them (cutlint.cutlass.tma); None for
    the sparse builders (their own alignment rule is not modeled)."""
    opclass = _strip(r.opclass)
    if opclass not in (BLOCKSCALED, TENSOROP):
        return None
    subbyte_rule = opclass == TENSOROP or "Mxf8f6f4" in r.kernel_schedule
    grouped = _strip(r.problem_shape).startswith("cutlass::gemm::GroupProblemShape<")
    return tma.sm1xx_plan(
        (r.element_a, r.element_b), (r.alignment_a, r.alignment_b), subbyte_rule, grouped
    )
