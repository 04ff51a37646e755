"""The grouped (ptr-array) tile scheduler's shared storage, as the SM90 ptr-array kernel shells
hold it: `PersistentTileSchedulerSm90Group` (`cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp`),
selected for a grouped problem shape by `TileSchedulerSelector<GroupScheduler, ...>`.

The SM90 grouped kernels and the SM120 block-scaled grouped kernels (which reuse the SM90 shells)
lay it out the same way. Unchanged between CUTLASS 4.2.1 and 4.5.0.
"""

from __future__ import annotations

from cutlint.cutlass.headers import SM90_TILE_SCHEDULER_GROUP
from cutlint.cutlass.layout import Block, array
from cutlint.cutlass.storage import pipeline_storage

# cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_{cooperative,pingpong}.hpp:
# TileSchedulerStages = 8, and SchedulerPipelineStageCount = 8 passed to TileSchedulerSelector
# ("Grouped GEMM scheduler will benefit from a larger number of stages").
TILE_SCHEDULER_STAGES = 8
# SM90_TILE_SCHEDULER_GROUP: struct WorkTileInfo { int32_t M_idx, N_idx, L_idx, is_valid_tile; } (the
# TileSchedulerResponse of the grouped scheduler)
WORK_TILE_INFO_BYTES = 16


def pipeline(stages: int = TILE_SCHEDULER_STAGES) -> Block:
    """`TileScheduler::PipelineStorage = PipelineDetail::PipelineAsyncSharedStorage<8>` (SM90_TILE_SCHEDULER_GROUP)."""
    return array(
        "scheduler",
        pipeline_storage(stages),
        16,
        f"{SM90_TILE_SCHEDULER_GROUP}: alignas(16) PipelineStorage = PipelineAsyncSharedStorage<{stages}>",
    )


def responses(stages: int = TILE_SCHEDULER_STAGES) -> Block:
    """`alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages]` of the shell."""
    return array(
        "scheduler_response",
        stages * WORK_TILE_INFO_BYTES,
        16,
        f"alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages = {stages}] "
        f"({SM90_TILE_SCHEDULER_GROUP}: WorkTileInfo, {WORK_TILE_INFO_BYTES} B)",
    )
