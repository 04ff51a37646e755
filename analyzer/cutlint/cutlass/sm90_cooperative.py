"""The SM90 cooperative kernel shell for one problem, as CUTLASS 4.5.0 lays it out, and the tile
schedulers it can hold: what SM120 kernels of `GemmUniversal<..., TileSchedulerTag>` with a
cooperative schedule (`KernelTmaWarpSpecializedCooperative*Sm120`) are made of.

`GemmKernel::SharedStorage` (SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE):

    struct SharedStorage {
      struct PipelineStorage : aligned_struct<16, _1> {
        alignas(16) mainloop; alignas(16) epi_load; alignas(16) load_order;
      } pipelines;
      alignas(16) TileSchedulerStorage scheduler;
      struct TensorStorage : aligned_struct<128, _1> { epilogue; mainloop; } tensors;
    };

The pingpong shell (`KernelTmaWarpSpecializedPingpong*Sm120`, SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG) adds one member to
PipelineStorage, after epi_load: `alignas(16) MathWarpGroupOrderBarrierStorage math_wg_order`
(OrderedSequenceBarrier<StagesPerMathWarpGroup = 2, NumMmaWarpGroups = 2>). Both layouts are the
same in CUTLASS 4.2.0 and 4.5.0.

Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from enum import StrEnum

from cutlint.cutlass.headers import (
    SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE,
    SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG,
    SM90_PIPELINE,
    SM90_TILE_SCHEDULER,
)
from cutlint.cutlass.layout import Block, array, empty, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    THREADS_PER_WARP_GROUP,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.records import RegisterPlan, Shape3

# SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: NumMmaWarpGroups = 2, StagesPerMathWarpGroup = 2
PINGPONG_MMA_WARP_GROUPS = 2
PINGPONG_STAGES_PER_MATH_WARP_GROUP = 2
# cutlass/gemm/collective/builders/sm120_*_builder.inl: AtomLayoutMNK = Layout<Shape<_2,_2,_1>>
# for a pingpong schedule: one warp group per TiledMma (SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: static_assert NumMMAThreads == 128)
PINGPONG_MMA_THREADS = 4 * 32
SM100_TS = "cutlass/gemm/kernel/sm100_tile_scheduler.hpp"

# cutlass/gemm/collective/builders/sm120_*_builder.inl: AtomLayoutMNK = Layout<Shape<_4,_2,_1>>
# for a cooperative schedule: 8 MMA warps (SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE: NumMMAThreads = size(TiledMma{})).
COOPERATIVE_MMA_THREADS = 8 * 32
# SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE: NumLoadWarpGroups = 1
LOAD_WARP_GROUPS = 1
# The block-scaled builder's SchedulerPipelineStageCount = 3 (the blockwise one's is 2), which
# SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE passes on as TileSchedulerPipelineStageCount
SCHEDULER_STAGES = 3
# SM100_TS: struct CLCResponse { uint32_t data[4]; }
CLC_RESPONSE_BYTES = 16


class Scheduler(StrEnum):
    """The tile scheduler `TileSchedulerSelector<Tag, arch::Sm120, ...>` (TILE_SCHEDULER) picks."""

    CLC = "PersistentTileSchedulerSm100"
    """`PersistentScheduler` (and `void`) on Sm120: the CLC-based dynamic persistent scheduler."""
    STREAM_K = "PersistentTileSchedulerSm100StreamK"
    """`StreamKScheduler` on Sm120; its SharedStorage is PersistentTileSchedulerSm100's."""
    STATIC = "PersistentTileSchedulerSm90"
    """`StaticPersistentScheduler` (any arch): the static persistent scheduler."""


def scheduler_for(tag: str) -> Scheduler:
    """TILE_SCHEDULER: TileSchedulerSelector<tag, arch::Sm120, ...>::Scheduler."""
    return {
        "void": Scheduler.CLC,
        "PersistentScheduler": Scheduler.CLC,
        "StreamKScheduler": Scheduler.STREAM_K,
        "StaticPersistentScheduler": Scheduler.STATIC,
    }[tag]


def scheduler_storage(s: Scheduler, stages: int = SCHEDULER_STAGES) -> Block:
    if s is Scheduler.STATIC:
        return empty(
            "scheduler",
            f"{SM90_TILE_SCHEDULER}: PersistentTileSchedulerSm90::SharedStorage (empty)",
        )
    return struct(
        "scheduler",
        [
            array(
                "pipeline_",
                pipeline_storage(stages),
                16,
                f"{SM100_TS}: alignas(16) PipelineCLCFetchAsync<{stages}>::SharedStorage pipeline_",
            ),
            array(
                "throttle_pipeline_",
                pipeline_storage(stages),
                16,
                f"{SM100_TS}: alignas(16) PipelineAsync<{stages}>::SharedStorage throttle_pipeline_",
            ),
            array(
                "data_",
                stages * CLC_RESPONSE_BYTES,
                16,
                f"{SM100_TS}: alignas(16) CLCResponse data_[Stages = {stages}]",
            ),
        ],
        f"{SM100_TS}: PersistentTileSchedulerSm100::SharedStorage"
        + (" (PersistentTileSchedulerSm100StreamK's)" if s is Scheduler.STREAM_K else ""),
    )


def kernel_shared_storage(
    mainloop_tensors: Block,
    mainloop_pipeline: Block,
    epilogue_tensors: Block,
    epilogue_pipeline: Block,
    scheduler: Scheduler | Block,
    scheduler_stages: int = SCHEDULER_STAGES,
    pingpong: bool = False,
) -> Block:
    """`GemmKernel::SharedStorage` of SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE (SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG when `pingpong`) for the given parts: `scheduler`
    is an SM120 selector's scheduler or the laid-out TileSchedulerStorage of another arch's."""
    shell = (
        SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG
        if pingpong
        else SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE
    )
    sched = (
        scheduler_storage(scheduler, scheduler_stages)
        if isinstance(scheduler, Scheduler)
        else scheduler
    )
    barriers = [mainloop_pipeline.at("mainloop", 16), epilogue_pipeline.at("epi_load", 16)]
    if pingpong:
        barriers.append(
            array(
                "math_wg_order",
                ordered_sequence_barrier_storage(
                    PINGPONG_STAGES_PER_MATH_WARP_GROUP, PINGPONG_MMA_WARP_GROUPS
                ),
                16,
                f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: alignas(16) MathWarpGroupOrderBarrierStorage (OrderedSequenceBarrier<"
                f"{PINGPONG_STAGES_PER_MATH_WARP_GROUP},{PINGPONG_MMA_WARP_GROUPS}>)",
            )
        )
    barriers.append(
        array(
            "load_order",
            ordered_sequence_barrier_storage(1, 2),
            16,
            f"{shell}: alignas(16) OrderedSequenceBarrier<1,2>::SharedStorage ({SM90_PIPELINE}: barrier_[1][2])",
        )
    )
    pipelines = struct(
        "pipelines",
        barriers,
        f"{shell}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )
    tensors = struct(
        "tensors",
        [epilogue_tensors.at("epilogue"), mainloop_tensors.at("mainloop")],
        f"{shell}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1> {{epilogue; mainloop;}}",
        base_align=128,
    )
    return struct(
        "SharedStorage",
        [pipelines, sched.at("scheduler", 16), tensors],
        f"{shell}: GemmKernel::SharedStorage",
    )


def max_threads_per_block(
    mma_threads: int = COOPERATIVE_MMA_THREADS, pingpong: bool = False
) -> int:
    """SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE: MaxThreadsPerBlock = NumMMAThreads + NumLoadWarpGroups * NumThreadsPerWarpGroup;
    SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: NumMMAThreads * NumMmaWarpGroups + NumLoadWarpGroups * NumThreadsPerWarpGroup."""
    if pingpong:
        return (
            PINGPONG_MMA_THREADS * PINGPONG_MMA_WARP_GROUPS
            + LOAD_WARP_GROUPS * THREADS_PER_WARP_GROUP
        )
    return mma_threads + LOAD_WARP_GROUPS * THREADS_PER_WARP_GROUP


def register_plan(
    tile: Shape3, sm120_blockscaled: bool, mma_threads: int = COOPERATIVE_MMA_THREADS
) -> RegisterPlan:
    """SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE: RegsPerThread = M * N / NumMMAThreads * sizeof(float) / sizeof(uint32_t);
    HeavyRegisterPressure = IsSm120BlockScaled ? RegsPerThread >= 128 : RegsPerThread >= 208;
    LoadRegisterRequirement = heavy ? 24 : 40; MmaRegisterRequirement = heavy ? 240 : 232."""
    regs = tile.m * tile.n // mma_threads
    heavy = regs >= (128 if sm120_blockscaled else 208)
    load, mma = (24, 240) if heavy else (40, 232)
    warp_groups = mma_threads // THREADS_PER_WARP_GROUP
    return RegisterPlan(
        accumulator_registers=regs,
        reconfigured=True,
        load_warpgroup_registers=load,
        mma_warpgroup_registers=mma,
        block_registers=THREADS_PER_WARP_GROUP * (LOAD_WARP_GROUPS * load + warp_groups * mma),
        source=f"{SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE}: RegsPerThread, HeavyRegisterPressure, LoadRegisterRequirement, MmaRegisterRequirement",
    )


__all__ = [
    "BARRIER_BYTES",
    "Scheduler",
    "kernel_shared_storage",
    "max_threads_per_block",
    "register_plan",
    "scheduler_for",
    "scheduler_storage",
]
