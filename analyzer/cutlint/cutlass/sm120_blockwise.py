"""The SM120 blockwise-scaled FP8 mainloop (groupwise scales in float) as CUTLASS 4.2.0 to 4.5.0
build it (the builder's formula and the mainloop's members are the same in both).

`CollectiveBuilder<Sm120, OpClassTensorOp, ..., KernelScheduleSm120Blockwise>` (SM120_BLOCKWISE_MMA_BUILDER) sizes stages
with `sm120_compute_stage_count_or_override_blockwise` against the full
`sm120_smem_capacity_bytes` (no reduction, unlike the block-scaled builder), counting A, B, one
stage of float scales for A and B and one pipeline stage; `CollectiveMma<
MainloopSm120[Array]TmaWarpSpecializedBlockwiseScaling>` (SM120_MMA_TMA_BLOCKWISE_SCALING, SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING) lays them out. A grouped
kernel's mainloop (a stride that is a pointer) adds two tensormaps. Header paths are relative to
CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.headers import (
    SM90_PIPELINE,
    SM120_BLOCKWISE_MMA_BUILDER,
    SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING,
    SM120_MMA_TMA_BLOCKWISE_SCALING,
)
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    cpp_div,
    pipeline_storage,
)
from cutlint.records import Shape3, StageCount, StageTerm

# cutlass/arch/arch.h: sm120_smem_capacity_bytes
SM120_SMEM_CAPACITY = 101376
# SM120_BLOCKWISE_MMA_BUILDER: SchedulerPipelineStageCount = 2
SCHEDULER_PIPELINE_STAGES = 2
# SM120_BLOCKWISE_MMA_BUILDER: ElementAccumulator (float) is the scale type the builder counts; SM120_MMA_TMA_BLOCKWISE_SCALING: ElementSF = float
SCALE_BYTES = 4
# SM120_BLOCKWISE_MMA_BUILDER: SmemAllocTypeA/B = uint8_t (UseF8f6f4 is required)
OPERAND_BITS = 8


@dataclass(frozen=True)
class Scales:
    """The scale granularity (ScaleGranularityM/N/K of the SFA/SFB layouts)."""

    m: int
    n: int
    k: int

    def per_tile(self, tile: Shape3) -> tuple[int, int]:
        """SM120_MMA_TMA_BLOCKWISE_SCALING: ScaleMsPerTile = M / ScaleGranularityM, ScaleNsPerTile = N / ScaleGranularityN."""
        return tile.m // self.m, tile.n // self.n


def stage_count(
    tile: Shape3, scales: Scales, carveout: int, fixed: int | None = None
) -> StageCount:
    """SM120_BLOCKWISE_MMA_BUILDER: sm120_compute_stage_count_or_override_blockwise<sm120_smem_capacity_bytes, ...>(
    StageCountAutoCarveout<carveout>) = (capacity - carveout) / stage_bytes; with `fixed`
    (StageCount<N>) the builder returns N."""
    sm, sn = scales.per_tile(tile)
    sk = tile.k // scales.k
    per_stage = (
        StageTerm(
            name="A",
            bytes=OPERAND_BITS * tile.m * tile.k // 8,
            source=f"{SM120_BLOCKWISE_MMA_BUILDER}: bits_to_bytes(a_bits * M * K)",
        ),
        StageTerm(
            name="B",
            bytes=OPERAND_BITS * tile.n * tile.k // 8,
            source=f"{SM120_BLOCKWISE_MMA_BUILDER}: bits_to_bytes(b_bits * N * K)",
        ),
        StageTerm(
            name="scale A",
            bytes=SCALE_BYTES * sm * sk,
            source=f"{SM120_BLOCKWISE_MMA_BUILDER}: bits_to_bytes(scale_bits * size<0>(ScaleShapeMNK) * size<2>(ScaleShapeMNK))",
        ),
        StageTerm(
            name="scale B",
            bytes=SCALE_BYTES * sn * sk,
            source=f"{SM120_BLOCKWISE_MMA_BUILDER}: bits_to_bytes(scale_bits * size<1>(ScaleShapeMNK) * size<2>(ScaleShapeMNK))",
        ),
        StageTerm(
            name="pipeline",
            bytes=pipeline_storage(1),
            source=f"{SM120_BLOCKWISE_MMA_BUILDER}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage) (not rounded)",
        ),
    )
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
            formula=f"{SM120_BLOCKWISE_MMA_BUILDER}: sm120_compute_stage_count_or_override_blockwise(StageCount<{fixed}>) = {fixed}",
            capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
        )
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=(),
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SM120_BLOCKWISE_MMA_BUILDER}: sm120_compute_stage_count_or_override_blockwise = (sm120_smem_capacity_bytes - carveout) / stage_bytes",
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
    )


def tensor_storage(tile: Shape3, scales: Scales, stages: int, grouped: bool) -> Block:
    src = SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING if grouped else SM120_MMA_TMA_BLOCKWISE_SCALING
    sm, sn = scales.per_tile(tile)
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k,
                1024,
                f"{src}: alignas(1024) array_aligned<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k,
                1024,
                f"{src}: alignas(1024) array_aligned<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
            ),
            array(
                "smem_scale_A",
                stages * sm * SCALE_BYTES,
                16,
                f"{src}: array_aligned<ElementSF, cosize_v<SmemLayoutScaleA>> smem_scale_A (ScaleMsPerTile x Stages floats)",
            ),
            array(
                "smem_scale_B",
                stages * sn * SCALE_BYTES,
                16,
                f"{src}: array_aligned<ElementSF, cosize_v<SmemLayoutScaleB>> smem_scale_B (ScaleNsPerTile x Stages floats)",
            ),
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def pipeline(stages: int) -> Block:
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTmaAsync<{stages}>::SharedStorage",
    )


def tensormaps() -> Block:
    """SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING: `struct TensorMapStorage : aligned_struct<128, _0> {TmaDescriptor smem_tensormap_A, _B;}`."""
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("A", "B")
        ],
        f"{SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def shared_storage(tile: Shape3, scales: Scales, stages: int, grouped: bool) -> Block:
    members = [tensor_storage(tile, scales, stages, grouped).at("tensors")]
    if grouped:
        members.append(tensormaps().at("tensormaps"))
    members.append(pipeline(stages).at("pipeline_storage", 16))
    return struct(
        "CollectiveMainloop::SharedStorage",
        members,
        f"{SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING if grouped else SM120_MMA_TMA_BLOCKWISE_SCALING}: CollectiveMma::SharedStorage",
    )
