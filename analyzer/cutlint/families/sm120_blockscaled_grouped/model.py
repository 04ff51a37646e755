"""The SM120 block-scaled grouped GEMM that FlashInfer's (TensorRT-LLM's) MoE launcher builds.

The recipe is `moe_gemm_tma_ws_launcher.inl`: a `CollectiveBuilder<Sm120,
OpClassBlockScaledTensorOp, ...>` mainloop with `StageCountAutoCarveout<sizeof(
CollectiveEpilogue::SharedStorage)>` and `KernelScheduleAuto`, a `TmaWarpSpecialized` epilogue with
`EpilogueTileAuto`, and `GemmUniversal` with the SM90 ptr-array cooperative kernel shell
(`KernelPtrArrayTmaWarpSpecializedCooperativeBlockScaledSm120`).

Two computations live here and are kept apart on purpose, because the gap between them is the bug
this tool exists for:
- `stage_count`: the stage count as the builder computes it (its own, approximate budget);
- `kernel_layout`: `GemmKernel::SharedStorage` as the compiler lays it out for that stage count.

Header paths are relative to CUTLASS's `include/`; `launcher` is FlashInfer's
`csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.layout import Block, array, empty, round_up, struct, union
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    PL,
    THREADS_PER_WARP_GROUP,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    cpp_div,
    pipeline_storage,
)
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_data
from cutlint.records import (
    ElementType,
    EpilogueTile,
    Fusion,
    RegisterPlan,
    Shape3,
    StageCount,
    StageTerm,
)

ML = "cutlass/gemm/collective/sm120_blockscaled_mma_array_tma.hpp"
MB = "cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl"
SC = "cutlass/gemm/collective/builders/sm100_blockscaled_umma_builder.inl"
EB = "cutlass/epilogue/collective/builders/sm120_builder.inl"
EP = "cutlass/epilogue/collective/sm90_epilogue_array_tma_warpspecialized.hpp"
KS = "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
SCATTER = "cutlass_extensions/epilogue/fusion/sm90_visitor_scatter.hpp (FlashInfer)"

_C = family_data("cutlint.families.sm120_blockscaled_grouped").constants
# Each constant's source is in data/family.toml beside this file.
SM120_SMEM_CAPACITY = _C["smem_capacity"]
TILE_SCHEDULER_STAGES = _C["tile_scheduler_stages"]
SCHEDULER_RESPONSE_BYTES = _C["scheduler_response_bytes"]
BUILDER_SCHEDULER_PIPELINE_STAGES = _C["builder_scheduler_pipeline_stages"]
EPILOGUE_WARP_GROUPS = _C["epilogue_warp_groups"]
SF_BLOCK_MN = _C["sf_block_mn"]
MMA_THREADS = _C["mma_threads"]
LOAD_WARPGROUP_REGISTERS = _C["load_warpgroup_registers"]
MMA_WARPGROUP_REGISTERS = _C["mma_warpgroup_registers"]


@dataclass(frozen=True)
class BlockScaledOperands:
    """What the builder derives from the element types (MB: blockscaled_type, select_instr)."""

    label: str
    bits_a: int
    """sizeof_bits of SmemAllocTypeA: 8 (uint8_t) for MXF8F6F4, the element's own width otherwise."""
    bits_b: int
    sf_vector_size: int
    """SFVectorSize: 16 for nv_float4_t (ue4m3 scales), 32 for mx_float*_t (ue8m0 scales)."""
    scale_type: str


# cutlass/gemm/collective/builders/sm1xx_common.inl: blockscaled_type<.., nv_float4_t<T>>::SfVectorSize
# = 16 and blockscaled_type<.., mx_float4_t<T>>::SfVectorSize = 32 (dense kernels); sf_type
# float_ue4m3_t / float_ue8m0_t. Element widths: cutlass/float_subbyte.h (e2m1: 4 bits).
NVFP4 = BlockScaledOperands("NVFP4 (e2m1 x e2m1, ue4m3 scales, SFVec 16)", 4, 4, 16, "ue4m3")
# MXF8F6F4: SmemAllocTypeA/B = uint8_t (MB: `cute::conditional_t<UseMxf8f6f4, uint8_t, ...>`),
# so FP4 B is stored unpacked, one byte per element.
MXFP8_MXFP4 = BlockScaledOperands(
    "MXFP8 x MXFP4 (e4m3 x e2m1, ue8m0 scales, SFVec 32)", 8, 8, 32, "ue8m0"
)


def operands_for(act: ElementType, weight: ElementType, mxfpx: bool) -> BlockScaledOperands | None:
    """The launcher's ElementActBlockScaled/ElementWeightBlockScaled choice (launcher: IsMXFPX)."""
    if act is ElementType.E2M1 and weight is ElementType.E2M1 and not mxfpx:
        return NVFP4
    if act is ElementType.E4M3 and weight is ElementType.E2M1 and mxfpx:
        return MXFP8_MXFP4
    return None


@dataclass(frozen=True)
class Tactic:
    """The inputs of the recipe that change shared memory."""

    tile: Shape3
    operands: BlockScaledOperands
    output_bits: int
    fusion: Fusion
    swap_ab: bool


# --- mainloop ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StageBytes:
    a: int
    b: int
    sfa: int
    sfb: int

    @property
    def tensors(self) -> int:
        return self.a + self.b + self.sfa + self.sfb


def stage_bytes(t: Tactic, cutlass: CutlassModel) -> StageBytes:
    """Bytes of one pipeline stage of A, B, SFA and SFB, as the mainloop allocates them.

    SFA is `size(filter_zeros(SmemLayoutAtomSFA))` = (M / Blk_MN) * Blk_MN * K / SFVectorSize (MB:
    sSFA_shape, the K mode's SFVectorSize has stride 0). SFB is the same over N, where CUTLASS
    4.5.0 sizes it for max(N, 128) (MB: sSFBTileShape_N).
    """
    m, n, k = t.tile.m, t.tile.n, t.tile.k
    sf_k = k // t.operands.sf_vector_size
    n_sf = max(n, SF_BLOCK_MN) if cutlass.has("sfb_min_tile_n") else n
    return StageBytes(
        a=t.operands.bits_a * m * k // 8,
        b=t.operands.bits_b * n * k // 8,
        sfa=(m // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
        sfb=(n_sf // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
    )


def mainloop_tensor_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    s = stage_bytes(t, cutlass)
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * s.a,
                1024,
                f"{ML}: alignas(1024) ArrayEngine<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
                ("builder.stages", "builder.term.A"),
            ),
            array(
                "smem_B",
                stages * s.b,
                1024,
                f"{ML}: alignas(1024) ArrayEngine<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
                ("builder.stages", "builder.term.B"),
            ),
            array(
                "smem_SFA",
                stages * s.sfa,
                16,
                f"{ML}: ArrayEngine<ElementSF, cosize_v<SmemLayoutSFA>> smem_SFA (array_aligned, 16)",
                ("builder.stages", "builder.term.SFA"),
            ),
            array(
                "smem_SFB",
                stages * s.sfb,
                16,
                f"{ML}: ArrayEngine<ElementSF, cosize_v<SmemLayoutSFB>> smem_SFB (array_aligned, 16)",
                ("builder.stages", "builder.term.SFB"),
            ),
        ],
        f"{ML}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_tensormaps() -> Block:
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{ML}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("A", "B", "SFA", "SFB")
        ],
        f"{ML}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_pipeline(stages: int) -> Block:
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{PL}: PipelineTmaAsync<{stages}>::SharedStorage",
        ("builder.stages",),
    )


def mainloop_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(t, stages, cutlass).at("tensors"),
            mainloop_tensormaps().at("tensormaps"),
            mainloop_pipeline(stages).at("pipeline_storage", 16),
        ],
        f"{ML}: CollectiveMma::SharedStorage",
    )


# --- epilogue ----------------------------------------------------------------------------------


def epilogue_shape(t: Tactic, cutlass: CutlassModel) -> EpilogueTile:
    """EB: sm120_compute_tile_shape_or_override (EpilogueTileAuto) and
    sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)."""
    m, n = t.tile.m, t.tile.n
    if cutlass.has("small_n_epilogue_tile"):
        epi_m, epi_n = (128 if n < 16 else 64), min(n, 32)
    else:
        epi_m, epi_n = 64, 32
    epi_tiles = (m // epi_m) * (n // epi_n)
    stages_d = min(epi_tiles, 2)
    # ElementC is the output type for both fusions (launcher: EpilogueElementC = ElementCSafe =
    # ElementD on SM120); ElementD is void with FINALIZE, so ReuseSmem needs NONE.
    reuse = t.fusion is Fusion.NONE and t.output_bits > 8
    stages_c = max(min(epi_tiles, 2), stages_d + 1) if reuse else stages_d
    return EpilogueTile(
        m=epi_m,
        n=epi_n,
        stages_c=stages_c,
        stages_d=stages_d,
        reuse_smem_c=reuse,
        swizzle_align=_swizzle_align(t, epi_m, epi_n),
        source=f"{EB}: sm120_compute_tile_shape_or_override (EpilogueTileAuto), "
        "sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)",
        derived_from={
            "tile": ("input.tile", "input.cutlass"),
            "stages_c": ("input.tile", "epilogue.tile", "input.fusion", "input.types"),
            "stages_d": ("input.tile", "epilogue.tile"),
            "swizzle": ("input.swap_ab", "input.types", "epilogue.tile"),
        },
    )


def _swizzle_align(t: Tactic, epi_m: int, epi_n: int) -> int:
    """`alignment_for_swizzle` of the C/D smem layout (cutlass/detail/layout.hpp: 1 << (B+M+S)).

    EB: sm120_get_epilogue_smem_swizzle_layout_atom -> ss_smem_selector
    (cutlass/gemm/collective/builders/sm90_common.inl): the widest of SW128/SW64/SW32/INTER whose
    atom width (1024/512/256/128 bits) divides the contiguous extent. SwapAB makes D column-major
    (launcher: LayoutD_T), so the contiguous extent is the epilogue tile's M, else its N.
    """
    contiguous_bits = (epi_m if t.swap_ab else epi_n) * t.output_bits
    for atom_bits, align in ((1024, 1024), (512, 512), (256, 256)):
        if contiguous_bits % atom_bits == 0:
            return align
    return 128


_C_FROM = ("epilogue.tile", "epilogue.stages_c", "epilogue.swizzle", "input.types")
_D_FROM = (
    "epilogue.tile",
    "epilogue.stages_d",
    "epilogue.stages_c",
    "epilogue.swizzle",
    "input.types",
)
_FUSION_FROM = ("input.tile", "input.fusion", "input.swap_ab", "input.types")


def _fusion_storage(t: Tactic) -> Block:
    """`FusionCallbacks::SharedStorage`, the `thread` member of the epilogue's TensorStorage."""
    if t.fusion is Fusion.NONE:
        return empty(
            "thread",
            "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp: Sm90LinearCombinationPtrArray: every node's SharedStorage is empty",
            _FUSION_FROM,
        )
    n = t.tile.n
    if t.swap_ab:
        # ScaledAccPerRowBiasPerColScaleScatter: the router scale is a Sm90RowBroadcast of float.
        return array(
            "thread.scale",
            4 * n,
            16,
            f"{SCATTER}: Sm90RowBroadcast<..., ElementScalar* (float)>: array_aligned<ElementInput, CTA_N> smem",
            _FUSION_FROM,
        )
    # ScaledAccPerColBiasPerRowScaleScatter: the bias is a Sm90RowBroadcast of the output type.
    return array(
        "thread.bias",
        t.output_bits // 8 * n,
        16,
        f"{SCATTER}: Sm90RowBroadcast<..., ElementBias*>: array_aligned<ElementInput, CTA_N> smem",
        _FUSION_FROM,
    )


def epilogue_tensor_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    e = epilogue_shape(t, cutlass)
    tile_bytes = e.m * e.n * t.output_bits // 8
    if e.reuse_smem_c:
        collective = union(
            "collective",
            [
                array(
                    "smem_C",
                    e.stages_c * tile_bytes,
                    e.swizzle_align,
                    f"{EP}: CollectiveStorageReuseC::smem_C, StagesC = {e.stages_c}",
                    _C_FROM,
                ),
                array(
                    "smem_D",
                    e.stages_c * tile_bytes,
                    e.swizzle_align,
                    f"{EP}: CollectiveStorageReuseC::smem_D, ReuseSmemC ? StagesC : StagesD = {e.stages_c}",
                    _D_FROM,
                ),
            ],
            f"{EP}: union CollectiveStorageReuseC (alignas(MaxSmemAlignment))",
        )
    else:
        collective = struct(
            "collective",
            [
                array(
                    "smem_C",
                    e.stages_c * tile_bytes,
                    e.swizzle_align,
                    f"{EP}: CollectiveStorageWithC::smem_C, StagesC = {e.stages_c}",
                    _C_FROM,
                ),
                array(
                    "smem_D",
                    e.stages_d * tile_bytes,
                    e.swizzle_align,
                    f"{EP}: CollectiveStorageWithC::smem_D, StagesD = {e.stages_d}",
                    _D_FROM,
                ),
            ],
            f"{EP}: struct CollectiveStorageWithC",
        )
    return struct(
        "epilogue",
        [collective, _fusion_storage(t)],
        f"{EP}: CollectiveEpilogue::SharedStorage::TensorStorage",
    )


def epilogue_tensormaps() -> Block:
    return struct(
        "epilogue",
        [
            array(
                "smem_tensormap_C",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{EP}: cute::TmaDescriptor smem_tensormap_C",
            ),
            array(
                "smem_tensormap_D",
                EPILOGUE_WARP_GROUPS * TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{EP}: cute::array<TmaDescriptor, NumEpilogueWarpGroups = {EPILOGUE_WARP_GROUPS}>",
            ),
        ],
        f"{EP}: CollectiveEpilogue::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def epilogue_pipeline(t: Tactic, cutlass: CutlassModel) -> Block:
    stages_c = epilogue_shape(t, cutlass).stages_c
    return array(
        "epi_load",
        pipeline_storage(stages_c),
        BARRIER_BYTES,
        f"{PL}: PipelineTransactionAsync<StagesC = {stages_c}>::SharedStorage",
        ("epilogue.stages_c",),
    )


def epilogue_shared_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            epilogue_tensor_storage(t, cutlass).at("tensors"),
            epilogue_tensormaps().at("tensormaps"),
            epilogue_pipeline(t, cutlass).at("pipeline"),
        ],
        f"{EP}: CollectiveEpilogue::SharedStorage",
    )


# --- stage count (the builder's arithmetic) ----------------------------------------------------


def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    """MB: PipelineStages = sm100_compute_stage_count_or_override_blockscaled<Capacity, ...>(
    StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>) (SC)."""
    reductions: list[StageTerm] = []
    if cutlass.has("reduced_capacity"):
        reductions = [
            StageTerm(
                name="SchedulerPipelineStorage",
                bytes=pipeline_storage(TILE_SCHEDULER_STAGES),
                source=f"{MB}: sizeof(PipelineDetail::PipelineAsyncSharedStorage<8>)",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="TensorMapStorage",
                bytes=2 * TMA_DESCRIPTOR_BYTES,
                source=f"{MB}: sizeof(cute::TmaDescriptor) * 2",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="TensorMapReadyPipelineStorage",
                bytes=pipeline_storage(BUILDER_SCHEDULER_PIPELINE_STAGES),
                source=f"{MB}: sizeof(PipelineAsync<SchedulerPipelineStageCount = 3>::SharedStorage)",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="CLCResponseStorage", bytes=0, source=f"{MB}: IsGroupedGemmKernel ? 0 : ..."
            ),
        ]
    carveout = epilogue_shared_storage(t, cutlass).size
    s = stage_bytes(t, cutlass)
    pipeline = pipeline_storage(1)
    pipeline_source = f"{SC}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage)"
    if cutlass.has("pipeline_round_up"):
        pipeline = round_up(pipeline, 128)
        pipeline_source = (
            f"{SC}: cutlass::round_up(sizeof(PipelineTmaUmmaAsync<1>::SharedStorage), 128)"
        )
    tile = ("input.tile", "input.types")
    per_stage = (
        StageTerm(
            name="A", bytes=s.a, source=f"{SC}: bits_to_bytes(a_bits * M * K)", derived_from=tile
        ),
        StageTerm(
            name="B", bytes=s.b, source=f"{SC}: bits_to_bytes(b_bits * N * K)", derived_from=tile
        ),
        StageTerm(
            name="pipeline", bytes=pipeline, source=pipeline_source, derived_from=("input.cutlass",)
        ),
        StageTerm(
            name="SFA",
            bytes=s.sfa,
            source=f"{SC}: size(filter_zeros(SmemLayoutAtomSFA))",
            derived_from=tile,
        ),
        StageTerm(
            name="SFB",
            bytes=s.sfb,
            source=f"{SC}: size(filter_zeros(SmemLayoutAtomSFB))",
            derived_from=(*tile, "input.cutlass"),
        ),
    )
    per = sum(x.bytes for x in per_stage)
    budget = SM120_SMEM_CAPACITY - sum(r.bytes for r in reductions) - carveout
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=tuple(reductions),
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SC}: sm100_compute_stage_count_or_override_blockscaled = (capacity - carveout) / stage_bytes",
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
        carveout_derived_from=(
            "epilogue.tile",
            "epilogue.stages_c",
            "epilogue.stages_d",
            "epilogue.swizzle",
            "input.tile",
            "input.types",
            "input.fusion",
            "input.swap_ab",
        ),
    )


# --- the kernel --------------------------------------------------------------------------------


def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 ptr-array cooperative kernel shell (KS)."""
    tensors = struct(
        "tensors",
        [mainloop_tensor_storage(t, stages, cutlass), epilogue_tensor_storage(t, cutlass)],
        f"{KS}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    pipelines = struct(
        "pipelines",
        [
            array(
                "scheduler",
                pipeline_storage(TILE_SCHEDULER_STAGES),
                16,
                f"{KS}: alignas(16) TileScheduler::PipelineStorage = PipelineAsyncSharedStorage<8>",
            ),
            mainloop_pipeline(stages).at("mainloop", 16),
            epilogue_pipeline(t, cutlass).at("epi_load", 16),
            array(
                "load_order",
                2 * BARRIER_BYTES,
                16,
                f"{KS}: alignas(16) OrderedSequenceBarrier<1,2>::SharedStorage ({PL}: barrier_[1][2])",
            ),
        ],
        f"{KS}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )
    responses = array(
        "scheduler_response",
        TILE_SCHEDULER_STAGES * SCHEDULER_RESPONSE_BYTES,
        16,
        f"{KS}: alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages = 8] (WorkTileInfo, 16 B)",
    )
    tensormaps = struct(
        "tensormaps",
        [mainloop_tensormaps().at("mainloop", 128), epilogue_tensormaps().at("epilogue", 128)],
        f"{KS}: SharedStorage::TensorMapStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    return struct(
        "SharedStorage",
        [tensors, pipelines, responses, tensormaps],
        f"{KS}: GemmKernel::SharedStorage",
    )


def register_plan(t: Tactic, cutlass: CutlassModel) -> RegisterPlan:
    """KS: RegsPerThread = 2 * M * N / NumMmaThreads * sizeof(float) / sizeof(uint32_t); since
    CUTLASS 4.5.0 the SM120 block-scaled kernel keeps the compiler's allocation (no setmaxnreg)
    when that is <= 64 (IsLowRegisterPressure)."""
    accumulators = 2 * t.tile.m * t.tile.n // MMA_THREADS
    reconfigured = not (cutlass.has("low_register_pressure") and accumulators <= 64)
    if not reconfigured:
        return RegisterPlan(
            accumulator_registers=accumulators,
            reconfigured=False,
            load_warpgroup_registers=None,
            mma_warpgroup_registers=None,
            block_registers=None,
            source=f"{KS}: IsLowRegisterPressure, RegsPerThread",
        )
    mma_warpgroups = MMA_THREADS // THREADS_PER_WARP_GROUP
    return RegisterPlan(
        accumulator_registers=accumulators,
        reconfigured=True,
        load_warpgroup_registers=LOAD_WARPGROUP_REGISTERS,
        mma_warpgroup_registers=MMA_WARPGROUP_REGISTERS,
        block_registers=THREADS_PER_WARP_GROUP
        * (LOAD_WARPGROUP_REGISTERS + mma_warpgroups * MMA_WARPGROUP_REGISTERS),
        source=f"{KS}: LoadRegisterRequirement, MmaRegisterRequirement, RegsPerThread",
    )


def max_threads_per_block() -> int:
    """KS: MaxThreadsPerBlock = NumMmaThreads + NumLoadWarpGroups * NumThreadsPerWarpGroup."""
    return MMA_THREADS + THREADS_PER_WARP_GROUP


TMA_DESCRIPTORS = 4 + 1 + EPILOGUE_WARP_GROUPS
"""Tensormaps in shared memory: A, B, SFA, SFB (ML) and C, D per epilogue warp group (EP)."""
