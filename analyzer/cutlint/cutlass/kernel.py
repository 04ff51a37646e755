"""The SM90 ptr-array (grouped) TMA warp-specialized kernel shells: `GemmKernel::SharedStorage`,
threads and the setmaxnreg register split.

`cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp` (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE) is the shell of the
SM90 grouped GEMMs with a cooperative schedule and of the SM120 block-scaled grouped GEMMs;
`..._pingpong.hpp` (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG) differs in one member (the math warp groups' order barrier):

    struct SharedStorage {
      struct TensorStorage : aligned_struct<128, _1> { mainloop; epilogue; } tensors;
      struct PipelineStorage : aligned_struct<16, _1> {
        alignas(16) scheduler; alignas(16) mainloop; alignas(16) epi_load;
        alignas(16) load_order;            // OrderedSequenceBarrier<1,2>
        alignas(16) math_wg_order;         // pingpong only: OrderedSequenceBarrier<2,2>
      } pipelines;
      alignas(16) TileSchedulerResponse scheduler_response[TileSchedulerStages];
      struct TensorMapStorage : aligned_struct<128, _1> {
        alignas(128) mainloop; alignas(128) epilogue;
      } tensormaps;
    };

The layout is unchanged between CUTLASS 4.2.1 and 4.5.0.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass import scheduler
from cutlint.cutlass.headers import (
    EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE_PRECOMPUTED,
    EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG_PRECOMPUTED,
    SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE,
    SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG,
    SM90_PIPELINE,
)
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import THREADS_PER_WARP_GROUP, ordered_sequence_barrier_storage
from cutlint.records import RegisterPlan

# TensorRT-LLM (FlashInfer's csrc/nv_internal/tensorrt_llm/cutlass_extensions/include/)

# SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG: NumLoadWarpGroups = 1 (one producer warp group: mainloop and epilogue loads)
NUM_LOAD_WARP_GROUPS = 1
# SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG: LoadRegisterRequirement = 40, MmaRegisterRequirement = 232
# (warpgroup_reg_dealloc / warpgroup_reg_alloc, i.e. setmaxnreg)
LOAD_WARPGROUP_REGISTERS = 40
MMA_WARPGROUP_REGISTERS = 232
# SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG: NumMmaWarpGroups = 2, StagesPerMathWarpGroup = 2 ("one for Mainloop and one for Epilogue"):
# MathWarpGroupOrderBarrier = OrderedSequenceBarrier<StagesPerMathWarpGroup, NumMmaWarpGroups>
PINGPONG_MMA_WARP_GROUPS = 2
PINGPONG_STAGES_PER_MATH_WARP_GROUP = 2


@dataclass(frozen=True)
class ShellParts:
    """What the collectives put into the kernel's SharedStorage (each a laid-out Block)."""

    mainloop_tensors: Block
    """CollectiveMainloop::TensorStorage"""
    epilogue_tensors: Block
    """CollectiveEpilogue::TensorStorage"""
    mainloop_pipeline: Block
    """CollectiveMainloop::PipelineStorage"""
    epilogue_pipeline: Block
    """CollectiveEpilogue::PipelineStorage (the epi_load pipeline)"""
    mainloop_tensormaps: Block
    """CollectiveMainloop::TensorMapStorage"""
    epilogue_tensormaps: Block
    """CollectiveEpilogue::TensorMapStorage"""


def ptr_array_shared_storage(
    parts: ShellParts, pingpong: bool = False, precomputed: bool = False
) -> Block:
    """`GemmKernel::SharedStorage` of the cooperative (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE) or pingpong (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG) ptr-array shell.

    `precomputed`: TensorRT-LLM's copies of these shells with a precomputed work-tile scheduler
    (GemmUniversalPrecomputedScheduler: EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE_PRECOMPUTED, EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG_PRECOMPUTED), the same members without the scheduler
    pipeline and the scheduler responses."""
    shell = (
        (
            EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG_PRECOMPUTED
            if pingpong
            else EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE_PRECOMPUTED
        )
        if precomputed
        else (
            SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG
            if pingpong
            else SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE
        )
    )
    tensors = struct(
        "tensors",
        [parts.mainloop_tensors.at("mainloop"), parts.epilogue_tensors.at("epilogue")],
        f"{shell}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    barriers = [
        *(() if precomputed else (scheduler.pipeline(),)),
        parts.mainloop_pipeline.at("mainloop", 16),
        parts.epilogue_pipeline.at("epi_load", 16),
        array(
            "load_order",
            ordered_sequence_barrier_storage(1, 2),
            16,
            f"{shell}: alignas(16) LoadWarpOrderBarrier::SharedStorage "
            f"(OrderedSequenceBarrier<1,2>, {SM90_PIPELINE}: barrier_[1][2])",
        ),
    ]
    if pingpong:
        barriers.append(
            array(
                "math_wg_order",
                ordered_sequence_barrier_storage(
                    PINGPONG_STAGES_PER_MATH_WARP_GROUP, PINGPONG_MMA_WARP_GROUPS
                ),
                16,
                f"{shell}: alignas(16) MathWarpGroupOrderBarrierSharedStorage "
                f"(OrderedSequenceBarrier<{PINGPONG_STAGES_PER_MATH_WARP_GROUP},"
                f"{PINGPONG_MMA_WARP_GROUPS}>)",
            )
        )
    pipelines = struct(
        "pipelines",
        barriers,
        f"{shell}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )
    tensormaps = struct(
        "tensormaps",
        [
            parts.mainloop_tensormaps.at("mainloop", 128),
            parts.epilogue_tensormaps.at("epilogue", 128),
        ],
        f"{shell}: SharedStorage::TensorMapStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    return struct(
        "SharedStorage",
        [tensors, pipelines, *(() if precomputed else (scheduler.responses(),)), tensormaps],
        f"{shell}: GemmKernel::SharedStorage",
    )


def max_threads_per_block(mma_threads: int, pingpong: bool = False) -> int:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: MaxThreadsPerBlock = NumMmaThreads + NumLoadWarpGroups * NumThreadsPerWarpGroup, with
    NumMmaThreads = size(TiledMma); SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG: size(TiledMma) + NumMmaWarpGroups * 128 (two MMA warp
    groups, each running the one-warp-group TiledMma, plus the load warp group)."""
    if pingpong:
        return mma_threads + PINGPONG_MMA_WARP_GROUPS * THREADS_PER_WARP_GROUP
    return mma_threads + NUM_LOAD_WARP_GROUPS * THREADS_PER_WARP_GROUP


def regs_per_thread(tile_m: int, tile_n: int, mma_threads: int) -> int:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: RegsPerThread = 2 * M * N / NumMmaThreads * sizeof(float) / sizeof(uint32_t), what
    `IsLowRegisterPressure` compares with 64 (RegisterPlan.accumulator_registers)."""
    return 2 * tile_m * tile_n // mma_threads


def register_plan(
    tile_m: int, tile_n: int, mma_threads: int, low_register_pressure: bool, mma_warp_groups: int
) -> RegisterPlan:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: RegsPerThread = 2 * M * N / NumMmaThreads * sizeof(float) / sizeof(uint32_t) (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG: over
    NumMmaWarpGroups * 128 threads, i.e. pass 256 for both shells); the load
    warp group drops to 40 registers and the MMA warp groups rise to 232, unless the kernel keeps
    the compiler's allocation (`IsLowRegisterPressure`: SM120 block-scaled, CUTLASS >= 4.5.0, at
    most 64 accumulator registers)."""
    accumulators = regs_per_thread(tile_m, tile_n, mma_threads)
    if low_register_pressure:
        return RegisterPlan(
            accumulator_registers=accumulators,
            reconfigured=False,
            load_warpgroup_registers=None,
            mma_warpgroup_registers=None,
            block_registers=None,
            source=f"{SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE}: IsLowRegisterPressure, RegsPerThread",
        )
    return RegisterPlan(
        accumulator_registers=accumulators,
        reconfigured=True,
        load_warpgroup_registers=LOAD_WARPGROUP_REGISTERS,
        mma_warpgroup_registers=MMA_WARPGROUP_REGISTERS,
        block_registers=THREADS_PER_WARP_GROUP
        * (
            NUM_LOAD_WARP_GROUPS * LOAD_WARPGROUP_REGISTERS
            + mma_warp_groups * MMA_WARPGROUP_REGISTERS
        ),
        source=f"{SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE}: LoadRegisterRequirement, MmaRegisterRequirement, RegsPerThread",
    )
