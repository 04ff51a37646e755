"""The SM120 sparse F8F6F4 GEMM (2:4 structured-sparse A) of one problem: the builder's stage
count, the mainloop's `SharedStorage` and the asymmetric-DMA kernel shell, as CUTLASS 4.2.0 and
4.5.0 build them.

`CollectiveBuilder<Sm120, OpClassSparseTensorOp, ..., KernelScheduleSparseF8f6f4Sm120>` (SM120_SPARSE_MMA_BUILDER) sizes
stages with `sm120_compute_stage_count_or_override_sparse`: A (stored as
`sparse_elem<2, uint8_t>`, 4 bits per logical element), B (`uint8_t`), the metadata E and three
barriers per stage. When that leaves fewer than 2 stages, it buffers B over half the tile's K
("1.5 stages of B": B counted at 3/4), and with at least 2 such stages returns StagesA = that
count, StagesB = 3 and StagesE = 0 (E stays in global memory). Only that branch is modeled: it is
the one where the metadata's width does not enter (the model does not compute E's smem layout).
`CollectiveMma<MainloopSm120TmaWarpSpecializedSparse<StagesA, StagesB, StagesE, 2, ...>>` (SM120_SPARSE_MMA_TMA) and
`GemmUniversal` with the asymmetric-DMA cooperative shell (SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA) lay them out. Header paths are
relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass import sm90_cooperative
from cutlint.cutlass.headers import (
    SM90_PIPELINE,
    SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA,
    SM120_SPARSE_MMA_BUILDER,
    SM120_SPARSE_MMA_TMA,
)
from cutlint.cutlass.layout import Block, array, round_up, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    THREADS_PER_WARP_GROUP,
    cpp_div,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.records import RegisterPlan, Shape3, StageCount, StageTerm

# cutlass/arch/arch.h: sm120_smem_capacity_bytes
SM120_SMEM_CAPACITY = 101376
# SM120_SPARSE_MMA_BUILDER: SchedulerPipelineStageCount = 2
SCHEDULER_PIPELINE_STAGES = 2
# SM120_SPARSE_MMA_BUILDER: mainloop_pipeline_bytes = sizeof(cutlass::arch::ClusterBarrier) * 3
PIPELINE_BYTES = 3 * BARRIER_BYTES
# SM120_SPARSE_MMA_BUILDER: SmemAllocTypeA = sparse_elem<ElementAMma::sparsity = 2, uint8_t> (UseF8f6f4):
# sizeof_bits = 8 / 2; SmemAllocTypeB = uint8_t
A_BITS = 4
B_BITS = 8
# SM120_SPARSE_MMA_BUILDER: the 1.5-stage branch returns make_tuple(stages_b15, 3)
ASYMMETRIC_STAGES_B = 3


@dataclass(frozen=True)
class SparseStages:
    stages_a: int
    stages_b: int
    stages_e: int
    count: StageCount


def stage_count(tile: Shape3, carveout: int) -> SparseStages | str:
    """SM120_SPARSE_MMA_BUILDER: sm120_compute_stage_count_or_override_sparse(StageCountAutoCarveout<carveout>), or why
    the model does not follow the branch the builder takes."""
    a = A_BITS * tile.m * tile.k // 8
    b = B_BITS * tile.n * tile.k // 8
    budget = SM120_SMEM_CAPACITY - carveout
    # Without E's bytes the first branch's count is an upper bound: below 2, the builder takes
    # the 1.5-stage branch whatever E's width.
    if cpp_div(budget, a + b + PIPELINE_BYTES) >= 2:
        return (
            f"tile {tile}: the sparse builder may keep the metadata E in shared memory "
            "(StagesA = StagesB), whose layout is not modeled"
        )
    per_stage = (
        StageTerm(
            name="A",
            bytes=a,
            source=f"{SM120_SPARSE_MMA_BUILDER}: bits_to_bytes(a_bits * M * K), a_bits = 4",
        ),
        StageTerm(
            name="B x 3/4",
            bytes=b * 3 // 4,
            source=f"{SM120_SPARSE_MMA_BUILDER}: bits_to_bytes(b_bits * N * K) * 3 / 4 (1.5 stages of B)",
        ),
        StageTerm(
            name="pipeline",
            bytes=PIPELINE_BYTES,
            source=f"{SM120_SPARSE_MMA_BUILDER}: sizeof(cutlass::arch::ClusterBarrier) * 3",
        ),
    )
    per = sum(t.bytes for t in per_stage)
    stages = cpp_div(budget, per)
    if stages < 2:
        return f"tile {tile}: fewer than 2 stages even with 1.5 stages of B (the builder returns StagesA = StagesB = {stages}); not modeled"
    count = StageCount(
        stages=stages,
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=(),
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SM120_SPARSE_MMA_BUILDER}: sm120_compute_stage_count_or_override_sparse: (capacity - carveout) / "
        "(A + B + E + pipeline) < 2, so StagesA = (capacity - carveout) / (A + 3/4 B + "
        "pipeline), StagesB = 3, StagesE = 0",
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
    )
    return SparseStages(stages, ASYMMETRIC_STAGES_B, 0, count)


# cute/container/array_aligned.hpp: array_aligned<T, N, Alignment = 16>
ARRAY_ALIGNED = 16


def metadata_storage(e_bytes: int, source: str, derived_from: tuple[str, ...] = ()) -> Block:
    """`cute::ArrayEngine<sparse_elem<S, uint8_t>, SmemSizeE> smem_E` (cute/tensor_impl.hpp: the
    sparse_elem specialization stores `array_aligned<uint8_t, SmemSizeE / S>`): `e_bytes`
    rounded up to 16, and 16 bytes when E stays in global memory (array_aligned of no element is
    an empty struct with alignas(16))."""
    return array(
        "smem_E",
        max(round_up(e_bytes, ARRAY_ALIGNED), ARRAY_ALIGNED),
        ARRAY_ALIGNED,
        source,
        derived_from,
    )


def tensor_storage(tile: Shape3, s: SparseStages) -> Block:
    """SM120_SPARSE_MMA_TMA: TensorStorage. B is tiled over K / AsymmetricKRatio (2 when StagesA != StagesB); E's
    array has no elements (StagesE = 0) and takes 16 bytes (metadata_storage)."""
    k_b = tile.k // 2 if s.stages_a != s.stages_b else tile.k
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                s.stages_a * A_BITS * tile.m * tile.k // 8,
                1024,
                f"{SM120_SPARSE_MMA_TMA}: alignas(1024) ArrayEngine<SmemAllocTypeA (sparse_elem<2, uint8_t>), cosize_v<SmemLayoutA>> smem_A",
                ("builder.stages", "builder.term.A"),
            ),
            array(
                "smem_B",
                s.stages_b * B_BITS * tile.n * k_b // 8,
                1024,
                f"{SM120_SPARSE_MMA_TMA}: alignas(1024) ArrayEngine<uint8_t, cosize_v<SmemLayoutB>> smem_B (StagesB = {s.stages_b}, TileShapeB K = {k_b})",
            ),
            metadata_storage(
                0,
                f"{SM120_SPARSE_MMA_TMA}: ArrayEngine<ElementEMma, SmemSizeE = 0> smem_E (StagesE = 0: E in global memory)",
            ),
        ],
        f"{SM120_SPARSE_MMA_TMA}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def pipelines(s: SparseStages) -> tuple[Block, Block]:
    """SM120_SPARSE_MMA_TMA: MainloopPipelineMK = PipelineTmaAsync<StagesA>, MainloopPipelineNK = <StagesB>."""
    return (
        array(
            "mainloop_mk",
            pipeline_storage(s.stages_a),
            BARRIER_BYTES,
            f"{SM90_PIPELINE}: PipelineTmaAsync<StagesA = {s.stages_a}>::SharedStorage",
            ("builder.stages",),
        ),
        array(
            "mainloop_nk",
            pipeline_storage(s.stages_b),
            BARRIER_BYTES,
            f"{SM90_PIPELINE}: PipelineTmaAsync<StagesB = {s.stages_b}>::SharedStorage",
        ),
    )


def shared_storage(
    tensors: Block, s: SparseStages, collective: str = SM120_SPARSE_MMA_TMA
) -> Block:
    """`CollectiveMma::SharedStorage` of the sparse collective (`collective`: SM120_SPARSE_MMA_TMA
    or the block-scaled sparse one, which declares the same members) around its TensorStorage."""
    mk, nk = pipelines(s)
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            tensors.at("tensors"),
            mk.at("pipeline_storage_mk", 16),
            nk.at("pipeline_storage_nk", 16),
        ],
        f"{collective}: CollectiveMma::SharedStorage {{tensors; alignas(16) pipeline_storage_mk; alignas(16) pipeline_storage_nk;}}",
    )


def kernel_shared_storage(
    mainloop_tensors: Block,
    s: SparseStages,
    epilogue_tensors: Block,
    epilogue_pipeline: Block,
    scheduler: sm90_cooperative.Scheduler,
) -> Block:
    """SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA: GemmKernel::SharedStorage {PipelineStorage {mainloop_mk; mainloop_nk; epi_load;
    load_order;} pipelines; alignas(16) scheduler; TensorStorage {epilogue; mainloop;} tensors;}.
    (SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA also static_asserts SharedStorageSize <= sm120_smem_capacity_bytes.)"""
    mk, nk = pipelines(s)
    pipes = struct(
        "pipelines",
        [
            mk.at("mainloop_mk", 16),
            nk.at("mainloop_nk", 16),
            epilogue_pipeline.at("epi_load", 16),
            array(
                "load_order",
                ordered_sequence_barrier_storage(1, 2),
                16,
                f"{SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA}: alignas(16) LoadWarpOrderBarrier::SharedStorage (OrderedSequenceBarrier<1,2>)",
            ),
        ],
        f"{SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )
    tensors = struct(
        "tensors",
        [epilogue_tensors.at("epilogue"), mainloop_tensors.at("mainloop")],
        f"{SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1> {{epilogue; mainloop;}}",
        base_align=128,
    )
    sched = sm90_cooperative.scheduler_storage(scheduler, SCHEDULER_PIPELINE_STAGES)
    return struct(
        "SharedStorage",
        [pipes, sched.at("scheduler", 16), tensors],
        f"{SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA}: GemmKernel::SharedStorage",
    )


# SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA: LoadRegisterRequirement = 40,
# MmaRegisterRequirement = 232, whatever the tile (no HeavyRegisterPressure switch)
LOAD_REGISTERS = 40
MMA_REGISTERS = 232


def register_plan(tile: Shape3) -> RegisterPlan:
    """The asymmetric-DMA shell's setmaxnreg split: one load and two MMA warp groups."""
    mma_threads = sm90_cooperative.COOPERATIVE_MMA_THREADS
    warp_groups = mma_threads // THREADS_PER_WARP_GROUP
    return RegisterPlan(
        accumulator_registers=tile.m * tile.n // mma_threads,
        reconfigured=True,
        load_warpgroup_registers=LOAD_REGISTERS,
        mma_warpgroup_registers=MMA_REGISTERS,
        block_registers=THREADS_PER_WARP_GROUP * (LOAD_REGISTERS + warp_groups * MMA_REGISTERS),
        source=f"{SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA}: LoadRegisterRequirement = 40, MmaRegisterRequirement = 232",
    )
