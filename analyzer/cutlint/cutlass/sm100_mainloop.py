"""CUTLASS's SM100 / SM103 UMMA mainloops as their CollectiveBuilders build them.

Per stage operand bytes, the kernel carve-out the builders subtract from the capacity first
(`Sm100DenseGemmTmaUmmaCarveout`), the stage count (`sm100_compute_stage_count_or_override`,
`..._blockscaled`, the SM103 builder's), the accumulator pipeline depth, and the mainloop's
`SharedStorage`. One CUTLASS fact, one place: every family that builds an SM100 UMMA mainloop
(FlashInfer's fused MoE, cutlass_library's SM100 kernels, ...) reads it here.

Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cutlint.cutlass.headers import SM90_PIPELINE
from cutlint.cutlass.layout import Block, array, round_up, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    cpp_div,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.cutlass.versions import CutlassModel
from cutlint.records import StageCount, StageTerm

ARCH_H = "cutlass/arch/arch.h"
COMMON = "cutlass/gemm/collective/builders/sm100_common.inl"
CARVEOUT = "cutlass/gemm/collective/builders/sm100_pipeline_carveout.inl"
DENSE_BUILDER = "cutlass/gemm/collective/builders/sm100_umma_builder.inl"
BS_BUILDER = "cutlass/gemm/collective/builders/sm100_blockscaled_umma_builder.inl"
SM103_BUILDER = "cutlass/gemm/collective/builders/sm103_blockscaled_umma_builder.inl"
BW_BUILDER = "cutlass/gemm/collective/builders/sm100_blockwise_umma_builder.inl"
BW_ML = "cutlass/gemm/collective/sm100_mma_warpspecialized_blockwise_scaling.hpp"
BW_ML_ARRAY = "cutlass/gemm/collective/sm100_mma_array_warpspecialized_blockwise_scaling.hpp"
BW_SCALE = "cutlass/detail/blockwise_scale_layout.hpp"
DENSE_ML = "cutlass/gemm/collective/sm100_mma_array_warpspecialized.hpp"
DENSE_ML_UNIVERSAL = "cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"
BS_ML = "cutlass/gemm/collective/sm100_blockscaled_mma_array_warpspecialized.hpp"
BS_ML_UNIVERSAL = "cutlass/gemm/collective/sm100_blockscaled_mma_warpspecialized.hpp"
BS_ML_RC = "cutlass/gemm/collective/sm100_blockscaled_mma_array_warpspecialized_rcggemm.hpp"
"""The block-scaled mainloop of an RC grouped GEMM (MainloopSm100RCGroupGemmTmaUmmaWarpSpecialized
BlockScaled: A one tensor, B a pointer per group): BS_ML's TensorStorage, a TensorMapStorage of
B's and SFB's descriptors only."""
SM103_ML = "cutlass/gemm/collective/sm103_blockscaled_mma_array_warpspecialized.hpp"
SM103_ML_UNIVERSAL = "cutlass/gemm/collective/sm103_blockscaled_mma_warpspecialized.hpp"
"""The one-problem SM103 mainloop (MainloopSm103TmaUmmaWarpSpecializedBlockScaled): its
SharedStorage holds the tensors only (no tensormaps); PipelineStorage is the kernel's."""
SF_LAYOUT = "cutlass/detail/sm100_blockscaled_layout.hpp"
PL100 = "cutlass/pipeline/sm100_pipeline.hpp"

SM100_SMEM_CAPACITY = 232448
"""cutlass/arch/arch.h: sm100_smem_capacity_bytes (also the SM103 capacity: sm100_common.inl
sm100_reduced_smem_capacity_bytes uses it for both)."""
TMEM_COLUMNS = 512
"""cute/arch/tmem_allocator_sm100.hpp: Allocator1Sm/2Sm::Sm100TmemCapacityColumns."""
TMEM_LANES = 128
"""sm100_umma_builder.inl: TotalTmemRows = 128."""
CLC_RESPONSE_BYTES = 16
"""sm100_common.inl: detail::CLCResponseSize = sizeof(PersistentTileSchedulerSm100::CLCResponse)
(sm100_tile_scheduler.hpp: `uint32_t data[4]`)."""
SCHEDULER_STAGES_GROUPED = 8
"""The builders' SchedulerPipelineStageCount = IsGroupGemm ? 8 : 2 (grouped: 8)."""
SCHEDULER_STAGES_UNIVERSAL = 2
"""DENSE_BUILDER: SchedulerPipelineStageCount = IsGroupGemm ? 8 : 2 (one problem: 2)."""
SF_BLOCK_MN = 128
"""sm100_blockscaled_layout.hpp: Sm1xxBlockScaledConfig Blk_MN = 128."""
SF_BLOCK_K = 4
"""sm100_blockscaled_layout.hpp: Blk_SF = 4 scale factors per 32-bit TMEM word."""
SM103_SCHEDULER_STAGES = 3
"""SM103_BUILDER: SchedulerPipelineStageCount = 3."""
SM103_STAGE_K_BYTES = 128
"""SM103_BUILDER: SmemTileShape = (MMA_M, MMA_N / AtomThr, _128): one AB stage holds 128 B of K
per row ("SmemAllocTypes are uint8_t. We always allocate 128bytes")."""
SM103_SF_BUFFERS_PER_TILE_K = {16: 4, 32: 2}
"""SM103_BUILDER: sm103_sfa/sfb_smem_atom_layout, SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2."""
SM103_SFB_N_ROUND = {192: 256}
"""SM103_BUILDER: MMA_N_SFB = (MMA_N == 192) ? 256 : MMA_N."""
MAX_ACCUMULATOR_STAGES = 4
"""sm100_umma_builder.inl: AccumulatorPipelineStageCount = min(4u, ...) (the cap)."""


class UmmaKind(StrEnum):
    """Which SM10x builder and mainloop the launcher's types select."""

    DENSE = "dense"
    """OpClassTensorOp (tf32, f16, bf16, f8): sm100_umma_builder.inl, sm100_mma_array_warpspecialized.hpp."""
    BLOCKSCALED = "blockscaled"
    """OpClassBlockScaledTensorOp on Sm100 (NVF4 or MXF8F6F4): sm100_blockscaled_umma_builder.inl."""
    SM103_BLOCKSCALED = "sm103-blockscaled"
    """Sm103 ultra block-scaled FP4 (VS16): sm103_blockscaled_umma_builder.inl."""
    BLOCKWISE = "blockwise"
    """OpClassTensorOp with float scales per (M, N, K) block (KernelScheduleSm100Blockwise,
    KernelTmaWarpSpecializedBlockwise{1,2}SmSm100): sm100_blockwise_umma_builder.inl,
    sm100_mma_warpspecialized_blockwise_scaling.hpp (one problem only here)."""


@dataclass(frozen=True)
class Mainloop:
    """What a SM10x UMMA builder is given, reduced to what sizes shared memory."""

    kind: UmmaKind
    mma_m: int
    """size<0>(TileShape_MNK): the MMA tile M (2 x the CTA's M for a 2-SM MMA)."""
    mma_n: int
    mma_k: int
    two_sm: bool
    bits_a: int
    """sizeof_bits of the builder's ElementAMma_SmemAllocType (A as the mainloop sees it)."""
    bits_b: int
    sf_vector: int = 0
    """SFVecSize of a block-scaled MMA (16 for NVF4, 32 for MXF8F6F4); 0 for dense."""
    tensormaps: int = 2
    """TMA descriptors of the mainloop (A, B; + SFA, SFB when block-scaled)."""
    ptr_array: bool = True
    """A ptr-array (grouped) mainloop, with its tensormaps in shared memory; False: the
    one-problem mainloop of `GemmUniversal` (DENSE_ML_UNIVERSAL and its block-scaled and
    blockwise siblings)."""
    scale_granularity: tuple[int, int, int] = (0, 0, 0)
    """BLOCKWISE: (ScaleGranularityM, N, K), elements of A/B per float scale."""
    rc_group: bool = False
    """BLOCKSCALED, ptr-array: the RC grouped GEMM's mainloop (BS_ML_RC), which BS_BUILDER picks
    for IsRCGroupGemm (StrideA not a pointer, StrideB one). Its builder still carves out the
    four tensor maps of A, SFA, B and SFB (`tensormaps`); its SharedStorage holds two."""

    @property
    def cta_m(self) -> int:
        return self.mma_m // 2 if self.two_sm else self.mma_m

    @property
    def cta_n_b(self) -> int:
        """N of B per CTA: a 2-SM MMA splits B between the two CTAs (BlockTileB_N)."""
        return self.mma_n // 2 if self.two_sm else self.mma_n


@dataclass(frozen=True)
class StageBytes:
    a: int
    b: int
    sfa: int = 0
    sfb: int = 0

    @property
    def tensors(self) -> int:
        return self.a + self.b + self.sfa + self.sfb


def stage_bytes(ml: Mainloop) -> StageBytes:
    """One stage of A, B (bits_to_bytes(bits * M * K)) and of SFA, SFB.

    SFA holds MMA_M x K / SFVecSize scale factors (SF_LAYOUT: deduce_smem_layoutSFA, MMA_M =
    the tile M per MMA thread; the SFVecSize mode has stride 0); SFB is sized for N rounded up to
    Blk_MN = 128 (deduce_smem_layoutSFB: MMA_N_SFB = ceil_div(MMA_N, Blk_MN) * Blk_MN).
    """
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        return sm103_stage_bytes(ml)
    a = ml.bits_a * ml.cta_m * ml.mma_k // 8
    b = ml.bits_b * ml.cta_n_b * ml.mma_k // 8
    if ml.kind is UmmaKind.DENSE:
        return StageBytes(a, b)
    if ml.kind is UmmaKind.BLOCKWISE:
        # BW_SCALE smem_atom_layoutSFA/SFB of the CTA shape (M of one CTA, N and K whole):
        # ceil(M / gM) x ceil(K / gK) and ceil(N / gN) x ceil(K / gK) floats
        gm, gn, gk = ml.scale_granularity
        k_blocks = -(-ml.mma_k // gk)
        return StageBytes(
            a, b, sfa=4 * -(-ml.cta_m // gm) * k_blocks, sfb=4 * -(-ml.mma_n // gn) * k_blocks
        )
    sf_k = ml.mma_k // ml.sf_vector
    n_sf = -(-ml.mma_n // SF_BLOCK_MN) * SF_BLOCK_MN
    return StageBytes(a, b, sfa=ml.cta_m * sf_k, sfb=n_sf * sf_k)


def sm103_stage_bytes(ml: Mainloop) -> StageBytes:
    """One SM103 AB stage (A and B, 128 B of K per row) and one SF stage (SFA, SFB).

    SM103_BUILDER: SmemTileShape = (MMA_M, MMA_N / AtomThr, 128) of uint8_t; the SF atoms tile
    (M, K / SF_BUFFERS_PER_TILE_K) and (MMA_N_SFB, K / SF_BUFFERS_PER_TILE_K) with one scale factor
    per SFVecSize elements (sm103_sfa_smem_atom_layout, sm103_sfb_smem_atom_layout)."""
    per_row = ml.mma_k // ml.sf_vector // SM103_SF_BUFFERS_PER_TILE_K[ml.sf_vector]
    n_sfb = SM103_SFB_N_ROUND.get(ml.mma_n, ml.mma_n)
    return StageBytes(
        a=ml.cta_m * SM103_STAGE_K_BYTES,
        b=ml.cta_n_b * SM103_STAGE_K_BYTES,
        sfa=ml.cta_m * per_row,
        sfb=n_sfb * per_row,
    )


def accumulator_stages(ml: Mainloop) -> int:
    """AccumulatorPipelineStageCount as the builder picks it.

    Block-scaled (BS_BUILDER, SM103_BUILDER): `MMA_N == 256 ? 1 : 2`. Dense (DENSE_BUILDER):
    TotalTmem / (CTA_M * CTA_N) for a 2-SM MMA or an MMA M > 64, else (512 / CTA_N) * 2, capped
    at 4.
    """
    if ml.kind not in (UmmaKind.DENSE, UmmaKind.BLOCKWISE):
        return 1 if ml.mma_n == 256 else 2
    if ml.two_sm or ml.cta_m > 64:
        count = TMEM_LANES * TMEM_COLUMNS // (ml.cta_m * ml.mma_n)
    else:
        count = TMEM_COLUMNS // ml.mma_n * 2
    # BW_BUILDER: the same count without the cap (128x16 tiles take 32 accumulator stages)
    return count if ml.kind is UmmaKind.BLOCKWISE else min(MAX_ACCUMULATOR_STAGES, count)


def scheduler_stages(ml: Mainloop) -> int:
    """SchedulerPipelineStageCount of a one-problem builder: 2 (DENSE_BUILDER, BS_BUILDER), or
    AccumulatorPipelineStageCount + 1 (BW_BUILDER: "one more stage than the accumulator")."""
    if ml.kind is UmmaKind.BLOCKWISE:
        # BW_BUILDER: is_same_v<InternalStrideA, StrideA> ? AccumulatorPipelineStageCount + 1 : 1
        return 1 if ml.ptr_array else accumulator_stages(ml) + 1
    return SCHEDULER_STAGES_UNIVERSAL


def kernel_carveout(ml: Mainloop, cutlass: CutlassModel) -> tuple[StageTerm, ...]:
    """Sm100DenseGemmTmaUmmaCarveout<..., IsArrayOfPointersGemm = true, NumTensorMaps>::
    KernelSmemCarveout (CARVEOUT): the kernel's storage that is not the mainloop's or the
    epilogue's, subtracted from the capacity before the stages are counted.

    Since CUTLASS 4.3.0 (`sm100_async_tensormap_update`) a grouped kernel keeps two CLC responses
    (one for the tensormap-updater warps), five tensormap sets and a tensormap-ready pipeline.
    """
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        return sm103_kernel_carveout(ml)
    if not ml.ptr_array:
        return universal_kernel_carveout(ml)
    # the grouped blockwise builder schedules one CLC stage (BW_BUILDER), the others eight
    stages = scheduler_stages(ml) if ml.kind is UmmaKind.BLOCKWISE else SCHEDULER_STAGES_GROUPED
    acc = accumulator_stages(ml)
    async_update = cutlass.has("sm100_async_tensormap_update")
    responses = 2 if async_update else 1
    sets = 5 if async_update else 1
    src = f"{CARVEOUT}: Sm100DenseGemmTmaUmmaCarveout"
    terms = [
        StageTerm(
            name="AccumulatorPipelineStorage",
            bytes=pipeline_storage(acc),
            source=f"{src}: sizeof(PipelineUmmaAsync<AccumulatorPipelineStageCount = {acc}>::SharedStorage)",
            derived_from=("input.tile", "input.types"),
        ),
        StageTerm(
            name="CLCPipelineStorage",
            bytes=pipeline_storage(stages) * responses,
            source=f"{src}: sizeof(PipelineCLCFetchAsync<{stages}>::SharedStorage) x NumCLCResponses = {responses}",
            derived_from=("input.cutlass",),
        ),
        StageTerm(
            name="LoadOrderBarrierStorage",
            bytes=ordered_sequence_barrier_storage(1, 2),
            source=f"{src}: sizeof(OrderedSequenceBarrier<1,2>::SharedStorage)",
        ),
        StageTerm(
            name="CLCResponseStorage",
            bytes=stages * CLC_RESPONSE_BYTES * responses,
            source=f"{src}: SchedulerPipelineStageCount x CLCResponseSize x NumCLCResponses = {responses}",
            derived_from=("input.cutlass",),
        ),
        StageTerm(
            name="CLCThrottlePipelineStorage",
            bytes=pipeline_storage(stages),
            source=f"{src}: sizeof(PipelineAsync<{stages}>::SharedStorage)",
        ),
        StageTerm(
            name="TmemDeallocStorage",
            bytes=BARRIER_BYTES,
            source=f"{src}: sizeof(cutlass::arch::ClusterBarrier)",
        ),
        StageTerm(
            name="TmemBasePtrsStorage",
            bytes=stages * 4,
            source=f"{src}: SchedulerPipelineStageCount x sizeof(uint32_t)",
        ),
        StageTerm(
            name="TensorMapStorage",
            bytes=TMA_DESCRIPTOR_BYTES * ml.tensormaps * sets,
            source=f"{src}: sizeof(cute::TmaDescriptor) x NumTensorMaps = {ml.tensormaps} x {sets}",
            derived_from=("input.types", "input.cutlass"),
        ),
    ]
    if async_update:
        terms.append(
            StageTerm(
                name="TensorMapReadyPipelineStorage",
                bytes=pipeline_storage(stages),
                source=f"{src}: sizeof(PipelineAsync<{stages}>::SharedStorage)",
                derived_from=("input.cutlass",),
            )
        )
    return tuple(terms)


def universal_kernel_carveout(ml: Mainloop) -> tuple[StageTerm, ...]:
    """Sm100DenseGemmTmaUmmaCarveout<..., IsArrayOfPointersGemm = false> (CARVEOUT) for one
    problem (DENSE_BUILDER: IsGroupGemm = false, SchedulerPipelineStageCount = 2; BW_BUILDER:
    AccumulatorPipelineStageCount + 1): the same sum with TensorMapStorage = 0 (checked against
    CUTLASS 4.2.0's and 4.5.0's headers)."""
    stages = scheduler_stages(ml)
    acc = accumulator_stages(ml)
    src = f"{CARVEOUT}: Sm100DenseGemmTmaUmmaCarveout<IsArrayOfPointersGemm = false>"
    return (
        StageTerm(
            name="AccumulatorPipelineStorage",
            bytes=pipeline_storage(acc),
            source=f"{src}: sizeof(PipelineUmmaAsync<AccumulatorPipelineStageCount = {acc}>::SharedStorage)",
            derived_from=("input.tile", "input.types"),
        ),
        StageTerm(
            name="CLCPipelineStorage",
            bytes=pipeline_storage(stages),
            source=f"{src}: sizeof(PipelineCLCFetchAsync<{stages}>::SharedStorage)",
        ),
        StageTerm(
            name="LoadOrderBarrierStorage",
            bytes=ordered_sequence_barrier_storage(1, 2),
            source=f"{src}: sizeof(OrderedSequenceBarrier<1,2>::SharedStorage)",
        ),
        StageTerm(
            name="CLCResponseStorage",
            bytes=stages * CLC_RESPONSE_BYTES,
            source=f"{src}: SchedulerPipelineStageCount x CLCResponseSize",
        ),
        StageTerm(
            name="CLCThrottlePipelineStorage",
            bytes=pipeline_storage(stages),
            source=f"{src}: sizeof(PipelineAsync<{stages}>::SharedStorage)",
        ),
        StageTerm(
            name="TmemDeallocStorage",
            bytes=BARRIER_BYTES,
            source=f"{src}: sizeof(cutlass::arch::ClusterBarrier)",
        ),
        StageTerm(
            name="TmemBasePtrsStorage",
            bytes=stages * 4,
            source=f"{src}: SchedulerPipelineStageCount x sizeof(uint32_t)",
        ),
    )


def sm103_kernel_carveout(ml: Mainloop) -> tuple[StageTerm, ...]:
    """SM103_BUILDER: KernelSmemCarveout, its own sum (SchedulerPipelineStageCount = 3, one
    tensormap set of A, B, SFA, SFB, TmemBasePtrsStorage per accumulator stage)."""
    stages = SM103_SCHEDULER_STAGES
    acc = accumulator_stages(ml)
    src = f"{SM103_BUILDER}: KernelSmemCarveout"
    return (
        StageTerm(
            name="AccumulatorPipelineStorage",
            bytes=pipeline_storage(acc),
            source=f"{src}: sizeof(PipelineUmmaAsync<{acc}>::SharedStorage)",
            derived_from=("input.tile",),
        ),
        StageTerm(
            name="CLCPipelineStorage",
            bytes=pipeline_storage(stages),
            source=f"{src}: sizeof(PipelineCLCFetchAsync<{stages}>::SharedStorage)",
        ),
        StageTerm(
            name="LoadOrderBarrierStorage",
            bytes=ordered_sequence_barrier_storage(1, 2),
            source=f"{src}: sizeof(OrderedSequenceBarrier<1,2>::SharedStorage)",
        ),
        StageTerm(
            name="CLCResponseStorage",
            bytes=stages * CLC_RESPONSE_BYTES,
            source=f"{src}: SchedulerPipelineStageCount x CLCResponseSize",
        ),
        StageTerm(
            name="CLCThrottlePipelineStorage",
            bytes=pipeline_storage(stages),
            source=f"{src}: sizeof(PipelineAsync<{stages}>::SharedStorage)",
        ),
        StageTerm(
            name="TmemDeallocStorage",
            bytes=BARRIER_BYTES,
            source=f"{src}: sizeof(cutlass::arch::ClusterBarrier)",
        ),
        StageTerm(
            name="TmemBasePtrsStorage",
            bytes=acc * 4,
            source=f"{src}: AccumulatorPipelineStageCount x sizeof(uint32_t)",
            derived_from=("input.tile",),
        ),
        StageTerm(
            name="TensorMapStorage",
            bytes=TMA_DESCRIPTOR_BYTES * ml.tensormaps if ml.ptr_array else 0,
            source=f"{src}: IsArrayOfPointersGemm ? sizeof(cute::TmaDescriptor) x 4 (A, B, SFA, SFB) : 0",
        ),
    )


def sm103_sf_stages(ml: Mainloop, carveout: int) -> int:
    """SM103_BUILDER: sm103_compute_stage_count_or_override_blockscaled's second count: the AB
    stages, plus as many more SF stages as the rest of the budget holds at
    sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) + SFA + SFB each (the same in every modeled
    CUTLASS release: its KernelSmemCarveout is the builder's own sum)."""
    s = stage_bytes(ml)
    reserved = sum(r.bytes for r in sm103_kernel_carveout(ml))
    budget = SM100_SMEM_CAPACITY - reserved - carveout
    per_ab = s.tensors + 2 * pipeline_storage(1)
    ab = cpp_div(budget, per_ab)
    return ab + cpp_div(budget - ab * per_ab, pipeline_storage(1) + s.sfa + s.sfb)


def _builder(ml: Mainloop) -> str:
    return {
        UmmaKind.DENSE: DENSE_BUILDER,
        UmmaKind.BLOCKSCALED: BS_BUILDER,
        UmmaKind.SM103_BLOCKSCALED: SM103_BUILDER,
        UmmaKind.BLOCKWISE: BW_BUILDER,
    }[ml.kind]


def _blockwise_stage_count(ml: Mainloop, carveout: int, cutlass: CutlassModel) -> StageCount:
    """BW_BUILDER: sm100_compute_stage_count_or_override_blockwise = (reduced capacity -
    carveout) / (round_nearest(A + B + SFA + SFB, 128) + sizeof(PipelineTmaUmmaAsync<1>::
    SharedStorage) + sizeof(PipelineAsync<1>::SharedStorage)). Its scale terms count the MMA
    tile's scales (ScaleTileShape = TileShape_MNK / granularity: M of both SMs of a 2-SM MMA),
    its A and B terms one CTA's tiles."""
    s = stage_bytes(ml)
    gm, gn, gk = ml.scale_granularity
    sfa = 4 * (ml.mma_m // gm) * (ml.mma_k // gk)
    sfb = 4 * (ml.mma_n // gn) * (ml.mma_k // gk)
    tile = ("input.tile", "input.types", "input.cluster")
    tensors = round_up(s.a + s.b + sfa + sfb, 128)
    terms = [
        StageTerm(
            name="A",
            bytes=s.a,
            source=f"{BW_BUILDER}: bits_to_bytes(a_bits * M * K)",
            derived_from=tile,
        ),
        StageTerm(
            name="B",
            bytes=s.b,
            source=f"{BW_BUILDER}: bits_to_bytes(b_bits * N * K)",
            derived_from=tile,
        ),
        StageTerm(
            name="SFA",
            bytes=sfa,
            source=f"{BW_BUILDER}: bits_to_bytes(scale_bits * size<0>(ScaleTileShape) * size<2>(ScaleTileShape))",
            derived_from=tile,
        ),
        StageTerm(
            name="SFB",
            bytes=sfb,
            source=f"{BW_BUILDER}: bits_to_bytes(scale_bits * size<1>(ScaleTileShape) * size<2>(ScaleTileShape))",
            derived_from=tile,
        ),
        StageTerm(
            name="round_nearest",
            bytes=tensors - (s.a + s.b + sfa + sfb),
            source=f"{BW_BUILDER}: cutlass::round_nearest(A + B + SFA + SFB, 128)",
            derived_from=tile,
        ),
        StageTerm(
            name="pipeline",
            bytes=2 * pipeline_storage(1),
            source=f"{BW_BUILDER}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) + sizeof(PipelineAsync<1>::SharedStorage)",
        ),
    ]
    reductions = kernel_carveout(ml, cutlass)
    per = sum(t.bytes for t in terms)
    budget = SM100_SMEM_CAPACITY - sum(r.bytes for r in reductions) - carveout
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM100_SMEM_CAPACITY,
        reductions=reductions,
        carveout=carveout,
        stage_budget=budget,
        per_stage=tuple(terms),
        stage_bytes=per,
        formula=f"{BW_BUILDER}: sm100_compute_stage_count_or_override_blockwise = (sm100_reduced_smem_capacity_bytes - carveout) / stage_bytes",
        capacity_source=f"{ARCH_H}: sm100_smem_capacity_bytes",
        carveout_derived_from=(
            "epilogue.tile",
            "epilogue.stages_c",
            "epilogue.stages_d",
            "input.tile",
        ),
    )


def stage_count(ml: Mainloop, carveout: int, cutlass: CutlassModel) -> StageCount:
    """PipelineStages = sm100_compute_stage_count_or_override[_blockscaled]<
    sm100_reduced_smem_capacity_bytes = capacity - KernelSmemCarveout, ...>(
    StageCountAutoCarveout<carveout>) = (reduced capacity - carveout) / stage bytes.

    The dense builder counts sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) per stage; the
    block-scaled one rounds it up to 128 since CUTLASS 4.4.0 (`pipeline_round_up`).
    """
    if ml.kind is UmmaKind.BLOCKWISE:
        return _blockwise_stage_count(ml, carveout, cutlass)
    builder = _builder(ml)
    s = stage_bytes(ml)
    pipeline = pipeline_storage(1)
    pipeline_source = f"{builder}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage)"
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        pipeline = 2 * pipeline_storage(1)
        pipeline_source = f"{builder}: mainloop_pipeline_bytes x 2 (the AB and the SF pipeline)"
    elif ml.kind is UmmaKind.BLOCKSCALED and cutlass.has("pipeline_round_up"):
        pipeline = round_up(pipeline, 128)
        pipeline_source = (
            f"{builder}: cutlass::round_up(sizeof(PipelineTmaUmmaAsync<1>::SharedStorage), 128)"
        )
    tile = ("input.tile", "input.types", "input.cluster")
    terms = [
        StageTerm(
            name="A",
            bytes=s.a,
            source=f"{builder}: bits_to_bytes(a_bits * M * K)",
            derived_from=tile,
        ),
        StageTerm(
            name="B",
            bytes=s.b,
            source=f"{builder}: bits_to_bytes(b_bits * N * K)",
            derived_from=tile,
        ),
        StageTerm(
            name="pipeline", bytes=pipeline, source=pipeline_source, derived_from=("input.cutlass",)
        ),
    ]
    if ml.kind is not UmmaKind.DENSE:
        terms += [
            StageTerm(
                name="SFA",
                bytes=s.sfa,
                source=f"{builder}: size(filter_zeros(SmemLayoutAtomSFA))",
                derived_from=tile,
            ),
            StageTerm(
                name="SFB",
                bytes=s.sfb,
                source=f"{builder}: size(filter_zeros(SmemLayoutAtomSFB))",
                derived_from=tile,
            ),
        ]
    reductions = kernel_carveout(ml, cutlass)
    per = sum(t.bytes for t in terms)
    budget = SM100_SMEM_CAPACITY - sum(r.bytes for r in reductions) - carveout
    fn = {
        UmmaKind.DENSE: "sm100_compute_stage_count_or_override",
        UmmaKind.BLOCKSCALED: "sm100_compute_stage_count_or_override_blockscaled",
        UmmaKind.SM103_BLOCKSCALED: "sm103_compute_stage_count_or_override_blockscaled (the AB stages)",
    }[ml.kind]
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM100_SMEM_CAPACITY,
        reductions=reductions,
        carveout=carveout,
        stage_budget=budget,
        per_stage=tuple(terms),
        stage_bytes=per,
        formula=f"{builder}: {fn} = (sm100_reduced_smem_capacity_bytes - carveout) / stage_bytes",
        capacity_source=f"{ARCH_H}: sm100_smem_capacity_bytes",
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


# --- the mainloop's SharedStorage --------------------------------------------------------------


def _ml_header(ml: Mainloop) -> str:
    if ml.kind is UmmaKind.BLOCKWISE:
        return BW_ML_ARRAY if ml.ptr_array else BW_ML
    if not ml.ptr_array:
        return {
            UmmaKind.BLOCKSCALED: BS_ML_UNIVERSAL,
            UmmaKind.SM103_BLOCKSCALED: SM103_ML_UNIVERSAL,
        }.get(ml.kind, DENSE_ML_UNIVERSAL)
    if ml.rc_group:
        return BS_ML_RC
    return {
        UmmaKind.DENSE: DENSE_ML,
        UmmaKind.BLOCKSCALED: BS_ML,
        UmmaKind.SM103_BLOCKSCALED: SM103_ML,
    }[ml.kind]


def tensor_storage(ml: Mainloop, stages: int, sf_stages: int | None = None) -> Block:
    """`CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>`: A, B (and
    SFA, SFB) for every stage, each `cosize_v` of its stage-appended smem layout."""
    h = _ml_header(ml)
    s = stage_bytes(ml)
    sf = stages if sf_stages is None else sf_stages
    # cute/tensor_impl.hpp: ArrayEngine is array_aligned<T, N> (alignas 16) for byte-sized
    # elements, array_subbyte<T, N> otherwise.
    align_a = 16 if ml.bits_a % 8 == 0 or ml.kind is UmmaKind.SM103_BLOCKSCALED else 1
    align_b = 16 if ml.bits_b % 8 == 0 or ml.kind is UmmaKind.SM103_BLOCKSCALED else 1
    members = [
        array(
            "smem_A",
            stages * s.a,
            align_a,
            f"{h}: ArrayEngine<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
            ("builder.stages", "builder.term.A"),
        ),
        array(
            "smem_B",
            stages * s.b,
            align_b,
            f"{h}: ArrayEngine<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
            ("builder.stages", "builder.term.B"),
        ),
    ]
    if ml.kind is not UmmaKind.DENSE:
        element = "ElementAccumulator" if ml.kind is UmmaKind.BLOCKWISE else "ElementSF"
        members += [
            array(
                "smem_SFA",
                sf * s.sfa,
                16,
                f"{h}: ArrayEngine<{element}, cosize_v<SmemLayoutSFA>> smem_SFA",
                ("builder.stages", "builder.term.SFA"),
            ),
            array(
                "smem_SFB",
                sf * s.sfb,
                16,
                f"{h}: ArrayEngine<{element}, cosize_v<SmemLayoutSFB>> smem_SFB",
                ("builder.stages", "builder.term.SFB"),
            ),
        ]
    return struct(
        "mainloop",
        members,
        f"{h}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def tensormap_storage(ml: Mainloop) -> Block:
    h = _ml_header(ml)
    dense = ml.kind in (UmmaKind.DENSE, UmmaKind.BLOCKWISE)  # BW_ML: its scales load by SIMT copies
    names = ("A", "B") if dense else ("B", "SFB") if ml.rc_group else ("A", "B", "SFA", "SFB")
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{h}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in names
        ],
        f"{h}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def pipeline(ml: Mainloop, stages: int, sf_stages: int | None = None) -> Block:
    """`PipelineTmaUmmaAsync<Stages>::SharedStorage` (PL100): a full and an empty barrier per stage;
    SM103: `struct PipelineStorage { pipeline_ab; pipeline_sf; }`, one per stage count."""
    if ml.kind is UmmaKind.BLOCKWISE:
        acc = accumulator_stages(ml)
        return struct(
            "mainloop",
            [
                array(
                    "pipeline_ab",
                    pipeline_storage(stages),
                    16,
                    f"{BW_ML}: alignas(16) PipelineTmaUmmaAsync<{stages}>::SharedStorage pipeline_ab",
                    ("builder.stages",),
                ),
                array(
                    "pipeline_sf",
                    pipeline_storage(stages),
                    16,
                    f"{BW_ML}: alignas(16) PipelineAsync<{stages}>::SharedStorage pipeline_sf",
                    ("builder.stages",),
                ),
                array(
                    "pipeline_accum",
                    pipeline_storage(acc),
                    16,
                    f"{BW_ML}: alignas(16) PipelineUmmaAsync<AccumulatorPipelineStageCount = {acc}>::SharedStorage pipeline_accum",
                ),
            ],
            f"{BW_ML}: CollectiveMma::PipelineStorage (not a member of its SharedStorage)",
        )
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        sf = stages if sf_stages is None else sf_stages
        return array(
            "mainloop",
            pipeline_storage(stages) + pipeline_storage(sf),
            BARRIER_BYTES,
            f"{_ml_header(ml)}: PipelineStorage {{ PipelineTmaUmmaAsync<{stages}> pipeline_ab; "
            f"PipelineTmaUmmaAsync<{sf}> pipeline_sf; }}",
            ("builder.stages",),
        )
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{PL100}: PipelineTmaUmmaAsync<{stages}>::SharedStorage ({SM90_PIPELINE}: full/empty barriers)",
        ("builder.stages",),
    )


def shared_storage(ml: Mainloop, stages: int, sf_stages: int | None = None) -> Block:
    """`CollectiveMma::SharedStorage`: tensors, tensormaps, pipeline (the dense and block-scaled
    array mainloops); SM103's declares its PipelineStorage type but holds no member of it, and
    its one-problem mainloop (SM103_ML_UNIVERSAL) no tensormaps either."""
    if ml.kind is UmmaKind.SM103_BLOCKSCALED and not ml.ptr_array:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [tensor_storage(ml, stages, sf_stages).at("tensors")],
            f"{SM103_ML_UNIVERSAL}: CollectiveMma::SharedStorage {{ TensorStorage tensors; }} (its PipelineStorage is the kernel's)",
        )
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [
                tensor_storage(ml, stages, sf_stages).at("tensors"),
                tensormap_storage(ml).at("tensormaps"),
            ],
            f"{SM103_ML}: CollectiveMma::SharedStorage (tensors, tensormaps)",
        )
    if ml.kind is UmmaKind.BLOCKWISE and ml.ptr_array:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [tensor_storage(ml, stages).at("tensors"), tensormap_storage(ml).at("tensormaps")],
            f"{BW_ML_ARRAY}: CollectiveMma::SharedStorage {{ tensors; tensormaps (A, B); }} (its PipelineStorage is the kernel's)",
        )
    if ml.kind is UmmaKind.BLOCKWISE:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [tensor_storage(ml, stages).at("tensors")],
            f"{BW_ML}: CollectiveMma::SharedStorage {{ TensorStorage tensors; }} (its PipelineStorage is the kernel's)",
        )
    if not ml.ptr_array:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [tensor_storage(ml, stages).at("tensors"), pipeline(ml, stages).at("pipeline")],
            f"{_ml_header(ml)}: CollectiveMma::SharedStorage (tensors, pipeline: no tensormaps)",
        )
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            tensor_storage(ml, stages).at("tensors"),
            tensormap_storage(ml).at("tensormaps"),
            pipeline(ml, stages).at("pipeline"),
        ],
        f"{_ml_header(ml)}: CollectiveMma::SharedStorage",
    )


# --- tensor memory -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TmemColumns:
    """TMEM columns (32-bit, 128 lanes each) the mainloop lays out from the allocation's base:
    the accumulators, then SFA, then SFB (`set_tmem_offsets`)."""

    accumulators: int
    sfa: int
    sfb: int
    source: str

    @property
    def total(self) -> int:
        return self.accumulators + self.sfa + self.sfb


def is_overlapping_accumulator(ml: Mainloop) -> bool:
    """cutlass/gemm/dispatch_policy.hpp: the block-scaled array mainloops' IsOverlappingAccum =
    AccumulatorPipelineStageCount == 1; the dense array mainloop's is false, and so is the
    blockwise ones' (the MMA-transform shells static_assert it)."""
    dense = ml.kind in (UmmaKind.DENSE, UmmaKind.BLOCKWISE)
    return not dense and accumulator_stages(ml) == 1


def tmem_columns(ml: Mainloop, epilogue_tile_n: int) -> TmemColumns | None:
    """cutlass/detail/sm100_tmem_helper.hpp: make_sm100_accumulator (AccumulatorPipelineStageCount
    buffers of N fp32 columns for a 128-row CTA and of N / 2 for a 64-row one, as
    DENSE_BUILDER's "1SM MMA_M = 64 case" counts (512 / N) x 2 buffers; with overlapping
    accumulators two buffers 256 - EPI_N columns apart) and
    find_tmem_tensor_col_offset; the scale factors take (MMA_M / 128) x K / SFVecSize columns
    for SFA and ceil(N / 128) x K / SFVecSize for SFB (BS_ML: init_tmem_tensors, tCtSFA / tCtSFB
    from SmemLayoutAtomSFA / SFB); a blockwise mainloop keeps its scales out of TMEM (BW_ML_ARRAY:
    the accumulators only, nvcc-confirmed on cutlass_library's grouped blockwise kernels). None
    where the compiler has not confirmed the layout."""
    src = (
        "cutlass/detail/sm100_tmem_helper.hpp: make_sm100_accumulator, find_tmem_tensor_col_offset"
    )
    if ml.cta_m not in (64, 128):
        return None
    per_buffer = ml.mma_n if ml.cta_m == 128 else ml.mma_n // 2
    if is_overlapping_accumulator(ml):
        acc = per_buffer + (256 - epilogue_tile_n)
    else:
        acc = accumulator_stages(ml) * per_buffer
    if ml.kind in (UmmaKind.DENSE, UmmaKind.BLOCKWISE):
        return TmemColumns(acc, 0, 0, src)
    sf_k = ml.mma_k // ml.sf_vector
    if ml.kind is UmmaKind.SM103_BLOCKSCALED:
        sf_k //= SM103_SF_BUFFERS_PER_TILE_K[ml.sf_vector]  # one SF stage of the K tile
    sfa = ml.cta_m // SF_BLOCK_MN * sf_k
    sfb = -(-ml.mma_n // SF_BLOCK_MN) * sf_k
    return TmemColumns(acc, sfa, sfb, f"{src}; {_ml_header(ml)}: init_tmem_tensors")
