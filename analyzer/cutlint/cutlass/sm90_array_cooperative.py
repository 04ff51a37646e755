"""The SM90 ptr-array (grouped) cooperative kernel shell, as CUTLASS 4.5.0 lays it out, for the
parts a family builds: what `GemmUniversal<GroupProblemShape<...>, ...>` with a
`KernelPtrArrayTmaWarpSpecializedCooperative*Sm120` schedule is made of.

`GemmKernel::SharedStorage` (KS):

    struct SharedStorage {
      struct TensorStorage : aligned_struct<128, _1> { mainloop; epilogue; } tensors;
      struct PipelineStorage : aligned_struct<16, _1> {
        alignas(16) scheduler; alignas(16) mainloop; alignas(16) epi_load; alignas(16) load_order;
      } pipelines;
      alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages];
      struct TensorMapStorage : aligned_struct<128, _1> {
        alignas(128) mainloop; alignas(128) epilogue;
      } tensormaps;
    };

cutlint.model.sm120_blockscaled lays out the same shell for the fused-MoE grouped GEMM with its
own parts. Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import (
    PL,
    THREADS_PER_WARP_GROUP,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.records import RegisterPlan, Shape3

KS = "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
GROUP_TS = "cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp"

# KS: TileSchedulerStages = 8, and TileSchedulerSelector<GroupScheduler, ..., 8, ...>
TILE_SCHEDULER_STAGES = 8
# GROUP_TS: WorkTileInfo {int32_t M_idx, N_idx, L_idx; bool is_valid_tile} (16 B)
SCHEDULER_RESPONSE_BYTES = 16
COOPERATIVE_MMA_THREADS = 8 * 32
LOAD_WARP_GROUPS = 1


def kernel_shared_storage(
    mainloop_tensors: Block,
    mainloop_pipeline: Block,
    mainloop_tensormaps: Block,
    epilogue_tensors: Block,
    epilogue_pipeline: Block,
    epilogue_tensormaps: Block,
) -> Block:
    tensors = struct(
        "tensors",
        [mainloop_tensors.at("mainloop"), epilogue_tensors.at("epilogue")],
        f"{KS}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1> {{mainloop; epilogue;}}",
        base_align=128,
    )
    pipelines = struct(
        "pipelines",
        [
            array(
                "scheduler",
                pipeline_storage(TILE_SCHEDULER_STAGES),
                16,
                f"{KS}: alignas(16) TileScheduler::PipelineStorage ({GROUP_TS}: PipelineAsyncSharedStorage<8>)",
            ),
            mainloop_pipeline.at("mainloop", 16),
            epilogue_pipeline.at("epi_load", 16),
            array(
                "load_order",
                ordered_sequence_barrier_storage(1, 2),
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
        f"{KS}: alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages = 8]",
    )
    tensormaps = struct(
        "tensormaps",
        [mainloop_tensormaps.at("mainloop", 128), epilogue_tensormaps.at("epilogue", 128)],
        f"{KS}: SharedStorage::TensorMapStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    return struct(
        "SharedStorage",
        [tensors, pipelines, responses, tensormaps],
        f"{KS}: GemmKernel::SharedStorage",
    )


def max_threads_per_block(mma_threads: int = COOPERATIVE_MMA_THREADS) -> int:
    """KS: MaxThreadsPerBlock = NumMmaThreads + NumLoadWarpGroups * NumThreadsPerWarpGroup."""
    return mma_threads + LOAD_WARP_GROUPS * THREADS_PER_WARP_GROUP


def register_plan(
    tile: Shape3, sm120_blockscaled: bool, mma_threads: int = COOPERATIVE_MMA_THREADS
) -> RegisterPlan:
    """KS: LoadRegisterRequirement = 40, MmaRegisterRequirement = 232; setmaxnreg is skipped when
    IsLowRegisterPressure = IsSm120BlockScaled<DispatchPolicy> && RegsPerThread <= 64."""
    regs = tile.m * tile.n // mma_threads
    if sm120_blockscaled and regs <= 64:
        return RegisterPlan(
            accumulator_registers=regs,
            reconfigured=False,
            load_warpgroup_registers=None,
            mma_warpgroup_registers=None,
            block_registers=None,
            source=f"{KS}: IsLowRegisterPressure, RegsPerThread",
        )
    warp_groups = mma_threads // THREADS_PER_WARP_GROUP
    return RegisterPlan(
        accumulator_registers=regs,
        reconfigured=True,
        load_warpgroup_registers=40,
        mma_warpgroup_registers=232,
        block_registers=THREADS_PER_WARP_GROUP * (LOAD_WARP_GROUPS * 40 + warp_groups * 232),
        source=f"{KS}: LoadRegisterRequirement = 40, MmaRegisterRequirement = 232",
    )
