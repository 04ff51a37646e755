"""The SM90 single-problem `GemmUniversal` kernel shells that a CollectiveBuilder mainloop selects
by its schedule (`GemmUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue,
TileScheduler>`, `cutlass/gemm/kernel/gemm_universal.hpp`), and the mainloop storage they hold.

    KernelTmaWarpSpecializedCooperative[FP8FastAccum]  sm90_gemm_tma_warpspecialized_cooperative.hpp
    KernelTmaWarpSpecializedPingpong[FP8FastAccum]     sm90_gemm_tma_warpspecialized_pingpong.hpp
    KernelTmaWarpSpecialized[FP8FastAccum]             sm90_gemm_tma_warpspecialized.hpp
    KernelCpAsyncWarpSpecializedCooperative            sm90_gemm_warpspecialized_cooperative.hpp
    KernelCpAsyncWarpSpecialized                       sm90_gemm_warpspecialized.hpp

Their `SharedStorage` (headers under `cutlass/gemm/kernel/`; the cooperative TMA shell is laid out
by cutlint.cutlass.sm90_cooperative, which the SM120 cooperative kernels share):

    TMA cooperative: { PipelineStorage : aligned_struct<16> { alignas(16) mainloop, epi_load,
                       load_order } pipelines; alignas(16) TileSchedulerStorage scheduler;
                       TensorStorage : aligned_struct<128> { epilogue; mainloop; } tensors; }
    TMA pingpong:    the same, with alignas(16) math_wg_order between epi_load and load_order
    TMA basic:       { union { mainloop; epilogue; } tensors;
                       PipelineStorage : aligned_struct<16> { alignas(16) mainloop, epi_load } }
    cp.async coop.:  { TensorStorage : aligned_struct<128> { mainloop; epilogue; } tensors;
                       PipelineStorage : aligned_struct<16> { alignas(16) mainloop, epi_load } }
    cp.async basic:  the TMA basic layout

Unchanged between CUTLASS 4.2.0 and 4.5.0.
"""

from __future__ import annotations

from enum import StrEnum

from cutlint.cutlass import sm90_cooperative
from cutlint.cutlass.epilogue import swizzle_align
from cutlint.cutlass.headers import (
    SM90_GEMM_TMA_WARPSPECIALIZED,
    SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE,
    SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG,
    SM90_GEMM_WARPSPECIALIZED,
    SM90_GEMM_WARPSPECIALIZED_COOPERATIVE,
    SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
    SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED,
    SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED,
    SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED,
    SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
    SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED,
    SM90_PIPELINE,
    SM90_TILE_SCHEDULER,
    SM90_TILE_SCHEDULER_STREAM_K,
)
from cutlint.cutlass.layout import Block, array, empty, struct, union
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    THREADS_PER_WARP_GROUP,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    ordered_sequence_barrier_storage,
    pipeline_storage,
)
from cutlint.records import RegisterPlan, Shape3

# SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED: TensorStorage : aligned_struct<256, _0> { array_aligned<..., 256> smem_A, smem_B; }
CP_ASYNC_RS_ALIGN = 256
# cutlass/gemm/collective/builders/sm90_common.inl (rs_smem_selector): an MN-major whole-word
# operand's Layout_MN_SW32_Atom, alignment_for_swizzle = 1 << (2 + 4 + 2) = 256
MN_MAJOR_WHOLE_WORD_RS_ALIGN = 256

# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED = 16
# SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: NumMmaWarpGroups = 2, StagesPerMathWarpGroup = 2:
# MathWarpGroupOrderBarrier = OrderedSequenceBarrier<StagesPerMathWarpGroup, NumMmaWarpGroups>
PINGPONG_MMA_WARP_GROUPS = 2
PINGPONG_STAGES_PER_MATH_WARP_GROUP = 2
# SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: NumLoadWarpGroups = 1
LOAD_WARP_GROUPS = 1
# SM90_GMMA_BUILDER (GMMA_CpAsync_WS_SS): NumLoadWarpGroups = is_same_v<KernelScheduleType,
# KernelCpAsyncWarpSpecialized> ? 2 : 1 (the shells take size(GmemTiledCopyA) / 128)
CP_ASYNC_BASIC_LOAD_WARP_GROUPS = 2
CP_ASYNC_COOPERATIVE_LOAD_WARP_GROUPS = 1
# SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: HeavyRegisterPressure = RegsPerThread >= 208; Load/MmaRegisterRequirement 40/232, or
# 24/240 under heavy pressure
HEAVY_REGISTERS = 208


class Shell(StrEnum):
    """The kernel shell GemmUniversal picks for the mainloop's schedule."""

    TMA_COOPERATIVE = "tma-cooperative"
    TMA_PINGPONG = "tma-pingpong"
    TMA_BASIC = "tma-warpspecialized"
    CP_ASYNC_COOPERATIVE = "cpasync-cooperative"
    CP_ASYNC_BASIC = "cpasync-warpspecialized"

    @property
    def header(self) -> str:
        return {
            Shell.TMA_COOPERATIVE: SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE,
            Shell.TMA_PINGPONG: SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG,
            Shell.TMA_BASIC: SM90_GEMM_TMA_WARPSPECIALIZED,
            Shell.CP_ASYNC_COOPERATIVE: SM90_GEMM_WARPSPECIALIZED_COOPERATIVE,
            Shell.CP_ASYNC_BASIC: SM90_GEMM_WARPSPECIALIZED,
        }[self]

    @property
    def tma(self) -> bool:
        return self in (Shell.TMA_COOPERATIVE, Shell.TMA_PINGPONG, Shell.TMA_BASIC)


class Sm90Scheduler(StrEnum):
    """`TileSchedulerSelector<Tag, arch::Sm90, ...>` (cutlass/gemm/kernel/tile_scheduler.hpp)."""

    PERSISTENT = "PersistentTileSchedulerSm90"
    """`void` and `PersistentScheduler`."""
    STREAM_K = "PersistentTileSchedulerSm90StreamK"
    """`StreamKScheduler`."""


def scheduler_storage(s: Sm90Scheduler) -> Block:
    """Both SM90 schedulers declare `class SharedStorage` with member functions only: empty."""
    header = SM90_TILE_SCHEDULER_STREAM_K if s is Sm90Scheduler.STREAM_K else SM90_TILE_SCHEDULER
    return empty("scheduler", f"{header}: {s.value}::SharedStorage (no data members)")


# --- the mainloop ------------------------------------------------------------------------------


def mainloop_tensor_storage(
    a_bits: int, b_bits: int, tile: Shape3, stages: int, cp_async: bool
) -> Block:
    """`CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>` of the TMA
    (SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED) or cp.async (SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED) SS mainloop: smem_A and smem_B, `array_aligned` of M x K x Stages and
    N x K x Stages elements (SmemLayoutA/B tile a GMMA layout atom that divides the tile)."""
    src = (
        SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED
        if cp_async
        else SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED
    )
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k * a_bits // 8,
                ARRAY_ALIGNED,
                f"{src}: cute::array_aligned<ValTypeA, cosize_v<SmemLayoutA>> smem_A "
                f"(M x K x Stages = {tile.m} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * b_bits // 8,
                ARRAY_ALIGNED,
                f"{src}: cute::array_aligned<ValTypeB, cosize_v<SmemLayoutB>> smem_B "
                f"(N x K x Stages = {tile.n} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_pipeline(stages: int, cp_async: bool) -> Block:
    """SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED: PipelineTmaAsync<Stages>; SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED: PipelineAsync<Stages>: the same two barrier arrays."""
    kind = "PipelineAsync" if cp_async else "PipelineTmaAsync"
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: {kind}<{stages}>::SharedStorage",
        ("builder.stages",),
    )


def mainloop_shared_storage(
    a_bits: int, b_bits: int, tile: Shape3, stages: int, cp_async: bool
) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)`: { TensorStorage tensors; pipeline; }."""
    src = (
        SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED
        if cp_async
        else SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED
    )
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(a_bits, b_bits, tile, stages, cp_async).at("tensors"),
            mainloop_pipeline(stages, cp_async).at("pipeline"),
        ],
        f"{src}: CollectiveMma::SharedStorage",
    )


def rs_smem_alignment(
    a_bits: int, b_bits: int, tile: Shape3, a_k_major: bool, b_k_major: bool, cp_async: bool
) -> tuple[int, int]:
    """SmemAlignmentA/B of the register-sourced (RS) mainloops: SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED's alignment_for_swizzle of
    each smem layout (the widest swizzle atom dividing the operand's contiguous extent: K for a
    K-major operand, M or N for an MN-major one); SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED's fixed 256."""
    if cp_async:
        return CP_ASYNC_RS_ALIGN, CP_ASYNC_RS_ALIGN
    return (
        _rs_atom_align(tile.k if a_k_major else tile.m, a_bits, a_k_major),
        _rs_atom_align(tile.k if b_k_major else tile.n, b_bits, b_k_major),
    )


def _rs_atom_align(extent: int, bits: int, k_major: bool) -> int:
    """alignment_for_swizzle of SM90_GMMA_BUILDER's rs_smem_selector atom: an MN-major whole-word (tf32) operand
    takes Layout_MN_SW32_Atom ("Fall into SW32 due to free bank conflict", also for the
    warp-specialized transposed B): 256 B; otherwise the widest atom dividing the extent."""
    if not k_major and bits % 32 == 0:
        return MN_MAJOR_WHOLE_WORD_RS_ALIGN
    return swizzle_align(extent * bits)


def rs_tensor_storage(
    a_bits: int,
    b_bits: int,
    tile: Shape3,
    stages: int,
    alignments: tuple[int, int],
    cp_async: bool,
) -> Block:
    """SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED: TensorStorage : aligned_struct<max(SmemAlignmentA, SmemAlignmentB), _0> {
    array_aligned<ValTypeA, cosize_v<SmemLayoutA>, SmemAlignmentA> smem_A; ... smem_B; };
    SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED: the same with 256 for all three."""
    src = (
        SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED
        if cp_async
        else SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED
    )
    align_a, align_b = alignments
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k * a_bits // 8,
                align_a,
                f"{src}: cute::array_aligned<ValTypeA, cosize_v<SmemLayoutA>, {align_a}> smem_A "
                f"(M x K x Stages = {tile.m} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * b_bits // 8,
                align_b,
                f"{src}: cute::array_aligned<ValTypeB, cosize_v<SmemLayoutB>, {align_b}> smem_B "
                f"(N x K x Stages = {tile.n} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage : "
        f"cute::aligned_struct<{max(alignments)}, _0>",
        base_align=max(alignments),
    )


def mixed_input_smem_alignment(a_bits: int, b_bits: int, tile: Shape3) -> tuple[int, int]:
    """SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: SmemAlignmentA/B = alignment_for_swizzle of the K-major smem layouts (SM90_GMMA_BUILDER:
    rs_smem_selector picks the widest swizzle atom whose width divides K x sizeof_bits)."""
    return swizzle_align(tile.k * a_bits), swizzle_align(tile.k * b_bits)


def mixed_input_tensor_storage(
    a_bits: int,
    b_bits: int,
    scale_bits: int,
    zero_bits: int,
    tile: Shape3,
    stages: int,
    header: str = SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
) -> Block:
    """SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: `struct TensorStorage { alignas(SmemAlignmentA) smem_A; alignas(SmemAlignmentB)
    smem_B; ArrayEngine<ElementScale, scale_elements> smem_scale; ArrayEngine<ElementZero,
    zero_elements> smem_zero; }` for a narrow, transformed A (no operand swap). MIXED_INPUT_UTILS:
    elements_per_smem_scale/zero = cosize(SmemLayoutScale) = M x Stages when the mode has scales
    (zero points), else 0; an empty ArrayEngine is still an `array_aligned<T, 0>`: 16 B.
    `header`: the collective cited; the ptr-array collective
    (SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT) declares the same TensorStorage."""
    align_a, align_b = mixed_input_smem_alignment(a_bits, b_bits, tile)

    def per_stage_vector(name: str, bits: int) -> Block:
        size = tile.m * stages * bits // 8 if bits else 0
        return array(
            f"smem_{name}",
            max(-(-size // ARRAY_ALIGNED) * ARRAY_ALIGNED, ARRAY_ALIGNED),
            ARRAY_ALIGNED,
            f"{header}: cute::ArrayEngine<NonVoidElement{name.capitalize()}, {name}_elements = "
            f"{tile.m * stages if bits else 0}> smem_{name} (array_aligned<T, N, 16>)",
            ("builder.stages", "input.tile", "input.types"),
        )

    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k * a_bits // 8,
                align_a,
                f"{header}: CUTE_ALIGNAS(SmemAlignmentA = {align_a}) ArrayEngine<RealSwappedElementA, "
                f"cosize_v<SmemLayoutA>> smem_A (M x K x Stages = {tile.m} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * b_bits // 8,
                align_b,
                f"{header}: CUTE_ALIGNAS(SmemAlignmentB = {align_b}) ArrayEngine<ValTypeB, "
                f"cosize_v<SmemLayoutB>> smem_B (N x K x Stages = {tile.n} x {tile.k} x {stages})",
                ("builder.stages", "input.tile", "input.types"),
            ),
            per_stage_vector("scale", scale_bits),
            per_stage_vector("zero", zero_bits),
        ],
        f"{header}: CollectiveMma::SharedStorage::TensorStorage",
    )


def mixed_input_shared_storage(
    a_bits: int,
    b_bits: int,
    scale_bits: int,
    zero_bits: int,
    tile: Shape3,
    stages: int,
    header: str = SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)` of SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: { TensorStorage tensors; pipeline; }."""
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mixed_input_tensor_storage(
                a_bits, b_bits, scale_bits, zero_bits, tile, stages, header
            ).at("tensors"),
            mainloop_pipeline(stages, cp_async=False).at("pipeline"),
        ],
        f"{header}: CollectiveMma::SharedStorage",
    )


def mixed_input_array_tensormaps() -> Block:
    """SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: `struct TensorMapStorage {
    cute::TmaDescriptor smem_tensormap_A, smem_tensormap_B, smem_tensormap_scale,
    smem_tensormap_zero; }`, a plain struct (64-aligned descriptors of 128 B each) that the
    ptr-array kernel places at alignas(128); declared for every mode (the zero descriptor too)."""
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: cute::TmaDescriptor "
                f"smem_tensormap_{x} (cute/arch/copy_sm90_desc.hpp: TmaDescriptor = "
                "CUtensorMap, alignas(64), 128 B)",
            )
            for x in ("A", "B", "scale", "zero")
        ],
        f"{SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: CollectiveMma::SharedStorage::"
        "TensorMapStorage",
    )


# --- the kernel --------------------------------------------------------------------------------


def kernel_shared_storage(
    shell: Shell,
    mainloop_tensors: Block,
    mainloop_pipe: Block,
    epilogue_tensors: Block,
    epilogue_pipe: Block,
    scheduler: Sm90Scheduler,
) -> Block:
    """`GemmKernel::SharedStorage` of the shell."""
    src = shell.header
    if shell is Shell.TMA_COOPERATIVE:
        return sm90_cooperative.kernel_shared_storage(
            mainloop_tensors,
            mainloop_pipe,
            epilogue_tensors,
            epilogue_pipe,
            scheduler_storage(scheduler),
        )
    if shell is Shell.TMA_PINGPONG:
        pipelines = struct(
            "pipelines",
            [
                mainloop_pipe.at("mainloop", 16),
                epilogue_pipe.at("epi_load", 16),
                array(
                    "math_wg_order",
                    ordered_sequence_barrier_storage(
                        PINGPONG_STAGES_PER_MATH_WARP_GROUP, PINGPONG_MMA_WARP_GROUPS
                    ),
                    16,
                    f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: alignas(16) MathWarpGroupOrderBarrierSharedStorage "
                    f"(OrderedSequenceBarrier<{PINGPONG_STAGES_PER_MATH_WARP_GROUP},"
                    f"{PINGPONG_MMA_WARP_GROUPS}>)",
                ),
                array(
                    "load_order",
                    ordered_sequence_barrier_storage(1, 2),
                    16,
                    f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: alignas(16) LoadWarpOrderBarrier::SharedStorage "
                    f"(OrderedSequenceBarrier<1,2>, {SM90_PIPELINE}: barrier_[1][2])",
                ),
            ],
            f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
            base_align=16,
        )
        tensors = struct(
            "tensors",
            [epilogue_tensors.at("epilogue"), mainloop_tensors.at("mainloop")],
            f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1>",
            base_align=128,
        )
        return struct(
            "SharedStorage",
            [pipelines, scheduler_storage(scheduler).at("scheduler", 16), tensors],
            f"{SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG}: GemmKernel::SharedStorage",
        )
    pipelines = struct(
        "pipelines",
        [mainloop_pipe.at("mainloop", 16), epilogue_pipe.at("epi_load", 16)],
        f"{src}: SharedStorage::PipelineStorage : cute::aligned_struct<16, _1>",
        base_align=16,
    )
    if shell is Shell.CP_ASYNC_COOPERATIVE:
        tensors = struct(
            "tensors",
            [mainloop_tensors.at("mainloop"), epilogue_tensors.at("epilogue")],
            f"{src}: SharedStorage::TensorStorage : cute::aligned_struct<128, _1>",
            base_align=128,
        )
    else:
        # SM90_GEMM_TMA_WARPSPECIALIZED, SM90_GEMM_WARPSPECIALIZED: "Mainloop and epilogue don't use smem concurrently since kernel is
        # non-persistent, so we can use a union"
        tensors = union(
            "tensors",
            [mainloop_tensors.at("mainloop"), epilogue_tensors.at("epilogue")],
            f"{src}: union SharedStorage::TensorStorage {{ mainloop; epilogue; }}",
        )
    return struct("SharedStorage", [tensors, pipelines], f"{src}: GemmKernel::SharedStorage")


def mma_warp_groups(shell: Shell, tile_m: int) -> int:
    """Warp groups of size(TiledMma): SM90_GMMA_BUILDER's AtomLayoutMNK = Shape<_2,_1,_1> for the TMA
    cooperative schedules, Shape<(M < 128 ? 1 : 2),_1,_1> for the cp.async cooperative one, and
    Shape<_1,_1,_1> otherwise (the pingpong shell runs two such warp groups in turn)."""
    if shell is Shell.TMA_COOPERATIVE:
        return 2
    if shell is Shell.CP_ASYNC_COOPERATIVE:
        return 1 if tile_m < 128 else 2
    return 1


def max_threads_per_block(shell: Shell, tile_m: int, register_sourced: bool = False) -> int:
    """SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_TMA_WARPSPECIALIZED: size(TiledMma) + NumLoadWarpGroups * 128; SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: size(TiledMma) * NumMmaWarpGroups +
    128 (= 384, static_asserted); SM90_GEMM_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_WARPSPECIALIZED: (NumLoadWarpGroups + NumMmaWarpGroups) * 128 with
    the builder's load warp groups (SM90_GMMA_BUILDER's GMMA_CpAsync_WS_RS builder: NumLoadWarpGroups = 1 for
    every schedule)."""
    mma = mma_warp_groups(shell, tile_m)
    if register_sourced and shell is Shell.CP_ASYNC_BASIC:
        return (mma + CP_ASYNC_COOPERATIVE_LOAD_WARP_GROUPS) * THREADS_PER_WARP_GROUP
    if shell is Shell.TMA_PINGPONG:
        return (mma * PINGPONG_MMA_WARP_GROUPS + LOAD_WARP_GROUPS) * THREADS_PER_WARP_GROUP
    if shell is Shell.CP_ASYNC_BASIC:
        return (mma + CP_ASYNC_BASIC_LOAD_WARP_GROUPS) * THREADS_PER_WARP_GROUP
    if shell is Shell.CP_ASYNC_COOPERATIVE:
        return (mma + CP_ASYNC_COOPERATIVE_LOAD_WARP_GROUPS) * THREADS_PER_WARP_GROUP
    return (mma + LOAD_WARP_GROUPS) * THREADS_PER_WARP_GROUP


def register_plan(shell: Shell, tile: Shape3, accumulator_bits: int) -> RegisterPlan | None:
    """SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE, SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG: RegsPerThread = M * N / NumMMAThreads * sizeof(ElementAccumulator) /
    sizeof(uint32_t) (NumMMAThreads = size(TiledMma): 256 cooperative, 128 pingpong);
    HeavyRegisterPressure = RegsPerThread >= 208; the load warp group drops to 40 (24) registers,
    the MMA warp groups rise to 232 (240). The basic and cp.async shells do not call setmaxnreg."""
    if shell not in (Shell.TMA_COOPERATIVE, Shell.TMA_PINGPONG):
        return None
    mma_threads = mma_warp_groups(shell, tile.m) * THREADS_PER_WARP_GROUP
    regs = tile.m * tile.n * accumulator_bits // 32 // mma_threads
    heavy = regs >= HEAVY_REGISTERS
    load, mma = (24, 240) if heavy else (40, 232)
    groups = PINGPONG_MMA_WARP_GROUPS if shell is Shell.TMA_PINGPONG else 2
    return RegisterPlan(
        accumulator_registers=regs,
        reconfigured=True,
        load_warpgroup_registers=load,
        mma_warpgroup_registers=mma,
        block_registers=THREADS_PER_WARP_GROUP * (LOAD_WARP_GROUPS * load + groups * mma),
        source=f"{shell.header}: RegsPerThread, HeavyRegisterPressure, LoadRegisterRequirement, "
        "MmaRegisterRequirement",
    )
