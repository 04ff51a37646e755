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

from cutlint.cutlass import epilogue, fusion, kernel, scheduler
from cutlint.cutlass.layout import Block, array, round_up, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    PL,
    THREADS_PER_WARP_GROUP,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    cpp_div,
    pipeline_storage,
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
    StageTerm,
)

ML = "cutlass/gemm/collective/sm120_blockscaled_mma_array_tma.hpp"
MB = "cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl"
SC = "cutlass/gemm/collective/builders/sm100_blockscaled_umma_builder.inl"
EB = "cutlass/epilogue/collective/builders/sm120_builder.inl"
EP = "cutlass/epilogue/collective/sm90_epilogue_array_tma_warpspecialized.hpp"
KS = "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
SCATTER = "cutlass_extensions/epilogue/fusion/sm90_visitor_scatter.hpp (FlashInfer)"

_C = family_data("cutlint.families.sm120_blockscaled_grouped").constants
# Each constant's source is in data/family.toml beside this file.
SM120_SMEM_CAPACITY = _C["smem_capacity"]
BUILDER_SCHEDULER_PIPELINE_STAGES = _C["builder_scheduler_pipeline_stages"]
EPILOGUE_WARP_GROUPS = _C["epilogue_warp_groups"]
SF_BLOCK_MN = _C["sf_block_mn"]
MMA_THREADS = _C["mma_threads"]


@dataclass(frozen=True)
class BlockScaledOperands:
    """What the builder derives from the element types (MB: blockscaled_type, select_instr)."""

    label: str
    bits_a: int
    """sizeof_bits of SmemAllocTypeA: 8 (uint8_t) for MXF8F6F4, the element's own width otherwise."""
    bits_b: int
    sf_vector_size: int
    """SFVectorSize: 16 for nv_float4_t (ue4m3 scales), 32 for mx_float*_t (ue8m0 scales)."""
    scale_type: str


# cutlass/gemm/collective/builders/sm1xx_common.inl: blockscaled_type<.., nv_float4_t<T>>::SfVectorSize
# = 16 and blockscaled_type<.., mx_float4_t<T>>::SfVectorSize = 32 (dense kernels); sf_type
# float_ue4m3_t / float_ue8m0_t. Element widths: cutlass/float_subbyte.h (e2m1: 4 bits).
NVFP4 = BlockScaledOperands("NVFP4 (e2m1 x e2m1, ue4m3 scales, SFVec 16)", 4, 4, 16, "ue4m3")
# MXF8F6F4: SmemAllocTypeA/B = uint8_t (MB: `cute::conditional_t<UseMxf8f6f4, uint8_t, ...>`),
# so FP4 B is stored unpacked, one byte per element.
MXFP8_MXFP4 = BlockScaledOperands(
    "MXFP8 x MXFP4 (e4m3 x e2m1, ue8m0 scales, SFVec 32)", 8, 8, 32, "ue8m0"
)


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


@dataclass(frozen=True)
class StageBytes:
    a: int
    b: int
    sfa: int
    sfb: int

    @property
    def tensors(self) -> int:
        return self.a + self.b + self.sfa + self.sfb


def stage_bytes(t: Tactic, cutlass: CutlassModel) -> StageBytes:
    """Bytes of one pipeline stage of A, B, SFA and SFB, as the mainloop allocates them.

    SFA is `size(filter_zeros(SmemLayoutAtomSFA))` = (M / Blk_MN) * Blk_MN * K / SFVectorSize (MB:
    sSFA_shape, the K mode's SFVectorSize has stride 0). SFB is the same over N, where CUTLASS
    4.5.0 sizes it for max(N, 128) (MB: sSFBTileShape_N).
    """
    m, n, k = t.tile.m, t.tile.n, t.tile.k
    sf_k = k // t.operands.sf_vector_size
    n_sf = max(n, SF_BLOCK_MN) if cutlass.has("sfb_min_tile_n") else n
    return StageBytes(
        a=t.operands.bits_a * m * k // 8,
        b=t.operands.bits_b * n * k // 8,
        sfa=(m // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
        sfb=(n_sf // SF_BLOCK_MN) * SF_BLOCK_MN * sf_k,
    )


def mainloop_tensor_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    s = stage_bytes(t, cutlass)
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * s.a,
                1024,
                f"{ML}: alignas(1024) ArrayEngine<SmemAllocTypeA, cosize_v<SmemLayoutA>> smem_A",
                ("builder.stages", "builder.term.A"),
            ),
            array(
                "smem_B",
                stages * s.b,
                1024,
                f"{ML}: alignas(1024) ArrayEngine<SmemAllocTypeB, cosize_v<SmemLayoutB>> smem_B",
                ("builder.stages", "builder.term.B"),
            ),
            array(
                "smem_SFA",
                stages * s.sfa,
                16,
                f"{ML}: ArrayEngine<ElementSF, cosize_v<SmemLayoutSFA>> smem_SFA (array_aligned, 16)",
                ("builder.stages", "builder.term.SFA"),
            ),
            array(
                "smem_SFB",
                stages * s.sfb,
                16,
                f"{ML}: ArrayEngine<ElementSF, cosize_v<SmemLayoutSFB>> smem_SFB (array_aligned, 16)",
                ("builder.stages", "builder.term.SFB"),
            ),
        ],
        f"{ML}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_tensormaps() -> Block:
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{ML}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("A", "B", "SFA", "SFB")
        ],
        f"{ML}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def mainloop_pipeline(stages: int) -> Block:
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{PL}: PipelineTmaAsync<{stages}>::SharedStorage",
        ("builder.stages",),
    )


def mainloop_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            mainloop_tensor_storage(t, stages, cutlass).at("tensors"),
            mainloop_tensormaps().at("tensormaps"),
            mainloop_pipeline(stages).at("pipeline_storage", 16),
        ],
        f"{ML}: CollectiveMma::SharedStorage",
    )


# --- epilogue ----------------------------------------------------------------------------------


def epilogue_shape(t: Tactic, cutlass: CutlassModel) -> EpilogueTile:
    """EB: sm120_compute_tile_shape_or_override (EpilogueTileAuto) and
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
        source=f"{EB}: sm120_compute_tile_shape_or_override (EpilogueTileAuto), "
        "sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)",
        derived_from={
            "tile": ("input.tile", "input.cutlass"),
            "stages_c": ("input.tile", "epilogue.tile", "input.fusion", "input.types"),
            "stages_d": ("input.tile", "epilogue.tile"),
            "swizzle": ("input.swap_ab", "input.types", "epilogue.tile"),
        },
    )


def _swizzle_align(t: Tactic, epi_m: int, epi_n: int) -> int:
    """The C/D smem layout's swizzle alignment (cutlint.cutlass.epilogue.swizzle_align). EB:
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


def epilogue_shared_storage(t: Tactic, cutlass: CutlassModel) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    e = epilogue_shape(t, cutlass)
    return epilogue.shared_storage(
        e, t.output_bits, t.output_bits, _fusion_storage(t), EPILOGUE_WARP_GROUPS
    )


# --- stage count (the builder's arithmetic) ----------------------------------------------------


def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    """MB: PipelineStages = sm100_compute_stage_count_or_override_blockscaled<Capacity, ...>(
    StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>) (SC)."""
    reductions: list[StageTerm] = []
    if cutlass.has("reduced_capacity"):
        reductions = [
            StageTerm(
                name="SchedulerPipelineStorage",
                bytes=pipeline_storage(scheduler.TILE_SCHEDULER_STAGES),
                source=f"{MB}: sizeof(PipelineDetail::PipelineAsyncSharedStorage<8>)",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="TensorMapStorage",
                bytes=2 * TMA_DESCRIPTOR_BYTES,
                source=f"{MB}: sizeof(cute::TmaDescriptor) * 2",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="TensorMapReadyPipelineStorage",
                bytes=pipeline_storage(BUILDER_SCHEDULER_PIPELINE_STAGES),
                source=f"{MB}: sizeof(PipelineAsync<SchedulerPipelineStageCount = 3>::SharedStorage)",
                derived_from=("input.cutlass",),
            ),
            StageTerm(
                name="CLCResponseStorage", bytes=0, source=f"{MB}: IsGroupedGemmKernel ? 0 : ..."
            ),
        ]
    carveout = epilogue_shared_storage(t, cutlass).size
    s = stage_bytes(t, cutlass)
    pipeline = pipeline_storage(1)
    pipeline_source = f"{SC}: sizeof(PipelineTmaUmmaAsync<1>::SharedStorage)"
    if cutlass.has("pipeline_round_up"):
        pipeline = round_up(pipeline, 128)
        pipeline_source = (
            f"{SC}: cutlass::round_up(sizeof(PipelineTmaUmmaAsync<1>::SharedStorage), 128)"
        )
    tile = ("input.tile", "input.types")
    per_stage = (
        StageTerm(
            name="A", bytes=s.a, source=f"{SC}: bits_to_bytes(a_bits * M * K)", derived_from=tile
        ),
        StageTerm(
            name="B", bytes=s.b, source=f"{SC}: bits_to_bytes(b_bits * N * K)", derived_from=tile
        ),
        StageTerm(
            name="pipeline", bytes=pipeline, source=pipeline_source, derived_from=("input.cutlass",)
        ),
        StageTerm(
            name="SFA",
            bytes=s.sfa,
            source=f"{SC}: size(filter_zeros(SmemLayoutAtomSFA))",
            derived_from=tile,
        ),
        StageTerm(
            name="SFB",
            bytes=s.sfb,
            source=f"{SC}: size(filter_zeros(SmemLayoutAtomSFB))",
            derived_from=(*tile, "input.cutlass"),
        ),
    )
    per = sum(x.bytes for x in per_stage)
    budget = SM120_SMEM_CAPACITY - sum(r.bytes for r in reductions) - carveout
    return StageCount(
        stages=cpp_div(budget, per),
        capacity=SM120_SMEM_CAPACITY,
        stage_budget=budget,
        carveout=carveout,
        reductions=tuple(reductions),
        per_stage=per_stage,
        stage_bytes=per,
        formula=f"{SC}: sm100_compute_stage_count_or_override_blockscaled = (capacity - carveout) / stage_bytes",
        capacity_source="cutlass/arch/arch.h: sm120_smem_capacity_bytes",
        carveout_derived_from=(
            "epilogue.tile",
            "epilogue.stages_c",
            "epilogue.stages_d",
            "epilogue.swizzle",
            "input.tile",
            "input.types",
            "input.fusion",
            "input.swap_ab",
        ),
    )


# --- the kernel --------------------------------------------------------------------------------


def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` of the SM90 ptr-array cooperative kernel shell (KS), which the
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
    """KS: the setmaxnreg split; since CUTLASS 4.5.0 the SM120 block-scaled kernel keeps the
    compiler's allocation when RegsPerThread <= 64 (IsLowRegisterPressure)."""
    accumulators = kernel.regs_per_thread(t.tile.m, t.tile.n, MMA_THREADS)
    low = cutlass.has("low_register_pressure") and accumulators <= 64
    return kernel.register_plan(
        t.tile.m, t.tile.n, MMA_THREADS, low, MMA_THREADS // THREADS_PER_WARP_GROUP
    )


def max_threads_per_block() -> int:
    return kernel.max_threads_per_block(MMA_THREADS)


TMA_DESCRIPTORS = 4 + 1 + EPILOGUE_WARP_GROUPS
"""Tensormaps in shared memory: A, B, SFA, SFB (ML) and C, D per epilogue warp group (EP)."""
