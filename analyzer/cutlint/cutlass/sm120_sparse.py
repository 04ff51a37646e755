"""The SM120 sparse F8F6F4 GEMM (2:4 structured-sparse A) of one problem: the builder's stage
count, the mainloop's `SharedStorage` and the asymmetric-DMA kernel shell, as CUTLASS 4.2.0 and
4.5.0 build them.

`CollectiveBuilder<Sm120, OpClassSparseTensorOp, ..., KernelScheduleSparseF8f6f4Sm120>` (SM120_SPARSE_MMA_BUILDER) sizes
stages with `sm120_compute_stage_count_or_override_sparse`: A (stored as
`sparse_elem<2, uint8_t>`, 4 bits per logical element), B (`uint8_t`), the metadata E and three
barriers per stage. With at least 2 such stages it returns StagesA = StagesB = StagesE (E,
`sparse_elem<8, uint8_t>`, 1 bit a logical element, in shared memory). When that leaves fewer
than 2 stages, it buffers B over half the tile's K ("1.5 stages of B": B counted at 3/4), and with
at least 2 such stages returns StagesA = that count, StagesB = 3 and StagesE = 0 (E stays in
global memory).
`CollectiveMma<MainloopSm120TmaWarpSpecializedSparse<StagesA, StagesB, StagesE, 2, ...>>` (SM120_SPARSE_MMA_TMA) and
`GemmUniversal` with the asymmetric-DMA cooperative shell (SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA) lay them out. Header paths are
relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass import sm90_cooperative
from cutlint.cutlass.headers import (
    SM1XX_SPARSE_CONFIG,
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
# cute/atom/mma_traits_sm120_sparse.hpp: SM120_SPARSE_16x8x64_TN: ValTypeE = sparse_elem<8,
# uint8_t> (1 bit of metadata a logical element of A); SM1XX_SPARSE_CONFIG:
# TensorEAtom_MMA_S8orF8F6F4 = Layout<Shape<_128, _128>>
E_SPARSITY = 8
E_ATOM_M = 128
E_ATOM_K = 128


@dataclass(frozen=True)
class SparseStages:
    stages_a: int
    stages_b: int
    stages_e: int
    count: StageCount


def _term(name: str, n: int, what: str) -> StageTerm:
    return StageTerm(name=name, bytes=n, source=f"{SM120_SPARSE_MMA_BUILDER}: {what}")


def stage_count(tile: Shape3, carveout: int) -> SparseStages | str:
    """SM120_SPARSE_MMA_BUILDER: sm120_compute_stage_count_or_override_sparse(StageCountAutoCarveout<carveout>), or why
    the model does not lay the kernel out. With at least 2 stages of A + B + E + pipeline the
    builder returns StagesA = StagesB (StagesE = StagesA: E in shared memory); otherwise the
    1.5-stages-of-B branch."""
    if tile.m % E_ATOM_M or tile.k % E_ATOM_K:
        return f"tile {tile}: the model covers M and K multiples of {E_ATOM_M} (the metadata's TensorEAtom, {SM1XX_SPARSE_CONFIG})"
    a = A_BITS * tile.m * tile.k // 8
    b = B_BITS * tile.n * tile.k // 8
    e = tile.m * tile.k // E_SPARSITY
    budget = SM120_SMEM_CAPACITY - carveout
    a_term = _term("A", a, "bits_to_bytes(a_bits * M * K), a_bits = 4")
    pipe = _term("pipeline", PIPELINE_BYTES, "sizeof(cutlass::arch::ClusterBarrier) * 3")
    full = (
        a_term,
        _term("B", b, "bits_to_bytes(b_bits * N * K), b_bits = 8"),
        _term("E", e, f"bits_to_bytes(e_bits * M * K), e_bits = 8 / {E_SPARSITY}"),
        pipe,
    )
    stages = cpp_div(budget, sum(t.bytes for t in full))
    formula = f"{SM120_SPARSE_MMA_BUILDER}: sm120_compute_stage_count_or_override_sparse: "
    if stages >= 2:
        return SparseStages(
            stages,
            stages,
            stages,
            count_record(
                stages,
                budget,
                carveout,
                full,
                formula + "(capacity - carveout) / (A + B + E + pipeline) >= 2: StagesA = "
                "StagesB = StagesE, E in shared memory",
            ),
        )
    b15 = (
        a_term,
        _term("B x 3/4", b * 3 // 4, "bits_to_bytes(b_bits * N * K) * 3 / 4 (1.5 stages of B)"),
        pipe,
    )
    stages = cpp_div(budget, sum(t.bytes for t in b15))
    if stages < 2:
        return f"tile {tile}: fewer than 2 stages even with 1.5 stages of B (the builder returns StagesA = StagesB = {stages}); not modeled"
    count = count_record(
        stages,
        budget,
        carveout,
        b15,
        formula + "(capacity - carveout) / (A + B + E + pipeline) < 2, so StagesA = (capacity - "
        "carveout) / (A + 3/4 B + pipeline), StagesB = 3, StagesE = 0",
    )
    return SparseStages(stages, ASYMMETRIC_STAGES_B, 0, count)


def count_record(
    stages: int, budget: int, carveout: int, terms: tuple[StageTerm, ...], formula: str
) -> StageCount:
    return StageCount(
        stages=stages,
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=(),
        per_stage=terms,
        stage_bytes=sum(t.bytes for t in terms),
        formula=formula,
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
    )


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
    """SM120_SPARSE_MMA_TMA: TensorStorage. B is tiled over K / AsymmetricKRatio (2 when StagesA != StagesB); E has
    StagesE stages (none, and 16 bytes, when it stays in global memory: metadata_storage)."""
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
                ("builder.stages", "builder.term.B") if k_b == tile.k else (),
            ),
            metadata_storage(
                s.stages_e * tile.m * tile.k // E_SPARSITY,
                f"{SM120_SPARSE_MMA_TMA}: ArrayEngine<ElementEMma (sparse_elem<{E_SPARSITY}, uint8_t>), SmemSizeE> smem_E (StagesE = {s.stages_e}; 0: E in global memory)",
                ("builder.stages", "builder.term.E") if s.stages_e else (),
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
