"""CUTLASS's SM100 / SM103 ptr-array (grouped) kernel shells: `GemmKernel::SharedStorage` as the
compiler lays it out, the threads per block, and the tensor memory the accumulators take.

`sm100_gemm_array_tma_warpspecialized.hpp` (dense and block-scaled SM100 mainloops) and
`sm103_blockscaled_gemm_array_tma_warpspecialized.hpp` (SM103 ultra block-scaled). Both
`static_assert(SharedStorageSize <= sm100_smem_capacity_bytes)`: a tactic above the capacity
does not compile.

Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.headers import SM90_PIPELINE, SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED
from cutlint.cutlass.layout import Block, array, empty, struct
from cutlint.cutlass.sm100_mainloop import CLC_RESPONSE_BYTES
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    THREADS_PER_WARP,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.cutlass.versions import CutlassModel

KS103 = "cutlass/gemm/kernel/sm103_blockscaled_gemm_array_tma_warpspecialized.hpp"
KS_UNIVERSAL = "cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"
KS103_UNIVERSAL = "cutlass/gemm/kernel/sm103_blockscaled_gemm_tma_warpspecialized.hpp"
"""The one-problem SM103 shell (`GemmUniversal` with MainloopSm103TmaUmmaWarpSpecializedBlockScaled):
the SM100 one-problem shell's SharedStorage with an SF-load warp, three CLC stages and, for a
no-smem epilogue, neither the epilogue-load warp nor the three empty warps."""
KS_TRANSFORM = "cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized_mma_transform.hpp"
KS_ARRAY_TRANSFORM = "cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized_mma_transform.hpp"
"""The one-problem shell of the blockwise-scaled mainloop (MainloopSm100TmaUmmaWarpSpecialized
BlockwiseScaling): the accumulator pipeline is the mainloop's, an SF-load warp is added."""
SCHED = "cutlass/gemm/kernel/sm100_tile_scheduler.hpp"
GROUP_SCHED = "cutlass/gemm/kernel/sm100_tile_scheduler_group.hpp"
PL100 = "cutlass/pipeline/sm100_pipeline.hpp"

WORK_TILE_INFO_BYTES = 16
"""GROUP_SCHED: CLCResponse = WorkTileInfo of the SM90 group scheduler (int32 M_idx, N_idx,
L_idx, is_valid_tile)."""
TENSORMAP_UPDATE_INFO_BYTES = 4
"""SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED: WithTensorMapUpdateInfo<BaseResponse> adds `uint16_t batch_changed, TMA_stage`."""
TENSORMAP_UPDATER_WARPS = 4
"""SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED: NumTensorMapUpdaterThreads = IsTensorMapUpdateAsync ? NumThreadsPerWarp * 4 : 0."""
SMEM_STATIC_ASSERT: dict[str, tuple[str, str]] = {
    # CUTLASS release -> where the SM100 and the SM103 shell assert
    # `SharedStorageSize <= cutlass::arch::sm100_smem_capacity_bytes` (read from each release's
    # headers). 4.2.1 asserts at class scope (any instantiation of the kernel type); since the
    # asynchronous tensormap update it is in `operator()` (when the kernel is built for the device).
    "4.2.1": (f"{SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED}:229", f"{KS103}:236"),
    "4.4.2": (
        f"{SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED}:553 (operator())",
        f"{KS103}:518 (operator())",
    ),
    "4.5.0": (
        f"{SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED}:553 (operator())",
        f"{KS103}:518 (operator())",
    ),
}


UNIVERSAL_SMEM_STATIC_ASSERT = {
    "4.2.0": f"{KS_UNIVERSAL}:213",
    "4.2.1": f"{KS_UNIVERSAL}:213",
    "4.4.2": f"{KS_UNIVERSAL}:410 (operator())",
    "4.5.0": f"{KS_UNIVERSAL}:410 (operator())",
}
"""The one-problem SM100 shell's `static_assert(SharedStorageSize <= sm100_smem_capacity_bytes,
"SMEM usage exceeded capacity.")`, per release read: at class scope in 4.2.0, in `operator()` in
4.5.0 (fired when the kernel is built for the device, as the JIT builds it)."""


UNIVERSAL_SM103_SMEM_STATIC_ASSERT = {
    "4.2.1": f"{KS103_UNIVERSAL}:215",
    "4.4.2": f"{KS103_UNIVERSAL}:435 (operator())",
    "4.5.0": f"{KS103_UNIVERSAL}:435 (operator())",
}
"""The same assertion of the one-problem SM103 shell, per release read (class scope in 4.2.1)."""


def smem_static_assert(cutlass_label: str, sm103: bool, ptr_array: bool = True) -> str:
    """Where the shell's static_assert on SharedStorageSize is, for the CUTLASS release."""
    if not ptr_array and sm103:
        return UNIVERSAL_SM103_SMEM_STATIC_ASSERT.get(
            cutlass_label,
            f"{KS103_UNIVERSAL}: static_assert(SharedStorageSize <= sm100_smem_capacity_bytes)",
        )
    if not ptr_array:
        return UNIVERSAL_SMEM_STATIC_ASSERT.get(
            cutlass_label,
            f"{KS_UNIVERSAL}: static_assert(SharedStorageSize <= sm100_smem_capacity_bytes)",
        )
    where = SMEM_STATIC_ASSERT.get(cutlass_label)
    if where is None:
        return f"{KS103 if sm103 else SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED}: static_assert(SharedStorageSize <= sm100_smem_capacity_bytes)"
    return where[1] if sm103 else where[0]


SM100_SCHEDULER_STAGES = 8
"""The SM100 builders' SchedulerPipelineStageCount for a grouped GEMM (IsGroupGemm ? 8 : 2)."""
SM100_UNIVERSAL_SCHEDULER_STAGES = 2
"""The same for one problem (IsGroupGemm = false): 2."""
SM103_SCHEDULER_STAGES = 3
"""sm103_blockscaled_umma_builder.inl: SchedulerPipelineStageCount = 3."""
SM103_THREADS = 5 * THREADS_PER_WARP + 128 + 3 * THREADS_PER_WARP
"""KS103: MaxThreadsPerBlock = scheduler, MMA, AB-load, SF-load and epilogue-load warps, the
epilogue's 128 threads and NumEmptyThreads = 3 warps."""


@dataclass(frozen=True)
class KernelShell:
    """What of the kernel shell is not the mainloop's or the epilogue's."""

    sm103: bool
    accumulator_stages: int
    scheduler_stages: int
    epilogue_threads: int
    async_tensormap_update: bool
    """SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED since CUTLASS 4.3.0: IsTensorMapUpdateAsync (grouped, not dynamic-persistent)."""
    ptr_array: bool = True
    """False: the one-problem shell KS_UNIVERSAL (`GemmUniversal` with KernelTmaWarpSpecialized
    {1,2}SmSm100): no tensormaps, the CLC scheduler PersistentTileSchedulerSm100[StreamK]."""
    mma_transform: bool = False
    """The shell of the blockwise-scaled mainloops: KS_TRANSFORM, or KS_ARRAY_TRANSFORM grouped
    (one tensormap set, no asynchronous tensormap update)."""
    no_smem_epilogue: bool = False
    """KS103_UNIVERSAL: IsNoSmemEpilogue (the epilogue's DispatchPolicy is Sm100NoSmem): no
    epilogue-load and empty warps, no setmaxnreg."""

    @property
    def header(self) -> str:
        if self.mma_transform:
            return KS_ARRAY_TRANSFORM if self.ptr_array else KS_TRANSFORM
        if not self.ptr_array:
            return KS103_UNIVERSAL if self.sm103 else KS_UNIVERSAL
        return KS103 if self.sm103 else SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED

    @property
    def tensormap_sets(self) -> int:
        """`tensormaps[(NumTensorMapUpdaterThreads / NumThreadsPerWarp) + 1]`."""
        return TENSORMAP_UPDATER_WARPS + 1 if self.async_tensormap_update else 1


def shell(
    sm103: bool,
    accumulator_stages: int,
    cutlass: CutlassModel,
    ptr_array: bool = True,
    scheduler_stages: int | None = None,
    mma_transform: bool = False,
    no_smem_epilogue: bool = False,
) -> KernelShell:
    """The shell of a kernel; `scheduler_stages`: the builder's SchedulerPipelineStageCount where
    it is not the shell's usual one (the blockwise builder's AccumulatorPipelineStageCount + 1);
    `no_smem_epilogue`: the one-problem SM103 shell's IsNoSmemEpilogue."""
    if mma_transform:
        return KernelShell(
            sm103=False,
            accumulator_stages=accumulator_stages,
            scheduler_stages=scheduler_stages or accumulator_stages + 1,
            epilogue_threads=128,
            async_tensormap_update=False,
            ptr_array=ptr_array,
            mma_transform=True,
        )
    if not ptr_array:
        return KernelShell(
            sm103=sm103,
            accumulator_stages=accumulator_stages,
            scheduler_stages=SM103_SCHEDULER_STAGES if sm103 else SM100_UNIVERSAL_SCHEDULER_STAGES,
            epilogue_threads=128,
            async_tensormap_update=False,
            ptr_array=False,
            no_smem_epilogue=sm103 and no_smem_epilogue,
        )
    return KernelShell(
        sm103=sm103,
        accumulator_stages=accumulator_stages,
        scheduler_stages=SM103_SCHEDULER_STAGES if sm103 else SM100_SCHEDULER_STAGES,
        epilogue_threads=128,
        async_tensormap_update=not sm103 and cutlass.has("sm100_async_tensormap_update"),
    )


def max_threads_per_block(k: KernelShell) -> int:
    """SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED: MaxThreadsPerBlock = NumSchedThreads + NumTensorMapUpdaterThreads +
    NumMainloopLoadThreads + NumMMAThreads + NumEpilogueLoadThreads + NumEpilogueThreads (one
    warp each but the epilogue's 128 threads and the four tensormap-updater warps); the SM103
    shell: SM103_THREADS, or its one-problem shell's with a no-smem epilogue (KS103_UNIVERSAL:
    NumEpilogueLoadThreads = NumEmptyThreads = 0)."""
    if k.sm103 and k.no_smem_epilogue:
        return 4 * THREADS_PER_WARP + k.epilogue_threads
    if k.sm103:
        return SM103_THREADS
    if k.mma_transform:
        # KS_TRANSFORM: round_up(scheduler, AB-load, MMA, epilogue-load, SF-load warps + the
        # epilogue's threads, 128)
        return -(-(5 * THREADS_PER_WARP + k.epilogue_threads) // 128) * 128
    updaters = TENSORMAP_UPDATER_WARPS * THREADS_PER_WARP if k.async_tensormap_update else 0
    return 4 * THREADS_PER_WARP + updaters + k.epilogue_threads


GENERIC_REGISTERS = 136
"""SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED: GenericRegisterRequirement (warpgroup_reg_dealloc of the non-epilogue warp groups)."""
ACCUM_REGISTERS = 232
"""SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED: AccumRegisterRequirement (warpgroup_reg_alloc of the epilogue warp group)."""
SM103_NON_EPILOGUE_REGISTERS = 128
"""KS103: NonEpilogueWarpRegs."""
SM103_EPILOGUE_REGISTERS = 248
"""KS103: EpilogueWarpRegs."""


def register_split(k: KernelShell) -> tuple[int, int, int, str] | None:
    """(registers of each non-epilogue warp group, of the epilogue warp group, of the block, the
    source) where the shell calls setmaxnreg; None where it does not (the SM100 shell before the
    asynchronous tensormap update reconfigures nothing)."""
    warp_groups = max_threads_per_block(k) // (4 * THREADS_PER_WARP)
    if k.no_smem_epilogue:
        return None  # KS103_UNIVERSAL: set_warpgroup_reg_{dealloc,alloc} skip a no-smem epilogue
    if k.sm103:
        other, epilogue = SM103_NON_EPILOGUE_REGISTERS, SM103_EPILOGUE_REGISTERS
        source = f"{KS103}: NonEpilogueWarpRegs, EpilogueWarpRegs"
    elif k.async_tensormap_update:
        other, epilogue = GENERIC_REGISTERS, ACCUM_REGISTERS
        source = f"{SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED}: GenericRegisterRequirement, AccumRegisterRequirement (IsTensorMapUpdateAsync)"
    else:
        return None
    block = 4 * THREADS_PER_WARP * (other * (warp_groups - 1) + epilogue)
    return other, epilogue, block, source


def pipelines(k: KernelShell, mainloop_pipeline: Block, epi_load_pipeline: Block) -> Block:
    """`SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>`, every member alignas(16)."""
    h = k.header
    stages = k.scheduler_stages
    members = [
        mainloop_pipeline.at("mainloop", 16),
        epi_load_pipeline.at("epi_load", 16),
        array(
            "load_order",
            ordered_sequence_barrier_storage(1, 2),
            16,
            f"{h}: alignas(16) OrderedSequenceBarrier<1,2>::SharedStorage",
        ),
        array(
            "clc",
            pipeline_storage(stages),
            16,
            f"{h}: alignas(16) CLCPipeline::SharedStorage = PipelineAsync<{stages}> (group scheduler: not dynamic-persistent)"
            if k.ptr_array
            else f"{h}: alignas(16) CLCPipeline::SharedStorage = PipelineCLCFetchAsync<{stages}, ClusterShape> ({PL100}: full/empty barriers)",
        ),
        *(
            []
            if k.mma_transform
            else [
                array(
                    "accumulator",
                    pipeline_storage(k.accumulator_stages),
                    16,
                    f"{h}: alignas(16) PipelineUmmaAsync<AccumulatorPipelineStageCount = {k.accumulator_stages}>::SharedStorage",
                    ("builder.accumulator_stages",),
                )
            ]
        ),
        empty(
            "clc_throttle",
            f"{h}: alignas(16) CLCThrottlePipeline::SharedStorage = PipelineEmpty ({PL100}: empty struct)",
        ).at("clc_throttle", 16)
        if k.ptr_array
        else array(
            "clc_throttle",
            pipeline_storage(stages),
            16,
            f"{h}: alignas(16) CLCThrottlePipeline::SharedStorage = PipelineAsync<{stages}> ({SM90_PIPELINE})",
        ),
        array(
            "tmem_dealloc",
            BARRIER_BYTES,
            8 if k.sm103 else 16,
            f"{h}: alignas({8 if k.sm103 else 16}) arch::ClusterBarrier tmem_dealloc",
        ),
    ]
    if k.mma_transform:
        members.append(
            array(
                "epilogue_throttle",
                BARRIER_BYTES,
                16,
                f"{h}: alignas(16) arch::ClusterBarrier epilogue_throttle",
            )
        )
    if k.async_tensormap_update:
        members.append(
            array(
                "tensor_map_ready",
                pipeline_storage(stages),
                16,
                f"{h}: alignas(16) TensorMapReadyPipeline::SharedStorage = PipelineAsync<{stages}> ({SM90_PIPELINE})",
            )
        )
    return struct(
        "pipelines",
        members,
        f"{h}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )


def clc_responses(k: KernelShell) -> Block:
    stages = k.scheduler_stages
    if not k.ptr_array:
        return array(
            "clc_response",
            stages * CLC_RESPONSE_BYTES,
            16,
            f"{k.header}: alignas(16) TileScheduler::CLCResponse clc_response[{stages}] "
            f"({SCHED}: PersistentTileSchedulerSm100::CLCResponse {{ uint32_t data[4]; }}, also "
            "the stream-K scheduler's)",
        )
    if k.async_tensormap_update:
        return array(
            "clc_response",
            2 * stages * (WORK_TILE_INFO_BYTES + TENSORMAP_UPDATE_INFO_BYTES),
            16,
            f"{k.header}: alignas(16) WithTensorMapUpdateInfo<CLCResponse> clc_response[2][{stages}] "
            f"({GROUP_SCHED}: WorkTileInfo, 16 B, + 2 x uint16_t)",
        )
    return array(
        "clc_response",
        stages * WORK_TILE_INFO_BYTES,
        16,
        f"{k.header}: alignas(16) CLCResponse clc_response[{stages}] ({GROUP_SCHED}: WorkTileInfo, 16 B)",
    )


def tensormap_sets(k: KernelShell, epilogue_maps: Block, mainloop_maps: Block) -> Block:
    """`struct TensorMapStorage : aligned_struct<128, _1> { alignas(128) epilogue; alignas(128)
    mainloop; } tensormaps[N]`."""
    one = struct(
        "tensormaps",
        [epilogue_maps.at("epilogue", 128), mainloop_maps.at("mainloop", 128)],
        f"{k.header}: SharedStorage::TensorMapStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )
    if k.tensormap_sets == 1:
        return one
    return array(
        "tensormaps",
        one.size * k.tensormap_sets,
        one.align,
        f"{k.header}: TensorMapStorage tensormaps[NumTensorMapUpdaterThreads / 32 + 1 = "
        f"{k.tensormap_sets}] ({one.size} B each: the epilogue's and the mainloop's descriptors)",
        ("input.cutlass",),
    )


def tensor_storage(k: KernelShell, mainloop_tensors: Block, epilogue_tensors: Block) -> Block:
    """`SharedStorage::TensorStorage : cute::aligned_struct<128, _1> { epilogue; mainloop; }`."""
    return struct(
        "tensors",
        [epilogue_tensors.at("epilogue"), mainloop_tensors.at("mainloop")],
        f"{k.header}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1>",
        base_align=128,
    )


def shared_storage_members(
    k: KernelShell,
    mainloop_tensors: Block,
    mainloop_maps: Block,
    mainloop_pipeline: Block,
    epilogue_tensors: Block,
    epilogue_maps: Block,
    epi_load_pipeline: Block,
) -> list[Block]:
    """The members of `GemmKernel::SharedStorage`, in order: pipelines, CLC responses, the TMEM
    base pointer, the tensormaps (ptr-array only), then the tensors (epilogue first)."""
    if not k.ptr_array:
        return [
            pipelines(k, mainloop_pipeline, epi_load_pipeline),
            clc_responses(k),
            array("tmem_base_ptr", 4, 4, f"{k.header}: uint32_t tmem_base_ptr"),
            tensor_storage(k, mainloop_tensors, epilogue_tensors),
        ]
    return [
        pipelines(k, mainloop_pipeline, epi_load_pipeline),
        clc_responses(k),
        array("tmem_base_ptr", 4, 4, f"{k.header}: uint32_t tmem_base_ptr"),
        tensormap_sets(k, epilogue_maps, mainloop_maps),
        tensor_storage(k, mainloop_tensors, epilogue_tensors),
    ]


def shared_storage(members: list[Block], k: KernelShell) -> Block:
    """`GemmKernel::SharedStorage` from shared_storage_members."""
    return struct("SharedStorage", members, f"{k.header}: GemmKernel::SharedStorage")
