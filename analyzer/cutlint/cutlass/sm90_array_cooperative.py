"""The SM90 ptr-array (grouped) cooperative kernel shell, for the families that build
`GemmUniversal<GroupProblemShape<...>, ...>` with a `KernelPtrArrayTmaWarpSpecializedCooperative*`
schedule (the SM120 JIT grouped GEMMs).

The shell's facts live once, in cutlint.cutlass.kernel (both ptr-array shells: SharedStorage,
threads, the setmaxnreg split) and cutlint.cutlass.scheduler (the grouped tile scheduler); this
module keeps the call shape its families use.
"""

from __future__ import annotations

from cutlint.cutlass import kernel, scheduler
from cutlint.cutlass.layout import Block
from cutlint.cutlass.storage import THREADS_PER_WARP_GROUP
from cutlint.records import RegisterPlan, Shape3

TILE_SCHEDULER_STAGES = scheduler.TILE_SCHEDULER_STAGES
SCHEDULER_RESPONSE_BYTES = scheduler.WORK_TILE_INFO_BYTES
# cutlass/gemm/collective/builders/sm120_*_builder.inl: AtomLayoutMNK = Layout<Shape<_4,_2,_1>>
# for a cooperative schedule: 8 MMA warps (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: NumMmaThreads = size(TiledMma{}))
COOPERATIVE_MMA_THREADS = 8 * 32
LOAD_WARP_GROUPS = kernel.NUM_LOAD_WARP_GROUPS
# SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: IsLowRegisterPressure = IsSm120BlockScaled<DispatchPolicy> && RegsPerThread <= 64
LOW_REGISTER_PRESSURE_MAX = 64


def kernel_shared_storage(
    mainloop_tensors: Block,
    mainloop_pipeline: Block,
    mainloop_tensormaps: Block,
    epilogue_tensors: Block,
    epilogue_pipeline: Block,
    epilogue_tensormaps: Block,
) -> Block:
    """`GemmKernel::SharedStorage` of the cooperative ptr-array shell (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE)."""
    return kernel.ptr_array_shared_storage(
        kernel.ShellParts(
            mainloop_tensors=mainloop_tensors,
            epilogue_tensors=epilogue_tensors,
            mainloop_pipeline=mainloop_pipeline,
            epilogue_pipeline=epilogue_pipeline,
            mainloop_tensormaps=mainloop_tensormaps,
            epilogue_tensormaps=epilogue_tensormaps,
        )
    )


def max_threads_per_block(mma_threads: int = COOPERATIVE_MMA_THREADS) -> int:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: MaxThreadsPerBlock = NumMmaThreads + NumLoadWarpGroups * NumThreadsPerWarpGroup."""
    return kernel.max_threads_per_block(mma_threads)


def register_plan(
    tile: Shape3, sm120_blockscaled: bool, mma_threads: int = COOPERATIVE_MMA_THREADS
) -> RegisterPlan:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: 40 / 232 registers (LoadRegisterRequirement, MmaRegisterRequirement), unless
    IsLowRegisterPressure: an SM120 block-scaled mainloop with RegsPerThread <= 64."""
    low = (
        sm120_blockscaled
        and kernel.regs_per_thread(tile.m, tile.n, mma_threads) <= LOW_REGISTER_PRESSURE_MAX
    )
    return kernel.register_plan(
        tile.m,
        tile.n,
        mma_threads,
        low_register_pressure=low,
        mma_warp_groups=mma_threads // THREADS_PER_WARP_GROUP,
    )
