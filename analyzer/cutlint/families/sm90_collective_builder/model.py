"""SM90 CUTLASS 3.x GEMMs built by CollectiveBuilder: what the builders choose for a recipe read
from a `using` chain, and the compiler's layout of `GemmKernel::SharedStorage`.

- mainloop: `gemm::collective::CollectiveBuilder<Sm90, OpClassTensorOp, A, LayoutA, AlignA, B,
  LayoutB, AlignB, Accumulator, Tile, Cluster, StagePolicy, KernelSchedule>` (SM90_GMMA_BUILDER): the TMA SS
  builders (`KernelTmaWarpSpecialized{,Cooperative,Pingpong}[FP8FastAccum]`) or the cp.async one
  (`KernelCpAsyncWarpSpecialized[Cooperative]`); `KernelScheduleAuto` resolves to one of them.
  Stage count: `compute_stage_count_or_override` (cutlint.cutlass.stage_count);
- epilogue: `epilogue::collective::CollectiveBuilder<Sm90, ...>` (SM90_EPILOGUE_BUILDER): the TMA epilogue
  (`TmaWarpSpecialized[Cooperative]`, subtile and buffers by cutlint.cutlass.sm90_epilogue_builder,
  storage by cutlint.cutlass.epilogue) or `NoSmemWarpSpecialized` (also `EpilogueScheduleAuto`);
- kernel: the SM90 `GemmUniversal` shell of the mainloop's schedule with the SM90 tile scheduler
  (cutlint.cutlass.sm90_gemm_kernel).

Three computations kept apart, as in every family: `stage_count` (what the builder believes),
`kernel_shared_storage` (what the compiler lays out) and the launch configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cutlint.cutlass import epilogue as epi
from cutlint.cutlass import fusion as fusions
from cutlint.cutlass import kernel as ptr_array_shell
from cutlint.cutlass import mainloop as ptr_array_mainloop
from cutlint.cutlass import sm90_blockwise as blockwise
from cutlint.cutlass import sm90_evt, tma
from cutlint.cutlass import sm90_gemm_kernel as kernel
from cutlint.cutlass import sm90_sparse as sparse
from cutlint.cutlass.headers import (
    SM90_EPILOGUE_TMA_WARPSPECIALIZED,
    SM90_GMMA_BUILDER,
    SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
    SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
)
from cutlint.cutlass.layout import Block, struct
from cutlint.cutlass.sm90_epilogue_builder import sm90_epilogue_tile
from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.cutlass.stage_count import (
    SC90,
    SM90_SMEM_CAPACITY,
    Sm90StageInputs,
    sm90_kernel_carveout,
    sm90_mixed_input_carveout,
    sm90_stage_count,
)
from cutlint.cutlass.storage import THREADS_PER_WARP_GROUP, pipeline_storage
from cutlint.families.base import family_data as base_family_data
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount, StageTerm, TmaPlan

PACKAGE = "cutlint.families.sm90_collective_builder"
_C = base_family_data(PACKAGE).constants  # data/family.toml [constants], each with its source
TMA_ALIGNMENT_BYTES = _C["tma_alignment_bytes"]
CP_ASYNC_MIN_ALIGNMENT_BYTES = _C["cp_async_min_alignment_bytes"]
COOPERATIVE_MIN_TILE_M = _C["cooperative_min_tile_m"]
GMMA_M = _C["gmma_m"]
AUTO_PINGPONG_TILE_M = _C["auto_pingpong_tile_m"]


class StagePolicy(StrEnum):
    CARVEOUT = "StageCountAutoCarveout"
    """`StageCountAutoCarveout<N>` (and `StageCountAuto` = `StageCountAutoCarveout<0>`)."""
    EPILOGUE_CARVEOUT = "StageCountAutoCarveout<sizeof(epilogue::SharedStorage)>"
    """cutlass_library's: the kernel's own epilogue's SharedStorage."""
    FIXED = "StageCount"


class EpilogueKind(StrEnum):
    TMA = "tma"
    NO_SMEM = "nosmem"


EVT_ELEMENT_BYTES = {
    "float": 4,
    "cutlass::half_t": 2,
    "cutlass::bfloat16_t": 2,
    "cutlass::float_e4m3_t": 1,
    "cutlass::float_e5m2_t": 1,
    "int32_t": 4,
    "int": 4,
}
"""sizeof of the elements an epilogue visitor tree's row broadcasts stage (cutlass/numeric_types.h)."""


@dataclass(frozen=True)
class Tactic:
    """What changes shared memory or the launch configuration, as the builders resolve it."""

    shell: Shell
    fp8_fast_accum: bool
    tile: Shape3
    cluster: Shape3
    a_bits: int
    b_bits: int
    accumulator_bits: int
    stage_policy: StagePolicy
    stage_value: int
    """The carveout (bytes) of StageCountAutoCarveout<N>, or N of StageCount<N>."""
    epilogue: EpilogueKind
    c_bits: int | None
    """ElementC's width; None: void (no source)."""
    d_bits: int
    c_m_major: bool
    d_m_major: bool
    scheduler: Sm90Scheduler
    mixed_input: bool = False
    """A narrower than B, converted (and scaled) in registers: the RS mixed-input mainloop."""
    scale_bits: int = 0
    """ElementScale's width (0: void, DirectConvert)."""
    zero_bits: int = 0
    """ElementZero's width (0: void)."""
    register_sourced: bool = False
    """An operand not K-major at 32 bits: the RS mainloop (MainloopSm90TmaGmmaRmemAWarpSpecialized,
    or its cp.async form)."""
    a_k_major: bool = True
    b_k_major: bool = True
    epilogue_tile_mn: tuple[int, int] | None = None
    """The epilogue builder's explicit EpilogueTile `cute::Shape<_M, _N>`; None: EpilogueTileAuto."""
    bias_bits: int = 0
    """ElementBias's width of a `LinCombPerColBias` fusion (0: LinearCombination)."""
    evt: str = ""
    """An epilogue visitor tree given as the fusion (`Sm90TreeVisitor<...>`, vLLM's scaled-mm
    epilogues), its spelling: its storage is cutlint.cutlass.sm90_evt's ("": none)."""
    block_scale: blockwise.Granularity | None = None
    """The scale granularity of a blockwise-scaled FP8 mainloop (`...FP8Blockwise` schedules)."""
    sparse: bool = False
    """OpClassSparseTensorOp: the 2:4 sparse mainloop (cutlint.cutlass.sm90_sparse)."""
    fp8: bool = False
    """Both operands FP8 (the sparse builder's MainloopSm90TmaGmmaWarpSpecializedSparseFP8)."""
    tma_misaligned: str = ""
    """The A/B alignment a TMA shell's builder static_asserts against, in words (empty: aligned;
    recipe._tma_misaligned): the chain does not compile (CUT301)."""
    grouped: bool = False
    """A GroupProblemShape with the ptr-array schedules: the ptr-array mainloop, epilogue and
    kernel shell (cutlint.cutlass.mainloop, .epilogue, .kernel: the parts the FlashInfer grouped
    family uses)."""

    @property
    def cp_async(self) -> bool:
        return not self.shell.tma

    @property
    def cooperative_epilogue(self) -> bool:
        return self.shell is Shell.TMA_COOPERATIVE


# --- epilogue ----------------------------------------------------------------------------------


def epilogue_tile(t: Tactic) -> EpilogueTile | None:
    if t.epilogue is EpilogueKind.NO_SMEM:
        return None
    return sm90_epilogue_tile(
        tile_m=t.tile.m,
        tile_n=t.tile.n,
        cooperative=t.cooperative_epilogue,
        c_bits=t.c_bits,
        d_bits=t.d_bits,
        c_m_major=t.c_m_major,
        d_m_major=t.d_m_major,
        explicit=t.epilogue_tile_mn,
    )


def fusion_storage(t: Tactic) -> Block:
    """`FusionCallbacks::SharedStorage`, the TMA epilogue's `thread` member: LinCombPerColBias
    stages one bias row of the CTA tile's N (Sm90RowBroadcast); LinearCombination has none."""
    if t.evt:
        tree = sm90_evt.storage(t.evt, t.tile.n, EVT_ELEMENT_BYTES)
        assert not isinstance(tree, str), tree  # the recipe's reading returned the reason
        return tree
    if t.bias_bits:
        return fusions.per_col_bias(t.tile.n, t.bias_bits)
    return fusions.linear_combination(ptr_array=t.grouped)


def epilogue_tensor_storage(t: Tactic) -> Block:
    e = epilogue_tile(t)
    if e is None:
        return epi.nosmem_tensor_storage()
    if t.grouped:
        return epi.tensor_storage(e, t.c_bits, t.d_bits, fusion_storage(t))
    return epi.tensor_storage(
        e, t.c_bits, t.d_bits, fusion_storage(t), SM90_EPILOGUE_TMA_WARPSPECIALIZED
    )


def epilogue_tensormaps(t: Tactic) -> Block:
    """The ptr-array epilogue's TensorMapStorage (grouped kernels only)."""
    if t.epilogue is EpilogueKind.NO_SMEM:
        return epi.nosmem_tensormaps()
    return epi.tensormaps(epi.PTR_ARRAY_EPILOGUE_WARP_GROUPS)


def epilogue_pipeline(t: Tactic) -> Block:
    e = epilogue_tile(t)
    return epi.nosmem_load_pipeline() if e is None else epi.load_pipeline(e.stages_c)


def epilogue_shared_storage(t: Tactic) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: what cutlass_library's carveout measures.
    NoSmem: the adapter's SharedStorage is DefaultEpilogue's, an empty struct (1 B)."""
    e = epilogue_tile(t)
    if e is None:
        return epi.nosmem_tensor_storage()
    if t.grouped:
        return epi.shared_storage(
            e, t.c_bits, t.d_bits, fusion_storage(t), epi.PTR_ARRAY_EPILOGUE_WARP_GROUPS
        )
    return epi.single_shared_storage(e, t.c_bits, t.d_bits, fusion_storage(t))


# --- mainloop ----------------------------------------------------------------------------------


def stage_count(t: Tactic) -> StageCount:
    """SM90_GMMA_BUILDER: PipelineStages = compute_stage_count_or_override<capacity, ElementAMma, ElementBMma,
    TileShape_MNK>(StageCountType). The TMA builders pass sm90_smem_capacity_bytes -
    KernelSmemCarveout (0 here: no ptr-array tensormaps, no `LayoutA*` strides); the cp.async
    builder passes sm90_smem_capacity_bytes."""
    if t.stage_policy is StagePolicy.FIXED:
        return _fixed_stage_count(t)
    carveout = (
        epilogue_shared_storage(t).size
        if t.stage_policy is StagePolicy.EPILOGUE_CARVEOUT
        else t.stage_value
    )
    if t.register_sourced:
        # SM90_GMMA_BUILDER (GMMA_TMA_WS_RS, not mixed): compute_stage_count_or_override<sm90_smem_capacity_
        # bytes, ..., SmemAlignment>; SM90_GMMA_BUILDER (GMMA_CpAsync_WS_RS): the default alignment, 128
        return sm90_stage_count(
            Sm90StageInputs(
                a_bits=t.a_bits,
                b_bits=t.b_bits,
                tile_m=t.tile.m,
                tile_n=t.tile.n,
                tile_k=t.tile.k,
                carveout=carveout,
                kernel_carveout=sm90_kernel_carveout(ptr_array=False, grouped_strides=False),
                alignment=128 if t.cp_async else max(_rs_alignments(t)),
            )
        )
    if t.sparse:
        return sparse.stage_count(t.a_bits, t.b_bits, t.tile, carveout)
    if t.block_scale is not None:
        # SM90_GMMA_BUILDER (FP8Blockwise): compute_stage_count_with_blockwise_scale<sm90_smem_capacity_bytes -
        # KernelSmemCarveout, ..., ScaleMsPerTile, ScaleNsPerTile>
        return sm90_stage_count(
            Sm90StageInputs(
                a_bits=t.a_bits,
                b_bits=t.b_bits,
                tile_m=t.tile.m,
                tile_n=t.tile.n,
                tile_k=t.tile.k,
                carveout=carveout,
                kernel_carveout=sm90_kernel_carveout(
                    ptr_array=t.grouped, grouped_strides=t.grouped
                ),
                block_scales=blockwise.stage_terms(t.block_scale, t.tile),
            )
        )
    if t.mixed_input:
        # SM90_GMMA_BUILDER (GMMA_TMA_WS_RS, IsMixedInput): compute_stage_count_or_override_single_affine_
        # transformed_input<sm90_smem_capacity_bytes, ..., SmemAlignment>, and for a ptr-array
        # schedule <Sm90ReducedSmemCapacityBytes = capacity - KernelSmemCarveout, ...>
        count = sm90_stage_count(
            Sm90StageInputs(
                a_bits=t.a_bits,
                b_bits=t.b_bits,
                tile_m=t.tile.m,
                tile_n=t.tile.n,
                tile_k=t.tile.k,
                carveout=carveout,
                kernel_carveout=sm90_mixed_input_carveout(ptr_array=t.grouped),
                alignment=max(kernel.mixed_input_smem_alignment(t.a_bits, t.b_bits, t.tile)),
                scale_bytes=t.scale_bits * t.tile.m // 8,
                zero_bytes=t.zero_bits * t.tile.m // 8,
            )
        )
        if not t.grouped:
            return count
        return count.model_copy(
            update={
                "formula": f"{SM90_GMMA_BUILDER} (GMMA_TMA_WS_RS, IsArrayOfPointersGemm): "
                "compute_stage_count_or_override_single_affine_transformed_input<Sm90ReducedSmem"
                "CapacityBytes>(StageCountAutoCarveout) = (sm90_smem_capacity_bytes - "
                "KernelSmemCarveout, rounded down to SmemAlignment, - carveout rounded up to it) "
                "/ stage_bytes"
            }
        )
    # SM90_GMMA_BUILDER: a ptr-array schedule carves out A's and B's tensormaps, a `LayoutA*` stride the
    # grouped scheduler's pipeline
    return sm90_stage_count(
        Sm90StageInputs(
            a_bits=t.a_bits,
            b_bits=t.b_bits,
            tile_m=t.tile.m,
            tile_n=t.tile.n,
            tile_k=t.tile.k,
            carveout=carveout,
            kernel_carveout=sm90_kernel_carveout(ptr_array=t.grouped, grouped_strides=t.grouped),
        )
    )


def _fixed_stage_count(t: Tactic) -> StageCount:
    a = t.a_bits * t.tile.m * t.tile.k // 8
    b = t.b_bits * t.tile.n * t.tile.k // 8
    per_stage = (
        StageTerm(name="A", bytes=a, source=f"{SM90_GMMA_BUILDER}: M x K of ElementA"),
        StageTerm(name="B", bytes=b, source=f"{SM90_GMMA_BUILDER}: N x K of ElementB"),
        StageTerm(name="pipeline", bytes=pipeline_storage(1), source="one stage's two barriers"),
    )
    stage_bytes = sum(x.bytes for x in per_stage)
    return StageCount(
        stages=t.stage_value,
        capacity=SM90_SMEM_CAPACITY,
        reductions=(),
        carveout=0,
        stage_budget=t.stage_value * stage_bytes,
        per_stage=per_stage,
        stage_bytes=stage_bytes,
        formula=f"{SM90_GMMA_BUILDER}: compute_stage_count_or_override(StageCount<N>) = N",
        capacity_source=f"{SC90}: detail::sm90_smem_capacity_bytes",
        fixed=True,
    )


def _rs_alignments(t: Tactic) -> tuple[int, int]:
    return kernel.rs_smem_alignment(
        t.a_bits, t.b_bits, t.tile, t.a_k_major, t.b_k_major, t.cp_async
    )


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    if t.register_sourced:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [
                mainloop_tensor_storage(t, stages).at("tensors"),
                kernel.mainloop_pipeline(stages, t.cp_async).at("pipeline"),
            ],
            "CollectiveMma::SharedStorage (RS)",
        )
    if t.sparse:
        return sparse.shared_storage(t.a_bits, t.b_bits, t.tile, stages, t.fp8)
    if t.block_scale is not None:
        return blockwise.shared_storage(
            t.a_bits, t.b_bits, t.block_scale, t.tile, stages, ptr_array=t.grouped
        )
    if t.mixed_input:
        return kernel.mixed_input_shared_storage(
            t.a_bits, t.b_bits, t.scale_bits, t.zero_bits, t.tile, stages, _mixed_header(t)
        )
    if t.grouped:
        return ptr_array_mainloop.sm90_array_shared_storage(
            t.a_bits, t.b_bits, t.tile.m, t.tile.n, t.tile.k, stages
        )
    return kernel.mainloop_shared_storage(t.a_bits, t.b_bits, t.tile, stages, t.cp_async)


def mainloop_tensor_storage(t: Tactic, stages: int) -> Block:
    if t.register_sourced:
        return kernel.rs_tensor_storage(
            t.a_bits, t.b_bits, t.tile, stages, _rs_alignments(t), t.cp_async
        )
    if t.sparse:
        return sparse.tensor_storage(t.a_bits, t.b_bits, t.tile, stages, t.fp8)
    if t.block_scale is not None:
        return blockwise.tensor_storage(
            t.a_bits, t.b_bits, t.block_scale, t.tile, stages, ptr_array=t.grouped
        )
    if t.mixed_input:
        return kernel.mixed_input_tensor_storage(
            t.a_bits, t.b_bits, t.scale_bits, t.zero_bits, t.tile, stages, _mixed_header(t)
        )
    if t.grouped:
        return ptr_array_mainloop.sm90_array_tensor_storage(
            t.a_bits, t.b_bits, t.tile.m, t.tile.n, t.tile.k, stages
        )
    return kernel.mainloop_tensor_storage(t.a_bits, t.b_bits, t.tile, stages, t.cp_async)


def _mixed_header(t: Tactic) -> str:
    """The mixed-input collective SM90_GMMA_BUILDER's DispatchPolicy picks (GMMA_TMA_WS_RS:
    IsArrayOfPointersGemm ? MainloopSm90ArrayTmaGmmaWarpSpecializedMixedInput :
    MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput); both declare the same TensorStorage."""
    if t.grouped:
        return SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT
    return SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT


def mainloop_tensormaps(t: Tactic) -> Block:
    """The ptr-array mainloop's TensorMapStorage (grouped kernels only): A and B's descriptors,
    and a mixed-input mainloop's scale and zero descriptors besides."""
    if t.mixed_input:
        return kernel.mixed_input_array_tensormaps()
    return ptr_array_mainloop.sm90_array_tensormaps()


# --- the kernel --------------------------------------------------------------------------------


def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    """`GemmKernel::SharedStorage` of the shell the mainloop's schedule selects."""
    if t.grouped:
        return ptr_array_shell.ptr_array_shared_storage(
            ptr_array_shell.ShellParts(
                mainloop_tensors=mainloop_tensor_storage(t, stages),
                epilogue_tensors=epilogue_tensor_storage(t),
                mainloop_pipeline=ptr_array_mainloop.sm90_array_pipeline(stages),
                epilogue_pipeline=epilogue_pipeline(t),
                mainloop_tensormaps=mainloop_tensormaps(t),
                epilogue_tensormaps=epilogue_tensormaps(t),
            ),
            pingpong=t.shell is Shell.TMA_PINGPONG,
        )
    return kernel.kernel_shared_storage(
        t.shell,
        mainloop_tensor_storage(t, stages),
        kernel.mainloop_pipeline(stages, t.cp_async),
        epilogue_tensor_storage(t),
        epilogue_pipeline(t),
        t.scheduler,
    )


def max_threads_per_block(t: Tactic) -> int:
    if t.grouped:
        pingpong = t.shell is Shell.TMA_PINGPONG
        return ptr_array_shell.max_threads_per_block(
            kernel.mma_warp_groups(t.shell, t.tile.m) * THREADS_PER_WARP_GROUP, pingpong
        )
    return kernel.max_threads_per_block(t.shell, t.tile.m, t.register_sourced)


def register_plan(t: Tactic) -> RegisterPlan | None:
    if t.grouped:
        # the ptr-array shells divide the accumulator over two MMA warp groups (KS:
        # NumMmaThreads = 256; KP: NumMmaWarpGroups * 128) and raise both to 232 registers
        return ptr_array_shell.register_plan(
            t.tile.m,
            t.tile.n,
            2 * THREADS_PER_WARP_GROUP,
            low_register_pressure=False,
            mma_warp_groups=ptr_array_shell.PINGPONG_MMA_WARP_GROUPS
            if t.shell is Shell.TMA_PINGPONG
            else kernel.mma_warp_groups(t.shell, t.tile.m),
        )
    return kernel.register_plan(t.shell, t.tile, t.accumulator_bits)


def tma_descriptors(t: Tactic) -> int:
    """Single-problem kernels keep their TMA descriptors in kernel parameters, not in shared
    memory (no TensorMapStorage in these SharedStorage layouts)."""
    return 0


_SELECTOR = (
    "cutlass/gemm/collective/builders/sm90_common.inl: ss_smem_selector (the widest "
    "Layout_{K,MN}_SW128/SW64/SW32/INTER atom that divides the tile's contiguous extent); "
    "cute/atom/copy_traits_sm90_tma.hpp: make_tma_copy (the box's inner extent is the atom's)"
)


def tma_plan(
    t: Tactic, elements: tuple[str, str], alignments: tuple[int | None, int | None], grouped: bool
) -> TmaPlan | None:
    """The mainloop's A and B tensor maps of a TMA shell with SS operands (None otherwise: the
    cp.async shells load without TMA; register-sourced and mixed-input mainloops pick their
    atoms by rs_smem_selector, not modeled here), and where the kernel's descriptors live: A, B,
    and the TMA epilogue's C (when not void) and D."""
    if not t.shell.tma or t.register_sourced or t.mixed_input:
        return None
    descriptors = []
    for name, bits, k_major, mn, align, element in (
        ("A", t.a_bits, t.a_k_major, t.tile.m, alignments[0], elements[0]),
        ("B", t.b_bits, t.b_k_major, t.tile.n, alignments[1], elements[1]),
    ):
        contiguous = t.tile.k if k_major else mn
        descriptors.append(
            tma.descriptor(
                name, element, bits, align, tma.TMA_ALIGNMENT_BYTES * 8,
                tma.sm90_smem_swizzle(contiguous, bits), _SELECTOR,
            )
        )  # fmt: skip
    epilogue = 0 if t.epilogue is not EpilogueKind.TMA else 1 + (t.c_bits is not None)
    return tma.plan(tuple(descriptors), grouped, 2 + epilogue)
