"""The SM120 dense F8F6F4 mainloop (no scales) as CUTLASS 4.2.0 to 4.5.0 build it.

`CollectiveBuilder<Sm120, OpClassTensorOp, ...>` with plain A/B layouts and a dense schedule
(`KernelScheduleSm120DenseGemm`, `KernelTmaWarpSpecialized{Cooperative,Pingpong}` or
`KernelScheduleAuto`: SM120_MMA_BUILDER's enable_if) sizes stages with
`sm100_compute_stage_count_or_override<sm120_smem_capacity_bytes, SmemAllocTypeA, SmemAllocTypeB,
TileShape, PipelineTmaUmmaAsync<1>::SharedStorage>`: (capacity - carveout) / (A + B + one pipeline
stage), A and B in uint8_t (UseF8f6f4 is required); `CollectiveMma<MainloopSm120TmaWarpSpecialized>`
(SM120_MMA_TMA) lays out `alignas(1024)` smem_A and smem_B and a `PipelineTmaAsync<Stages>`. The
kernel is cooperative unless the schedule derives from KernelTmaWarpSpecializedPingpong
(`IsCooperative`). Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from cutlint.cutlass.headers import SM90_PIPELINE, SM120_MMA_BUILDER, SM120_MMA_TMA
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import BARRIER_BYTES, cpp_div, pipeline_storage
from cutlint.records import Shape3, StageCount, StageTerm

# cutlass/arch/arch.h: sm120_smem_capacity_bytes
SM120_SMEM_CAPACITY = 101376
# SM120_MMA_BUILDER: SchedulerPipelineStageCount = 2
SCHEDULER_PIPELINE_STAGES = 2
# SM120_MMA_BUILDER: SmemAllocTypeA/B = uint8_t (UseF8f6f4, static_asserted)
OPERAND_BITS = 8
CAPACITY_SOURCE = "cutlass/arch/arch.h: sm120_smem_capacity_bytes"


def _per_stage(tile: Shape3) -> tuple[StageTerm, ...]:
    return (
        StageTerm(
            name="A",
            bytes=OPERAND_BITS * tile.m * tile.k // 8,
            source=f"{SM120_MMA_BUILDER} -> sm100_compute_stage_count_or_override: bits_to_bytes(a_bits * M * K)",
        ),
        StageTerm(
            name="B",
            bytes=OPERAND_BITS * tile.n * tile.k // 8,
            source=f"{SM120_MMA_BUILDER} -> sm100_compute_stage_count_or_override: bits_to_bytes(b_bits * N * K)",
        ),
        StageTerm(
            name="pipeline",
            bytes=pipeline_storage(1),
            source=f"{SM120_MMA_BUILDER}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) (MainloopPipelineStorage)",
        ),
    )


def stage_count(tile: Shape3, carveout: int, fixed: int | None = None) -> StageCount:
    """SM120_MMA_BUILDER: PipelineStages = sm100_compute_stage_count_or_override<
    sm120_smem_capacity_bytes, ...>(StageCountAutoCarveout<carveout>) = (capacity - carveout) /
    stage_bytes (cutlass/gemm/collective/builders/sm100_umma_builder.inl); StageCount<N>: N."""
    per_stage = _per_stage(tile)
    per = sum(t.bytes for t in per_stage)
    budget = SM120_SMEM_CAPACITY - carveout
    if fixed is not None:
        return StageCount(
            stages=fixed,
            capacity=SM120_SMEM_CAPACITY,
            stage_budget=budget,
            carveout=0,
            fixed=True,
            reductions=(),
            per_stage=per_stage,
            stage_bytes=per,
            formula=f"{SM120_MMA_BUILDER}: sm100_compute_stage_count_or_override(StageCount<{fixed}>) = {fixed}",
            capacity_source=CAPACITY_SOURCE,
        )
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=(),
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SM120_MMA_BUILDER}: sm100_compute_stage_count_or_override<sm120_smem_capacity_bytes> = (capacity - carveout) / stage_bytes",
        capacity_source=CAPACITY_SOURCE,
    )


def tensor_storage(tile: Shape3, stages: int) -> Block:
    """SM120_MMA_TMA: `struct TensorStorage : cute::aligned_struct<128, _0> {alignas(1024)
    array_aligned<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A; alignas(1024) ... smem_B;}`."""
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k * OPERAND_BITS // 8,
                1024,
                f"{SM120_MMA_TMA}: alignas(1024) array_aligned<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
                ("builder.stages", "input.tile"),
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * OPERAND_BITS // 8,
                1024,
                f"{SM120_MMA_TMA}: alignas(1024) array_aligned<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
                ("builder.stages", "input.tile"),
            ),
        ],
        f"{SM120_MMA_TMA}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def pipeline(stages: int) -> Block:
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTmaAsync<{stages}>::SharedStorage (SM120_MMA_TMA: MainloopPipeline)",
        ("builder.stages",),
    )


def shared_storage(tile: Shape3, stages: int) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)`: tensors, then `alignas(16)` pipeline."""
    return struct(
        "CollectiveMainloop::SharedStorage",
        [tensor_storage(tile, stages).at("tensors"), pipeline(stages).at("pipeline_storage", 16)],
        f"{SM120_MMA_TMA}: CollectiveMma::SharedStorage",
    )


__all__ = [
    "SCHEDULER_PIPELINE_STAGES",
    "SM120_SMEM_CAPACITY",
    "pipeline",
    "shared_storage",
    "stage_count",
    "tensor_storage",
]
