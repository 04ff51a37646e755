"""The SM90 TMA warp-specialized grouped GEMM that FlashInfer's (TensorRT-LLM's) MoE launcher
builds for `INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90, ...)` (H100, H200).

The recipe is the Sm90 branch of `moe_gemm_tma_ws_launcher.inl` (LAUNCHER):
- mainloop: `CollectiveBuilder<Sm90, OpClassTensorOp, A, RowMajor*, B, ColumnMajor*, float,
  TileShape, ClusterShape, StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>,
  KernelPtrArrayTmaWarpSpecializedCooperative[FP8FastAccum]>` -> `MainloopSm90ArrayTmaGmma
  WarpSpecialized` (cutlint.cutlass.mainloop), stage count by `compute_stage_count_or_override`
  (cutlint.cutlass.stage_count);
- epilogue: `CollectiveBuilder<Sm90, ..., EpilogueTileAuto, ElementC = void, ..., ElementD,
  PtrArrayTmaWarpSpecializedCooperative[, fusion]>` -> the ptr-array TMA epilogue
  (cutlint.cutlass.epilogue) with the LinearCombination (NONE) or FlashInfer's scatter (FINALIZE)
  fusion (cutlint.cutlass.fusion); ElementD is void for FINALIZE;
- kernel: `GemmUniversal<GroupProblemShape, ...>` with the SM90 ptr-array cooperative shell and
  the grouped tile scheduler (cutlint.cutlass.kernel, cutlint.cutlass.scheduler).

FlashInfer 0.5.x's 14-parameter launcher builds another epilogue (`Tactic.legacy`):
`PtrArrayNoSmemWarpSpecialized` for NONE and `EpilogueMoeFusedFinalizeBuilder` for FINALIZE, both
behind `Sm90TmaWarpSpecializedAdapter` (`_legacy_epilogue`); mainloop and kernel shell as above.

The same three computations as every recipe, kept apart: `stage_count` (what the builder
believes), `kernel_shared_storage` (what the compiler lays out for that stage count), and the
launch configuration (`max_threads_per_block`, `register_plan`, `tma_descriptors`). The SM90 code
involved is the same in CUTLASS 4.2.1 (FlashInfer 0.6.3) and 4.5.0 (0.7.2.post1, 0.7.4), so no
version knob applies; the `cutlass` argument is kept for the seam.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cutlint.cutlass import epilogue as ptr_array_epilogue
from cutlint.cutlass import fusion as fusions
from cutlint.cutlass import kernel as shell
from cutlint.cutlass import mainloop
from cutlint.cutlass.headers import SM90_GMMA_BUILDER
from cutlint.cutlass.layout import Block, array, empty, struct
from cutlint.cutlass.sm90_epilogue_builder import sm90_epilogue_tile
from cutlint.cutlass.stage_count import Sm90StageInputs, sm90_kernel_carveout, sm90_stage_count
from cutlint.cutlass.storage import THREADS_PER_WARP_GROUP
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_data as base_family_data
from cutlint.families.base import family_toml
from cutlint.records import (
    ElementType,
    EpilogueTile,
    Fusion,
    MoeGemmArgs,
    RegisterPlan,
    Shape3,
    StageCount,
)

LAUNCHER = "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
FINALIZE_BUILDER = (
    "tensorrt_llm/cutlass_extensions/include/cutlass_extensions/epilogue/collective/"
    "epilogue_moe_finalize.hpp"
)
SM90_BUILDER = "cutlass/epilogue/collective/builders/sm90_builder.inl"
EPILOGUE_POLICY = "cutlass/epilogue/dispatch_policy.hpp"

PACKAGE = "cutlint.families.sm90_tma_ws_grouped"
_C = base_family_data(PACKAGE).constants  # data/family.toml [constants], each with its source

# SM90_GMMA_BUILDER: IsCooperative -> AtomLayoutMNK = Layout<Shape<_2,_1,_1>>: two 128-thread GMMA warp groups
# (the pingpong schedule: Shape<_1,_1,_1>, one)
COOPERATIVE_MMA_WARP_GROUPS = _C["cooperative_mma_warp_groups"]
PINGPONG_MMA_WARP_GROUPS = _C["pingpong_mma_warp_groups"]
# EPILOGUE_POLICY: NumEpilogueWarpGroups = 2 for both ptr-array schedules (the pingpong shell
# asserts that it equals its NumMmaWarpGroups)
EPILOGUE_WARP_GROUPS = _C["epilogue_warp_groups"]
# TileShape M must hold the cooperative warp groups' 64-row GMMA atoms (AtomLayoutMNK along M)
GMMA_M = _C["gmma_m"]


class Schedule(StrEnum):
    """The kernel schedule: which ptr-array shell, warp-group layout and epilogue schedule."""

    COOPERATIVE = "cooperative"
    """KernelPtrArrayTmaWarpSpecializedCooperative[FP8FastAccum] + PtrArrayTmaWarpSpecializedCooperative"""
    PINGPONG = "pingpong"
    """KernelPtrArrayTmaWarpSpecializedPingpong[FP8FastAccum] + PtrArrayTmaWarpSpecializedPingpong"""


@dataclass(frozen=True)
class Tactic:
    """The inputs of the recipe that change shared memory or the launch configuration."""

    tile: Shape3
    """TileShape_MNK (= the macro's CTA_M x CTA_N x CTA_K, K in elements)."""
    cluster: Shape3
    """ClusterShape_MNK; picks TMA multicast, changes no storage."""
    operand: ElementType
    """A and B (the launcher requires them equal on SM90)."""
    operand_bits: int
    """Width of TiledMma::ValTypeA/B in shared memory (tfloat32_t for f32)."""
    output: ElementType
    output_bits: int
    """ElementD (NONE) or the fusion's ElementAux / ElementBias (FINALIZE): the output type."""
    fusion: Fusion
    swap_ab: bool
    schedule: Schedule = Schedule.COOPERATIVE
    fp8_fast_accum: bool = False
    """KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum (same mainloop collective)."""
    legacy: bool = False
    """FlashInfer 0.5.x's 14-parameter launcher (LAUNCHER of the 0.5.2 wheel): EpilogueScheduleSM90
    = PtrArrayNoSmemWarpSpecialized, FINALIZE by EpilogueMoeFusedFinalizeBuilder (FINALIZE_BUILDER)."""

    @property
    def pingpong(self) -> bool:
        return self.schedule is Schedule.PINGPONG


def family_data() -> dict[str, Any]:
    return family_toml(PACKAGE)


# --- the launcher's choices (tactic_of) ----------------------------------------------------------


def tactic_of(args: MoeGemmArgs, legacy: bool = False) -> Tactic | str:
    """The Tactic the launcher builds for these macro arguments, or why it is outside the model
    (a `static_assert` of the launcher or the builders, or a type the model does not know)."""
    data = family_data()
    if args.sm != 90:
        return f"arch tag {args.arch_tag}: this family models Sm90"
    if args.act_type is None or args.weight_type is None or args.output_type is None:
        return "an element type cutlint does not know"
    if args.act_type is not args.weight_type:
        return (
            f"{args.act_type} x {args.weight_type}: the Sm90 TMA WS launcher requires A == B "
            f"({LAUNCHER}: static_assert 'does not support mixed input types'; W4A8 is block-scaled, "
            "Blackwell only)"
        )
    operand = data["operands"].get(args.act_type.value)
    if operand is None:
        return (
            f"{args.act_type}: not an Sm90 TMA WS operand type ({LAUNCHER}: static_assert "
            "'Specialized for bfloat16, half, float, fp8, fp4', FP4 only on SM100)"
        )
    output = data["outputs"].get(args.output_type.value)
    if output is None:
        return f"output type {args.output_type}: the model knows f16, bf16 and f32 outputs"
    if args.mxfpx:
        return f"MXFPX: block scaling is Blackwell only ({LAUNCHER}: static_assert !IsBlockScaled || IsBlackwell)"
    if args.dynamic_cga:
        return f"DYNAMIC_CGA: the SM90 builder requires a static cluster shape ({SM90_GMMA_BUILDER}: static_assert is_static<ClusterShape_MNK>)"
    if args.epilogue_tag != "EpilogueOpDefault":
        return f"epilogue tag {args.epilogue_tag}: {LAUNCHER} static_asserts EpilogueOpDefault"
    if args.fusion is None or args.fusion is Fusion.ACTIVATION:
        return f"fusion {args.fusion}: the Sm90 launcher builds NONE and FINALIZE ({LAUNCHER}: static_assert 'Activation fusion requires non-transposed SM10x kernels')"
    tile = args.cta_tile
    if (
        tile.m % (COOPERATIVE_MMA_WARP_GROUPS * GMMA_M)
        or tile.n % 16
        or tile.k * operand["smem_bits"] % 128
    ):
        return (
            f"tile {tile}: the model covers M a multiple of 128 (two 64-row GMMA warp groups), N a "
            "multiple of 16 and K a whole number of 16-byte rows"
        )
    return Tactic(
        tile=tile,
        cluster=args.cluster,
        operand=args.act_type,
        operand_bits=int(operand["smem_bits"]),
        output=args.output_type,
        output_bits=int(output["bits"]),
        fusion=args.fusion,
        swap_ab=args.swap_ab,
        schedule=Schedule.COOPERATIVE,
        fp8_fast_accum=bool(operand.get("fp8_fast_accum", False)),
        legacy=legacy,
    )


def dispatch_supported(t: Tactic) -> bool:
    """Whether the launcher's SM90 dispatch (data/family.toml [dispatch]) can select this tile and
    cluster at run time; an instantiation it cannot select compiles but is never dispatched."""
    return dispatch_reason(t) is None


def dispatch_reason(t: Tactic) -> str | None:
    """Why the SM90 dispatch never selects this tile and cluster, or None when it can."""
    d = family_data()["dispatch"]
    k_bytes = t.tile.k * t.operand_bits // 8
    if [t.tile.m, t.tile.n, k_bytes] not in d["tiles_kbytes"]:
        return (
            f"dispatchMoeGemmSelectTileShapeTmaWarpSpecialized has no SM90 case for "
            f"CtaShape{t.tile.m}x{t.tile.n}x{k_bytes}B"
        )
    c = t.cluster
    if c.k != 1 or [c.m, c.n] not in d["clusters"]:
        return f"dispatchMoeGemmSelectClusterShapeTmaWarpSpecialized has no {c} cluster case"
    least = int(d["cluster_min_tile"])
    if (c.m != 1 and t.tile.m < least) or (c.n != 1 and t.tile.n < least):
        return (
            f"are_tile_shapes_supported rejects a {c.m}x{c.n}x1 cluster with tile "
            f"{t.tile.m}x{t.tile.n} (a cluster dimension of 2 needs that tile side >= {least})"
        )
    return None


# --- epilogue ----------------------------------------------------------------------------------


def epilogue_tile(t: Tactic) -> EpilogueTile:
    """SM90_EPILOGUE_BUILDER's EpilogueTileAuto subtile and buffer counts (cutlint.cutlass.sm90_epilogue_builder):
    cooperative or pingpong (warp-specialized) subtile; ElementC is void (LAUNCHER:
    EpilogueElementC = ElementC = void off SM120), so ReuseSmem is false. LAUNCHER: LayoutD =
    RowMajor (N contiguous); SwapAB: LayoutD_T = ColumnMajor (M contiguous)."""
    return sm90_epilogue_tile(
        tile_m=t.tile.m,
        tile_n=t.tile.n,
        cooperative=not t.pingpong,
        c_bits=None,
        d_bits=t.output_bits,
        c_m_major=t.swap_ab,
        d_m_major=t.swap_ab,
    )


def _fusion_storage(t: Tactic) -> Block:
    if t.fusion is Fusion.FINALIZE:
        # LAUNCHER: ElementBias = ElementFinalOutput = the output type; scales are float.
        return fusions.finalize_scatter(t.tile.n, t.swap_ab, t.output_bits)
    return fusions.linear_combination()


def _legacy_epilogue(t: Tactic, name: str) -> Block:
    """The 0.5.x launcher's epilogue SharedStorage, which its Sm90TmaWarpSpecializedAdapter also
    uses as TensorStorage (cutlass/epilogue/collective/detail.hpp: TensorStorage =
    EpilogueOp::SharedStorage).

    NONE: SM90_BUILDER's NoSmem specialization builds Sm90TmaWarpSpecializedAdapter<
    DefaultEpilogueArray>, whose SharedStorage is an empty struct (1 B).
    FINALIZE: FINALIZE_BUILDER's EpilogueMoeFusedFinalize::SharedStorage { alignas(SmemAlignmentD)
    ArrayEngine<ElementAccumulator, cosize_v<SmemLayoutD>> smem_D; }: a float tile of EpilogueTile
    = Shape<_128, min(TileN, _32)>; StrideD = FusedFinalizeEpilogue::StrideFinalOutput is
    TransposeLayoutTag<RowMajor> (moe_gemm_kernels.h), M-major, so SM90_BUILDER's
    sm90_get_epilogue_smem_swizzle_layout_atom takes ss_smem_selector<MN>: 128 floats = SW128,
    alignment_for_swizzle 1024."""
    if t.fusion is not Fusion.FINALIZE:
        return empty(
            name,
            f"{SM90_BUILDER}: Sm90TmaWarpSpecializedAdapter<DefaultEpilogueArray>::SharedStorage {{}}",
        )
    epi_n = min(t.tile.n, FINALIZE_EPILOGUE_N_MAX)
    smem_d = array(
        "smem_D",
        FINALIZE_EPILOGUE_M * epi_n * ACCUMULATOR_BYTES,
        ptr_array_epilogue.swizzle_align(FINALIZE_EPILOGUE_M * ACCUMULATOR_BYTES * 8),
        f"{FINALIZE_BUILDER}: alignas(SmemAlignmentD) ArrayEngine<float, cosize_v<SmemLayoutD>> smem_D "
        f"(EpilogueTile {FINALIZE_EPILOGUE_M}x{epi_n})",
        ("input.tile",),
    )
    return struct(name, [smem_d], f"{FINALIZE_BUILDER}: EpilogueMoeFusedFinalize::SharedStorage")


FINALIZE_EPILOGUE_M = 128
"""FINALIZE_BUILDER: EpilogueTile = Shape<_128, EpiTileN> ("assuming cooperative kernel schedule")."""
FINALIZE_EPILOGUE_N_MAX = 32
"""FINALIZE_BUILDER: EpiTileN = cute::min(size<1>(TileShape{}), _32{})."""
ACCUMULATOR_BYTES = 4
"""LAUNCHER: ElementAccumulator = float; smem_D holds it (FINALIZE_BUILDER)."""


def epilogue_tensor_storage(t: Tactic) -> Block:
    if t.legacy:
        return _legacy_epilogue(t, "epilogue")
    # ElementC = void (CollectiveStorageWithoutC); the D buffers hold ElementD, or with FINALIZE
    # (ElementD = void) the scatter fusion's ElementAux = ElementOutput: the output type either way.
    return ptr_array_epilogue.tensor_storage(
        epilogue_tile(t), None, t.output_bits, _fusion_storage(t)
    )


def epilogue_shared_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    if t.legacy:
        return _legacy_epilogue(t, "CollectiveEpilogue::SharedStorage")
    return ptr_array_epilogue.shared_storage(
        epilogue_tile(t), None, t.output_bits, _fusion_storage(t), EPILOGUE_WARP_GROUPS
    )


# --- mainloop ----------------------------------------------------------------------------------


def mainloop_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)`; SwapAB swaps A and B, which have one type."""
    return mainloop.sm90_array_shared_storage(
        t.operand_bits, t.operand_bits, t.tile.m, t.tile.n, t.tile.k, stages
    )


def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    """SM90_GMMA_BUILDER: PipelineStages = compute_stage_count_or_override<sm90_smem_capacity_bytes -
    KernelSmemCarveout, ElementAMma, ElementBMma, TileShape_MNK>(StageCountAutoCarveout<
    sizeof(CollectiveEpilogue::SharedStorage)>) for the ptr-array schedules (tensormaps for A and
    B) with `LayoutA*` strides (the grouped scheduler's pipeline)."""
    return sm90_stage_count(
        Sm90StageInputs(
            a_bits=t.operand_bits,
            b_bits=t.operand_bits,
            tile_m=t.tile.m,
            tile_n=t.tile.n,
            tile_k=t.tile.k,
            carveout=epilogue_shared_storage(t, cutlass).size,
            kernel_carveout=sm90_kernel_carveout(ptr_array=True, grouped_strides=True),
        )
    )


# --- the kernel --------------------------------------------------------------------------------


def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 ptr-array shell the schedule picks."""
    e = epilogue_tile(t)
    parts = shell.ShellParts(
        mainloop_tensors=mainloop.sm90_array_tensor_storage(
            t.operand_bits, t.operand_bits, t.tile.m, t.tile.n, t.tile.k, stages
        ),
        epilogue_tensors=epilogue_tensor_storage(t),
        mainloop_pipeline=mainloop.sm90_array_pipeline(stages),
        # the 0.5.x adapters: PipelineTransactionAsync<0> and an empty TensorMapStorage (the
        # FINALIZE adapter's is EpilogueMoeFusedFinalize::TensorMapStorage {}, FINALIZE_BUILDER)
        epilogue_pipeline=(
            ptr_array_epilogue.nosmem_load_pipeline()
            if t.legacy
            else ptr_array_epilogue.load_pipeline(e.stages_c)
        ),
        mainloop_tensormaps=mainloop.sm90_array_tensormaps(),
        epilogue_tensormaps=(
            ptr_array_epilogue.nosmem_tensormaps()
            if t.legacy
            else ptr_array_epilogue.tensormaps(EPILOGUE_WARP_GROUPS)
        ),
    )
    return shell.ptr_array_shared_storage(parts, pingpong=t.pingpong)


def _mma_threads(t: Tactic) -> int:
    """size(TiledMma): SM90_GMMA_BUILDER's AtomLayoutMNK warp groups of 128 threads."""
    groups = PINGPONG_MMA_WARP_GROUPS if t.pingpong else COOPERATIVE_MMA_WARP_GROUPS
    return groups * THREADS_PER_WARP_GROUP


def max_threads_per_block(t: Tactic) -> int:
    return shell.max_threads_per_block(_mma_threads(t), pingpong=t.pingpong)


def register_plan(t: Tactic) -> RegisterPlan:
    """The shell's setmaxnreg split; SM90 kernels always reconfigure (`IsLowRegisterPressure` is
    for SM120 block-scaled mainloops only)."""
    # Both shells divide the accumulator over two MMA warp groups (KS: NumMmaThreads = 256; KP:
    # NumMmaWarpGroups * NumThreadsPerWarpGroup) and raise both to 232 registers.
    warp_groups = shell.PINGPONG_MMA_WARP_GROUPS if t.pingpong else COOPERATIVE_MMA_WARP_GROUPS
    return shell.register_plan(
        t.tile.m,
        t.tile.n,
        warp_groups * THREADS_PER_WARP_GROUP,
        low_register_pressure=False,
        mma_warp_groups=warp_groups,
    )


def tma_descriptors(t: Tactic) -> int:
    """Tensormaps in shared memory: A and B (the mainloop), C and one D per epilogue warp group
    (the 0.5.x launcher's epilogues hold none)."""
    if t.legacy:
        return 2
    return 2 + 1 + EPILOGUE_WARP_GROUPS
