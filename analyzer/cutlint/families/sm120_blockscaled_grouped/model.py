"""The SM120 block-scaled grouped GEMM that FlashInfer's (TensorRT-LLM's) MoE launcher builds.

The recipe is `moe_gemm_tma_ws_launcher.inl`: a `CollectiveBuilder<Sm120,
OpClassBlockScaledTensorOp, ...>` mainloop with `StageCountAutoCarveout<sizeof(
CollectiveEpilogue::SharedStorage)>` and `KernelScheduleAuto`, a `TmaWarpSpecialized` epilogue with
`EpilogueTileAuto`, and `GemmUniversal` with the SM90 ptr-array cooperative kernel shell
(`KernelPtrArrayTmaWarpSpecializedCooperativeBlockScaledSm120`).

Two computations live here and are kept apart on purpose, because the gap between them is the bug
this tool exists for:
- `stage_count`: the stage count as the builder computes it (its own, approximate budget);
- `kernel_layout`: `GemmKernel::SharedStorage` as the compiler lays it out for that stage count.

Header paths are relative to CUTLASS's `include/`; `launcher` is FlashInfer's
`csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cutlint.cutlass import epilogue, fusion, kernel
from cutlint.cutlass import sm120_blockscaled as blockscaled
from cutlint.cutlass.headers import (
    SM120_EPILOGUE_BUILDER,
)
from cutlint.cutlass.layout import Block
from cutlint.cutlass.storage import (
    THREADS_PER_WARP_GROUP,
)
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_data
from cutlint.records import (
    ElementType,
    EpilogueTile,
    Fusion,
    RegisterPlan,
    Shape3,
    StageCount,
)

SCATTER = "cutlass_extensions/epilogue/fusion/sm90_visitor_scatter.hpp (FlashInfer)"

_C = family_data("cutlint.families.sm120_blockscaled_grouped").constants
# Each constant's source is in data/family.toml beside this file.
EPILOGUE_WARP_GROUPS = _C["epilogue_warp_groups"]
MMA_THREADS = _C["mma_threads"]
SF_BLOCK_MN = blockscaled.SF_BLOCK_MN


BlockScaledOperands = blockscaled.Operands
"""What the builder derives from the element types (cutlint.cutlass.sm120_blockscaled)."""
NVFP4 = blockscaled.NVFP4
MXFP8_MXFP4 = blockscaled.MXFP8_MXFP4


def operands_for(act: ElementType, weight: ElementType, mxfpx: bool) -> BlockScaledOperands | None:
    """The launcher's ElementActBlockScaled/ElementWeightBlockScaled choice (launcher: IsMXFPX)."""
    if act is ElementType.E2M1 and weight is ElementType.E2M1 and not mxfpx:
        return NVFP4
    if act is ElementType.E4M3 and weight is ElementType.E2M1 and mxfpx:
        return MXFP8_MXFP4
    return None


@dataclass(frozen=True)
class Tactic:
    """The inputs of the recipe that change shared memory."""

    tile: Shape3
    operands: BlockScaledOperands
    output_bits: int
    fusion: Fusion
    swap_ab: bool


# --- mainloop ----------------------------------------------------------------------------------


# The builder's stage arithmetic and the mainloop's layout are CUTLASS's, shared with the other
# SM120 block-scaled families (cutlint.cutlass.sm120_blockscaled, SM120_BLOCKSCALED_MMA_ARRAY_TMA: the ptr-array mainloop).


def stage_bytes(t: Tactic, cutlass: CutlassModel) -> blockscaled.StageBytes:
    """Bytes of one pipeline stage of A, B, SFA and SFB, as the mainloop allocates them."""
    return blockscaled.stage_bytes(t.tile, t.operands, cutlass)


def mainloop_tensor_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return blockscaled.mainloop_tensor_storage(
        t.tile, t.operands, stages, grouped=True, cutlass=cutlass
    )


def mainloop_tensormaps() -> Block:
    return blockscaled.mainloop_tensormaps()


def mainloop_pipeline(stages: int) -> Block:
    return blockscaled.mainloop_pipeline(stages)


@cache
def mainloop_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return blockscaled.grouped_mainloop_shared_storage(t.tile, t.operands, stages, cutlass)


# --- epilogue ----------------------------------------------------------------------------------


def epilogue_shape(t: Tactic, cutlass: CutlassModel) -> EpilogueTile:
    """SM120_EPILOGUE_BUILDER: sm120_compute_tile_shape_or_override (EpilogueTileAuto) and
    sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)."""
    m, n = t.tile.m, t.tile.n
    if cutlass.has("small_n_epilogue_tile"):
        epi_m, epi_n = (128 if n < 16 else 64), min(n, 32)
    else:
        epi_m, epi_n = 64, 32
    epi_tiles = (m // epi_m) * (n // epi_n)
    stages_d = min(epi_tiles, 2)
    # ElementC is the output type for both fusions (launcher: EpilogueElementC = ElementCSafe =
    # ElementD on SM120); ElementD is void with FINALIZE, so ReuseSmem needs NONE.
    reuse = t.fusion is Fusion.NONE and t.output_bits > 8
    stages_c = max(min(epi_tiles, 2), stages_d + 1) if reuse else stages_d
    return EpilogueTile(
        m=epi_m,
        n=epi_n,
        stages_c=stages_c,
        stages_d=stages_d,
        reuse_smem_c=reuse,
        swizzle_align=_swizzle_align(t, epi_m, epi_n),
        source=f"{SM120_EPILOGUE_BUILDER}: sm120_compute_tile_shape_or_override (EpilogueTileAuto), "
        "sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)",
        derived_from={
            "tile": ("input.tile", "input.cutlass"),
            "stages_c": ("input.tile", "epilogue.tile", "input.fusion", "input.types"),
            "stages_d": ("input.tile", "epilogue.tile"),
            "swizzle": ("input.swap_ab", "input.types", "epilogue.tile"),
        },
    )


def _swizzle_align(t: Tactic, epi_m: int, epi_n: int) -> int:
    """The C/D smem layout's swizzle alignment (cutlint.cutlass.epilogue.swizzle_align). SM120_EPILOGUE_BUILDER:
    sm120_get_epilogue_smem_swizzle_layout_atom; SwapAB makes D column-major (launcher:
    LayoutD_T), so the contiguous extent is the epilogue tile's M, else its N."""
    return epilogue.swizzle_align((epi_m if t.swap_ab else epi_n) * t.output_bits)


def _fusion_storage(t: Tactic) -> Block:
    """`FusionCallbacks::SharedStorage`, the `thread` member of the epilogue's TensorStorage;
    the FINALIZE bias is in the output type (launcher: ElementBias = ElementFinalOutput)."""
    if t.fusion is Fusion.NONE:
        return fusion.linear_combination()
    return fusion.finalize_scatter(t.tile.n, t.swap_ab, t.output_bits)


# ElementC is the output type for both fusions on SM120 (launcher: EpilogueElementC =
# ElementCSafe = ElementD), and the D buffers are in it too.
def epilogue_tensor_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    e = epilogue_shape(t, cutlass)
    return epilogue.tensor_storage(e, t.output_bits, t.output_bits, _fusion_storage(t))


def epilogue_tensormaps() -> Block:
    return epilogue.tensormaps(EPILOGUE_WARP_GROUPS)


def epilogue_pipeline(t: Tactic, cutlass: CutlassModel) -> Block:
    return epilogue.load_pipeline(epilogue_shape(t, cutlass).stages_c)


@cache
def epilogue_shared_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    e = epilogue_shape(t, cutlass)
    return epilogue.shared_storage(
        e, t.output_bits, t.output_bits, _fusion_storage(t), EPILOGUE_WARP_GROUPS
    )


# --- stage count (the builder's arithmetic) ----------------------------------------------------


@cache
def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    """SM120_BLOCKSCALED_MMA_BUILDER: PipelineStages = sm100_compute_stage_count_or_override_blockscaled<Capacity, ...>(
    StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>) (SM100_BLOCKSCALED_UMMA_BUILDER), with the grouped
    kernel's capacity reductions from CUTLASS 4.4.2 (cutlint.cutlass.sm120_blockscaled)."""
    carveout = epilogue_shared_storage(t, cutlass).size
    sc = blockscaled.stage_count(t.tile, t.operands, carveout, grouped=True, cutlass=cutlass)
    return sc.model_copy(
        update={
            "carveout_derived_from": (
                "epilogue.tile",
                "epilogue.stages_c",
                "epilogue.stages_d",
                "epilogue.swizzle",
                "input.tile",
                "input.types",
                "input.fusion",
                "input.swap_ab",
            )
        }
    )


# --- the kernel --------------------------------------------------------------------------------


@cache
def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 ptr-array cooperative kernel shell (SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE), which the
    SM120 block-scaled grouped kernel reuses (cutlint.cutlass.kernel)."""
    return kernel.ptr_array_shared_storage(
        kernel.ShellParts(
            mainloop_tensors=mainloop_tensor_storage(t, stages, cutlass),
            epilogue_tensors=epilogue_tensor_storage(t, cutlass),
            mainloop_pipeline=mainloop_pipeline(stages),
            epilogue_pipeline=epilogue_pipeline(t, cutlass),
            mainloop_tensormaps=mainloop_tensormaps(),
            epilogue_tensormaps=epilogue_tensormaps(),
        )
    )


def register_plan(t: Tactic, cutlass: CutlassModel) -> RegisterPlan:
    """SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE: the setmaxnreg split; since CUTLASS 4.5.0 the SM120 block-scaled kernel keeps the
    compiler's allocation when RegsPerThread <= 64 (IsLowRegisterPressure)."""
    accumulators = kernel.regs_per_thread(t.tile.m, t.tile.n, MMA_THREADS)
    low = cutlass.has("low_register_pressure") and accumulators <= 64
    return kernel.register_plan(
        t.tile.m, t.tile.n, MMA_THREADS, low, MMA_THREADS // THREADS_PER_WARP_GROUP
    )


def max_threads_per_block() -> int:
    return kernel.max_threads_per_block(MMA_THREADS)


TMA_DESCRIPTORS = 4 + 1 + EPILOGUE_WARP_GROUPS
"""Tensormaps in shared memory: A, B, SFA, SFB (SM120_BLOCKSCALED_MMA_ARRAY_TMA) and C, D per epilogue warp group (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED)."""
