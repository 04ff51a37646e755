"""The SM120 block-scaled mainloop for a kernel of one problem (`GemmUniversal`, not ptr-array):
what the builder counts per stage, the stage count it picks, and the mainloop's `SharedStorage`.

Written for CUTLASS 4.5.0; a caller that passes its `CutlassModel` gets the builder of that
version (the knobs `reduced_capacity`, `pipeline_round_up` and `sfb_min_tile_n` of
data/cutlass.toml: CUTLASS 4.2.0 counts the full capacity, an unrounded pipeline and SFB over N).
The mainloop's layout is the same from 4.2.0 on (4.5.0 adds `alignas(16)` to smem_SFA/smem_SFB,
whose sizes are multiples of 16 for every tile the builder accepts, so no offset moves).

`CollectiveBuilder<Sm120, OpClassBlockScaledTensorOp, ...>` (SM120_BLOCKSCALED_MMA_BUILDER) sizes stages with
`sm100_compute_stage_count_or_override_blockscaled` (SM100_BLOCKSCALED_UMMA_BUILDER) against `ReducedSmemCapacityBytes`,
then `CollectiveMma<MainloopSm120TmaWarpSpecializedBlockScaled<...>>` (SM120_BLOCKSCALED_MMA_TMA) lays out A, B and the
scale factors per stage. The same builder serves the grouped (ptr-array) kernel that
cutlint.model.sm120_blockscaled models for the fused MoE; what differs for one problem is the
capacity reduction (a CLC scheduler pipeline and responses instead of tensormaps) and a mainloop
without tensormaps. Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cutlint.cutlass.headers import (
    SM90_PIPELINE,
    SM100_BLOCKSCALED_UMMA_BUILDER,
    SM120_BLOCKSCALED_MMA_ARRAY_TMA,
    SM120_BLOCKSCALED_MMA_BUILDER,
    SM120_BLOCKSCALED_MMA_TMA,
)
from cutlint.cutlass.layout import Block, array, round_up, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    cpp_div,
    pipeline_storage,
)
from cutlint.cutlass.versions import CutlassModel
from cutlint.records import Shape3, StageCount, StageTerm

SCHED = "cutlass/gemm/kernel/sm100_tile_scheduler.hpp"

# cutlass/arch/arch.h: sm120_smem_capacity_bytes
SM120_SMEM_CAPACITY = 101376
# SM120_BLOCKSCALED_MMA_BUILDER: SchedulerPipelineStageCount = 3
SCHEDULER_PIPELINE_STAGES = 3
# SCHED: struct CLCResponse { uint32_t data[4]; } (PersistentTileSchedulerSm100::CLCResponse)
CLC_RESPONSE_BYTES = 16
# cutlass/detail/sm100_blockscaled_layout.hpp: Sm1xxBlockScaledConfig, Blk_MN = 128
SF_BLOCK_MN = 128


@dataclass(frozen=True)
class Operands:
    """What the builder derives from the element types (SM120_BLOCKSCALED_MMA_BUILDER: blockscaled_type, select_instr)."""

    label: str
    bits_a: int
    """sizeof_bits of SmemAllocTypeA: 8 (uint8_t) for MXF8F6F4, the element's own width otherwise."""
    bits_b: int
    sf_vector_size: int
    """SFVectorSize: 16 for nv_float4_t (ue4m3 scales), 32 for mx_float*_t (ue8m0 scales)."""


# cutlass/gemm/collective/builders/sm1xx_common.inl: blockscaled_type<.., nv_float4_t<T>>::
# SfVectorSize = 16 (float_ue4m3_t); mx_float8_t / mx_float4_t: 32 (float_ue8m0_t). SM120_BLOCKSCALED_MMA_BUILDER:
# SmemAllocTypeA/B = uint8_t when the instruction is MXF8F6F4 (mx_float8_t operands), the MMA
# value type (4-bit e2m1) for MXF4NVF4 (nv_float4_t x nv_float4_t).
NVFP4 = Operands("NVFP4 (e2m1 x e2m1, ue4m3 scales, SFVec 16)", 4, 4, 16)
MXFP8 = Operands("MXFP8 (e4m3 x e4m3, ue8m0 scales, SFVec 32)", 8, 8, 32)
# An FP8 x FP4 pair (mx_float8_t / mx_float4_t, or cute::tuple<e4m3|e5m2|e2m1, ue8m0>) is
# MXF8F6F4 too: both stored as uint8_t.
MXFP8_MXFP4 = Operands("MXFP8 x MXFP4 (e4m3/e5m2 x e2m1, ue8m0 scales, SFVec 32)", 8, 8, 32)
# Any pair of mx types under a KernelScheduleMxf8f6f4Sm120 schedule is MXF8F6F4: uint8_t storage.
MXF8F6F4 = Operands("MXF8F6F4 (e2m1/e2m3/e3m2/e4m3/e5m2, ue8m0 scales, SFVec 32)", 8, 8, 32)
# MXF4 (KernelScheduleMxNvf4Sm120 with ue8m0 scales): e2m1 stored as 4 bits, SFVectorSize 32.
MXFP4 = Operands("MXFP4 (e2m1 x e2m1, ue8m0 scales, SFVec 32)", 4, 4, 32)

# SM120_BLOCKSCALED_MMA_BUILDER: IsGroupedGemmKernel ? sizeof(PipelineAsyncSharedStorage<8>) : ... (the grouped scheduler)
GROUPED_SCHEDULER_STAGES = 8

# What each term's size comes from, for the derivation graph (records.StageTerm.derived_from):
# the family's input nodes where it has them (cutlint.explain keeps only nodes that exist).
TILE_FROM = ("input.tile", "input.types")
VERSION_FROM = ("input.cutlass",)


@dataclass(frozen=True)
class StageBytes:
    a: int
    b: int
    sfa: int
    sfb: int

    @property
    def tensors(self) -> int:
        return self.a + self.b + self.sfa + self.sfb


def _on(cutlass: CutlassModel | None, knob: str) -> bool:
    """A knob of data/cutlass.toml; no model given means CUTLASS 4.5.0, where all three are on."""
    return cutlass is None or cutlass.has(knob)


def stage_bytes(tile: Shape3, ops: Operands, cutlass: CutlassModel | None = None) -> StageBytes:
    """One stage of A, B, SFA and SFB as the mainloop allocates them.

    SFA = size(filter_zeros(SmemLayoutAtomSFA)) = (M / Blk_MN) * Blk_MN * K / SFVectorSize (SM120_BLOCKSCALED_MMA_BUILDER:
    sSFA_shape; the K mode's SFVectorSize has stride 0); SFB the same over max(N, 128) (SM120_BLOCKSCALED_MMA_BUILDER:
    sSFBTileShape_N, CUTLASS 4.5.0; over N before: knob `sfb_min_tile_n`).
    """
    sf_k = tile.k // ops.sf_vector_size
    n_sf = max(tile.n, SF_BLOCK_MN) if _on(cutlass, "sfb_min_tile_n") else tile.n
    return StageBytes(
        a=ops.bits_a * tile.m * tile.k // 8,
        b=ops.bits_b * tile.n * tile.k // 8,
        sfa=(tile.m // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
        sfb=(n_sf // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
    )


def capacity_reductions(
    grouped: bool = False, cutlass: CutlassModel | None = None
) -> tuple[StageTerm, ...]:
    """SM120_BLOCKSCALED_MMA_BUILDER: ReducedSmemCapacityBytes (CUTLASS 4.4.2 on, knob `reduced_capacity`; before, the
    builder counts from the full sm120_smem_capacity_bytes). Not grouped: the CLC scheduler's
    pipeline and its responses, no tensormaps. Grouped (a stride that is a pointer): the grouped
    scheduler's pipeline, two tensormaps and the tensormap-ready pipeline, no CLC responses."""
    if not _on(cutlass, "reduced_capacity"):
        return ()
    if grouped:
        return (
            StageTerm(
                name="SchedulerPipelineStorage",
                bytes=pipeline_storage(GROUPED_SCHEDULER_STAGES),
                source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: sizeof(PipelineDetail::PipelineAsyncSharedStorage<8>)",
                derived_from=VERSION_FROM,
            ),
            StageTerm(
                name="TensorMapStorage",
                bytes=2 * TMA_DESCRIPTOR_BYTES,
                source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: sizeof(cute::TmaDescriptor) * 2",
                derived_from=VERSION_FROM,
            ),
            StageTerm(
                name="TensorMapReadyPipelineStorage",
                bytes=pipeline_storage(SCHEDULER_PIPELINE_STAGES),
                source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: sizeof(PipelineAsync<SchedulerPipelineStageCount = 3>::SharedStorage)",
                derived_from=VERSION_FROM,
            ),
            StageTerm(
                name="CLCResponseStorage",
                bytes=0,
                source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: IsGroupedGemmKernel ? 0 : ...",
            ),
        )
    return (
        StageTerm(
            name="SchedulerPipelineStorage",
            bytes=pipeline_storage(SCHEDULER_PIPELINE_STAGES),
            source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: sizeof(PipelineCLCFetchAsync<SchedulerPipelineStageCount = 3, Shape<_1,_1,_1>>::SharedStorage)",
            derived_from=VERSION_FROM,
        ),
        StageTerm(
            name="TensorMapStorage",
            bytes=0,
            source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: IsGroupedGemmKernel ? ... : 0",
        ),
        StageTerm(
            name="TensorMapReadyPipelineStorage",
            bytes=0,
            source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: IsGroupedGemmKernel ? ... : 0",
        ),
        StageTerm(
            name="CLCResponseStorage",
            bytes=SCHEDULER_PIPELINE_STAGES * CLC_RESPONSE_BYTES,
            source=f"{SM120_BLOCKSCALED_MMA_BUILDER}: SchedulerPipelineStageCount * sizeof(CLCResponse) ({SCHED})",
            derived_from=VERSION_FROM,
        ),
    )


def per_stage_terms(
    tile: Shape3, ops: Operands, cutlass: CutlassModel | None = None
) -> tuple[StageTerm, ...]:
    s = stage_bytes(tile, ops, cutlass)
    pipeline = StageTerm(
        name="pipeline",
        bytes=round_up(pipeline_storage(1), 128),
        source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: cutlass::round_up(sizeof(PipelineTmaUmmaAsync<1>::SharedStorage), 128)",
        derived_from=VERSION_FROM,
    )
    if not _on(cutlass, "pipeline_round_up"):
        pipeline = StageTerm(
            name="pipeline",
            bytes=pipeline_storage(1),
            source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) (not rounded before 4.4.0)",
            derived_from=VERSION_FROM,
        )
    return (
        StageTerm(
            name="A",
            bytes=s.a,
            source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: bits_to_bytes(a_bits * M * K)",
            derived_from=TILE_FROM,
        ),
        StageTerm(
            name="B",
            bytes=s.b,
            source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: bits_to_bytes(b_bits * N * K)",
            derived_from=TILE_FROM,
        ),
        pipeline,
        StageTerm(
            name="SFA",
            bytes=s.sfa,
            source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: size(filter_zeros(SmemLayoutAtomSFA))",
            derived_from=TILE_FROM,
        ),
        StageTerm(
            name="SFB",
            bytes=s.sfb,
            source=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: size(filter_zeros(SmemLayoutAtomSFB))",
            derived_from=(*TILE_FROM, *VERSION_FROM),
        ),
    )


def stage_count(
    tile: Shape3,
    ops: Operands,
    carveout: int | None,
    fixed: int | None = None,
    grouped: bool = False,
    cutlass: CutlassModel | None = None,
) -> StageCount:
    """SM120_BLOCKSCALED_MMA_BUILDER: PipelineStages = sm100_compute_stage_count_or_override_blockscaled<
    ReducedSmemCapacityBytes, ...>(StageCountType{}) (SM100_BLOCKSCALED_UMMA_BUILDER).

    `fixed`: the launcher passes `StageCount<N>` and the builder returns N. Otherwise
    `StageCountAutoCarveout<carveout>`: (ReducedSmemCapacityBytes - carveout) / stage_bytes.
    """
    reductions = capacity_reductions(grouped, cutlass)
    per_stage = per_stage_terms(tile, ops, cutlass)
    per = sum(t.bytes for t in per_stage)
    reduced = SM120_SMEM_CAPACITY - sum(r.bytes for r in reductions)
    if fixed is not None:
        return StageCount(
            stages=fixed,
            capacity=SM120_SMEM_CAPACITY,
            stage_budget=reduced,
            carveout=0,
            fixed=True,
            reductions=reductions,
            per_stage=per_stage,
            stage_bytes=per,
            formula=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: sm100_compute_stage_count_or_override_blockscaled(StageCount<{fixed}>) = {fixed}: fixed by the launcher, no budget",
            capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
        )
    carve = carveout or 0
    budget = reduced - carve
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carve,
        reductions=reductions,
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SM100_BLOCKSCALED_UMMA_BUILDER}: sm100_compute_stage_count_or_override_blockscaled(StageCountAutoCarveout) = (ReducedSmemCapacityBytes - carveout) / stage_bytes",
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
    )


def mainloop_tensor_storage(
    tile: Shape3,
    ops: Operands,
    stages: int,
    grouped: bool = False,
    cutlass: CutlassModel | None = None,
    per_stage: StageBytes | None = None,
    extra: Sequence[Block] = (),
    collective: str | None = None,
) -> Block:
    """SM120_BLOCKSCALED_MMA_TMA (SM120_BLOCKSCALED_MMA_ARRAY_TMA for a grouped kernel: the same members).

    A copy of this collective outside CUTLASS (`collective`, its header) may allocate other
    per-stage bytes than the tile's (`per_stage`: FlashInfer's SVDQuant collective pads SFA to
    128 rows for a 64-row tile) and members after smem_SFB (`extra`)."""
    s = per_stage or stage_bytes(tile, ops, cutlass)
    src = collective or (SM120_BLOCKSCALED_MMA_ARRAY_TMA if grouped else SM120_BLOCKSCALED_MMA_TMA)

    def terms(x: str) -> tuple[str, ...]:
        # the builder's per-stage term, unless the collective allocates its own per-stage bytes
        # (then from the call's tile: explain keeps the input nodes the family has)
        if per_stage is None:
            return ("builder.stages", f"builder.term.{x}")
        return ("builder.stages", *TILE_FROM, "input.call")

    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * s.a,
                1024,
                f"{src}: alignas(1024) ArrayEngine<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
                terms("A"),
            ),
            array(
                "smem_B",
                stages * s.b,
                1024,
                f"{src}: alignas(1024) ArrayEngine<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
                terms("B"),
            ),
            array(
                "smem_SFA",
                stages * s.sfa,
                16,
                f"{src}: alignas(16) (4.5.0; none in 4.2.0) ArrayEngine<ElementSF, cosize_v<SmemLayoutSFA>> smem_SFA",
                terms("SFA"),
            ),
            array(
                "smem_SFB",
                stages * s.sfb,
                16,
                f"{src}: alignas(16) (4.5.0; none in 4.2.0) ArrayEngine<ElementSF, cosize_v<SmemLayoutSFB>> smem_SFB",
                terms("SFB"),
            ),
            *extra,
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_pipeline(stages: int) -> Block:
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTmaAsync<{stages}>::SharedStorage (MainloopPipeline)",
        ("builder.stages",),
    )


def mainloop_shared_storage(
    tile: Shape3, ops: Operands, stages: int, cutlass: CutlassModel | None = None
) -> Block:
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(tile, ops, stages, cutlass=cutlass).at("tensors"),
            mainloop_pipeline(stages).at("pipeline_storage", 16),
        ],
        f"{SM120_BLOCKSCALED_MMA_TMA}: CollectiveMma::SharedStorage {{TensorStorage tensors; alignas(16) PipelineStorage pipeline_storage;}}",
    )


def mainloop_tensormaps() -> Block:
    """SM120_BLOCKSCALED_MMA_ARRAY_TMA: `struct TensorMapStorage : aligned_struct<128, _0> {TmaDescriptor smem_tensormap_A,
    _B, _SFA, _SFB;}` (a grouped kernel's mainloop)."""
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM120_BLOCKSCALED_MMA_ARRAY_TMA}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("A", "B", "SFA", "SFB")
        ],
        f"{SM120_BLOCKSCALED_MMA_ARRAY_TMA}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def grouped_mainloop_shared_storage(
    tile: Shape3, ops: Operands, stages: int, cutlass: CutlassModel | None = None
) -> Block:
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(tile, ops, stages, grouped=True, cutlass=cutlass).at("tensors"),
            mainloop_tensormaps().at("tensormaps"),
            mainloop_pipeline(stages).at("pipeline_storage", 16),
        ],
        f"{SM120_BLOCKSCALED_MMA_ARRAY_TMA}: CollectiveMma::SharedStorage {{tensors; tensormaps; alignas(16) pipeline_storage;}}",
    )
