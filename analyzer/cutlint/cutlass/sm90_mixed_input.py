"""The SM90 mixed-input (narrow weight x wide activation) GMMA mainloop as TensorRT-LLM's
interleaved builder builds it for FlashInfer's fpA_intB GEMM: its stage count and its
`SharedStorage`.

    CollectiveBuilderInterleaved<Sm90, OpClassTensorOp, tuple<Weight, Scale[, Zero]>, ColumnMajor,
        AlignA, Activation, RowMajor, AlignB, float, Tile, Cluster, StageCountAutoCarveout<N>,
        KernelTmaWarpSpecialized{Pingpong,Cooperative}>                                   (EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED)
    -> CollectiveMmaInterleaved<MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput<...>>    (EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT)

The weight is the tuple, so it is the transformed A operand (no swap); the stage count is
CUTLASS's `compute_stage_count_or_override_single_affine_transformed_input` (SM90_GMMA_BUILDER) with
`sm90_smem_capacity_bytes` and the default 128-byte alignment (cutlint.cutlass.stage_count):

    stage_bytes = round_up(M x K of A + N x K of B + M of ElementScale + M of ElementZero, 128)
                  + sizeof(PipelineTmaAsync<1>::SharedStorage)

EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT's `SharedStorage` is `{ TensorStorage tensors; PipelineTmaAsync<Stages>::SharedStorage
pipeline; }` with

    struct TensorStorage : cute::aligned_struct<max(SmemAlignmentA, SmemAlignmentB)> {
      ArrayEngine<RealInternalElementA, cosize_v<SmemLayoutA>> smem_A;      // M x K x Stages
      ArrayEngine<TiledMma::ValTypeB, cosize_v<SmemLayoutB>> smem_B;        // N x K x Stages
      ArrayEngine<NonVoidElementScale, scale_elements> smem_scale;          // M x Stages or 0
      ArrayEngine<NonVoidElementZero, zero_elements> smem_zero; };          // M x Stages or 0

`ArrayEngine<T, N>` (cute/tensor_impl.hpp) is `array_aligned<T, N>` (16-byte aligned) for a
whole-byte T and `array_subbyte<T, N>` (`uint8_t storage[ceil(N x bits / 8)]`, 1-byte aligned)
for a 4-bit weight; an `array_aligned<T, 0>` still occupies 16 bytes. Header paths of TensorRT-LLM
are under FlashInfer's `csrc/nv_internal/tensorrt_llm/cutlass_extensions/include/`, CUTLASS's
under `include/`. The same text in FlashInfer 0.6.3 (CUTLASS 4.2.1) and 0.7.4 (CUTLASS 4.5.0).
"""

from __future__ import annotations

from typing import Any

from cutlint.cutlass.epilogue import swizzle_align
from cutlint.cutlass.headers import (
    EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED,
    EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT,
    EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_,
    EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE,
    EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
    SM90_GMMA_BUILDER,
)
from cutlint.cutlass.layout import Block, aligned_struct_alignment, array, empty, round_up, struct
from cutlint.cutlass.sm90_gemm_kernel import mainloop_pipeline
from cutlint.cutlass.stage_count import SM90_STAGE_ALIGNMENT, Sm90StageInputs, sm90_stage_count
from cutlint.records import Shape3, StageCount, StageTerm

TENSOR_IMPL = "cute/tensor_impl.hpp"
# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED = 16
# SM90_GMMA_BUILDER: compute_stage_count_or_override_single_affine_transformed_input: scale_zero_k_tile = 1
SCALE_ZERO_K_TILE = 1
# EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: get_smem_interleave_layout: w4a8, w4a16, w8a16 (static_assert otherwise)
INTERLEAVED_WIDTHS = frozenset({(4, 8), (4, 16), (8, 16)})

_NO_KERNEL_CARVEOUT: tuple[StageTerm, ...] = (
    StageTerm(
        name="KernelSmemCarveout",
        bytes=0,
        source=f"{EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED}: compute_stage_count_or_override_single_affine_transformed_input<"
        "detail::sm90_smem_capacity_bytes, ...>: no tensormap or scheduler carveout",
    ),
)


def interleaved_stage_count(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    zero_bits: int,
    tile: Shape3,
    carveout: int,
) -> StageCount:
    """EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED: PipelineStages = compute_stage_count_or_override_single_affine_transformed_input<
    sm90_smem_capacity_bytes, RealElementA = weight, RealElementB = activation, ElementScale,
    ElementZero, TileShape_MNK>(StageCountAutoCarveout<carveout>) with SM90_GMMA_BUILDER's default alignment 128;
    a void ElementZero has 0 bits (SM90_GMMA_BUILDER: get_bits_for_possibly_void_element)."""
    scale = scale_bits * tile.m * SCALE_ZERO_K_TILE // 8
    zero = zero_bits * tile.m * SCALE_ZERO_K_TILE // 8
    count = sm90_stage_count(
        Sm90StageInputs(
            a_bits=weight_bits,
            b_bits=activation_bits,
            tile_m=tile.m,
            tile_n=tile.n,
            tile_k=tile.k,
            carveout=carveout,
            kernel_carveout=_NO_KERNEL_CARVEOUT,
            alignment=SM90_STAGE_ALIGNMENT,
            scale_bytes=scale,
            zero_bytes=zero,
        )
    )
    return count.model_copy(
        update={
            "formula": f"{EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED}: {SM90_GMMA_BUILDER}: compute_stage_count_or_override_single_affine_transformed_"
            "input(StageCountAutoCarveout) = (sm90_smem_capacity_bytes - carveout, each aligned "
            "to 128) / stage_bytes"
        }
    )


def interleaved_smem_alignment(weight_bits: int, activation_bits: int, tile: Shape3) -> int:
    """EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: max(SmemAlignmentA, SmemAlignmentB), each `alignment_for_swizzle` of the K-major
    smem layout that EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED's rs_smem_selector picks (the widest swizzle atom dividing K x bits)."""
    return max(swizzle_align(tile.k * weight_bits), swizzle_align(tile.k * activation_bits))


def _engine(name: str, elements: int, bits: int, what: str, derived: tuple[str, ...]) -> Block:
    """`cute::ArrayEngine<T, elements>` (TENSOR_IMPL): array_aligned for whole-byte T, else
    array_subbyte (uint8_t storage, no alignas)."""
    if bits % 8 == 0:
        return array(
            name,
            max(round_up(elements * bits // 8, ARRAY_ALIGNED), ARRAY_ALIGNED),
            ARRAY_ALIGNED,
            f"{EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: cute::ArrayEngine<{what}, {elements}> {name} ({TENSOR_IMPL}: "
            f"array_aligned<T, N, {ARRAY_ALIGNED}>)",
            derived,
        )
    return array(
        name,
        max(-(-elements * bits // 8), 1),
        1,
        f"{EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: cute::ArrayEngine<{what}, {elements}> {name} ({TENSOR_IMPL}: array_subbyte, "
        f"uint8_t storage[{elements} x {bits} / 8])",
        derived,
    )


def interleaved_tensor_storage(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    zero_bits: int,
    tile: Shape3,
    stages: int,
) -> Block:
    """EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: `CollectiveMainloop::SharedStorage::TensorStorage` (module docstring). `zero_bits` 0:
    no zero points (zero_elements = 0, NonVoidElementZero = float)."""
    derived = ("builder.stages", "input.tile", "input.types")
    vector = tile.m * stages
    return struct(
        "mainloop",
        [
            _engine(
                "smem_A", tile.m * tile.k * stages, weight_bits, "RealInternalElementA", derived
            ),
            _engine(
                "smem_B", tile.n * tile.k * stages, activation_bits, "TiledMma::ValTypeB", derived
            ),
            _engine("smem_scale", vector, scale_bits, "NonVoidElementScale", derived),
            _engine(
                "smem_zero",
                vector if zero_bits else 0,
                zero_bits or 32,
                "NonVoidElementZero",
                derived,
            ),
        ],
        f"{EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<"
        f"max(SmemAlignmentA, SmemAlignmentB) = "
        f"{interleaved_smem_alignment(weight_bits, activation_bits, tile)}> (cute/container/"
        "alignment.hpp: alignas only up to 256)",
        base_align=aligned_struct_alignment(
            interleaved_smem_alignment(weight_bits, activation_bits, tile)
        ),
    )


def interleaved_shared_storage(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    zero_bits: int,
    tile: Shape3,
    stages: int,
) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)` of EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT: { TensorStorage tensors; pipeline; }."""
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            interleaved_tensor_storage(
                weight_bits=weight_bits,
                activation_bits=activation_bits,
                scale_bits=scale_bits,
                zero_bits=zero_bits,
                tile=tile,
                stages=stages,
            ).at("tensors"),
            mainloop_pipeline(stages, cp_async=False).at("pipeline"),
        ],
        f"{EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: CollectiveMma::SharedStorage",
    )


# --- the ptr-array (grouped) mixed-input mainloop of the MoE launcher ---------------------------
#
#   CollectiveBuilderMixedInput<Sm90, OpClassTensorOp, tuple<Weight, Scale>, ColumnMajor^T*, ...,
#       Activation, RowMajor^T*, ..., StageCountAutoCarveout<N>, KernelPtrArrayTmaWarpSpecialized
#       {Cooperative,Pingpong}, ScaleMode>                                                   (EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT)
#   -> CollectiveMmaArrayMixedInput<MainloopSm90ArrayTmaGmmaWarpSpecializedMixedInput[PreScale]>
#      (EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_: kPostMma; EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE: kPreMmaE8M0, FP4 weight x FP8 activation)

# EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: TensorMapStorage = sizeof(cute::TmaDescriptor) * IsMixedInput * 2 (A and B), the
# KernelSmemCarveout of a ptr-array schedule
ARRAY_TENSORMAP_CARVEOUT = 2 * 128
# EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: compute_stage_count_or_override_folded_weight_scale: computed_stage_count < 2 ? 2 : ...
MIN_FOLDED_STAGES = 2


def array_smem_alignment(weight_bits: int, activation_bits: int, tile: Shape3) -> tuple[int, int]:
    """EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: SmemAlignmentA/B = alignment_for_swizzle of the K-major rs_smem_selector atoms (A: the
    weight, B: the activation); SmemAlignment is their max."""
    return swizzle_align(tile.k * weight_bits), swizzle_align(tile.k * activation_bits)


def folded_stage_count(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    group_size: int,
    tile: Shape3,
    carveout: int,
) -> StageCount:
    """EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: PipelineStages = compute_stage_count_or_override_folded_weight_scale<
    sm90_smem_capacity_bytes - KernelSmemCarveout, weight, activation, ElementScale, void, Tile,
    SmemAlignment>(StageCountAutoCarveout<carveout>): one stage of weight, activation and the
    M x K / group_size scales (no zero points), at least 2."""
    alignment = max(array_smem_alignment(weight_bits, activation_bits, tile))
    count = sm90_stage_count(
        Sm90StageInputs(
            a_bits=weight_bits,
            b_bits=activation_bits,
            tile_m=tile.m,
            tile_n=tile.n,
            tile_k=tile.k,
            carveout=carveout,
            kernel_carveout=(
                StageTerm(
                    name="TensorMapStorage",
                    bytes=ARRAY_TENSORMAP_CARVEOUT,
                    source=f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT}: KernelSmemCarveout = TensorMapStorage = sizeof(cute::TmaDescriptor)"
                    " * IsMixedInput * 2",
                ),
            ),
            alignment=alignment,
            scale_bytes=scale_bits * tile.m * tile.k // group_size // 8,
            scale_source=f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT}: compute_stage_count_or_override_folded_weight_scale: bits_to_bytes("
            f"s_bits * M * K / DefaultWeightScaleGroupSize = {group_size})",
        )
    )
    return count.model_copy(
        update={
            "stages": max(count.stages, MIN_FOLDED_STAGES),
            "formula": f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT}: compute_stage_count_or_override_folded_weight_scale("
            "StageCountAutoCarveout) = max(2, (sm90_smem_capacity_bytes - KernelSmemCarveout - "
            f"carveout, each aligned to SmemAlignment = {alignment}) / stage_bytes)",
        }
    )


def array_tensor_storage(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    group_size: int,
    tile: Shape3,
    stages: int,
    prescale: bool,
    zero_engine: bool = False,
) -> Block:
    """EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_ / EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE: `struct TensorStorage { CUTE_ALIGNAS(SmemAlignmentA) ArrayEngine<weight,
    M x K x Stages> smem_A; CUTE_ALIGNAS(SmemAlignmentB) ArrayEngine<ValTypeB, N x K x Stages>
    smem_B; ArrayEngine<WeightScaleRawElement, scale_elements> smem_scale; }` (EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE adds the empty
    smem_activation_scale and smem_zero engines). scale_elements = cosize of the folded
    SmemLayoutWeightScaleRaw = M x K / group_size x Stages."""
    src = (
        EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE
        if prescale
        else EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_
    )
    derived = ("builder.stages", "input.tile", "input.types")
    align_a, align_b = array_smem_alignment(weight_bits, activation_bits, tile)
    members = [
        _engine("smem_A", tile.m * tile.k * stages, weight_bits, "RealSwappedElementA", derived).at(
            "smem_A", align_a
        ),
        _engine(
            "smem_B", tile.n * tile.k * stages, activation_bits, "TiledMma::ValTypeB", derived
        ).at("smem_B", align_b),
        _engine(
            "smem_scale",
            tile.m * tile.k // group_size * stages,
            scale_bits,
            "WeightScaleRawElement",
            derived,
        ),
    ]
    if zero_engine:
        # FlashInfer 0.6.x's collective: ArrayEngine<NonVoidElementZero = float, 0> smem_zero
        members.append(_engine("smem_zero", 0, 32, "NonVoidElementZero", derived))
    if prescale:
        members += [
            _engine("smem_activation_scale", 0, 32, "NonVoidElementActivationScale", derived),
            _engine("smem_zero", 0, 32, "NonVoidElementZero", derived),
        ]
    return struct("mainloop", members, f"{src}: CollectiveMma::SharedStorage::TensorStorage")


def array_shared_storage(**kwargs: Any) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)` of EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_ / EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE: { TensorStorage tensors;
    PipelineTmaAsync<Stages>::SharedStorage pipeline; } (TensorMapStorage is an empty nested type,
    not a member)."""
    src = (
        EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE
        if kwargs["prescale"]
        else EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_
    )
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            array_tensor_storage(**kwargs).at("tensors"),
            mainloop_pipeline(kwargs["stages"], cp_async=False).at("pipeline"),
        ],
        f"{src}: CollectiveMma::SharedStorage",
    )


def array_tensormaps() -> Block:
    """EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_ / EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE: `struct TensorMapStorage {};` (the A and B descriptors are prebuilt in global
    memory): an empty struct, 1 byte, that the kernel places at alignas(128)."""
    return empty(
        "mainloop",
        f"{EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_}: struct TensorMapStorage {{}} (prebuilt TMA descriptors)",
    )


def fixed_array_stage_count(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    group_size: int,
    tile: Shape3,
    stages: int,
) -> StageCount:
    """EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: compute_stage_count_or_override_folded_weight_scale(StageCount<N>) = N; the per-stage
    terms are what the automatic count would have counted."""
    auto = folded_stage_count(
        weight_bits=weight_bits,
        activation_bits=activation_bits,
        scale_bits=scale_bits,
        group_size=group_size,
        tile=tile,
        carveout=0,
    )
    return auto.model_copy(
        update={
            "stages": stages,
            "carveout": 0,
            "stage_budget": stages * auto.stage_bytes,
            "reductions": (),
            "fixed": True,
            "formula": f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT}: compute_stage_count_or_override_folded_weight_scale(StageCount<N>) = N",
        }
    )


def packed_scale_stage_count(
    *,
    weight_bits: int,
    activation_bits: int,
    scale_bits: int,
    group_size: int,
    tile: Shape3,
    carveout: int,
    tensormaps: int,
) -> StageCount:
    """FlashInfer 0.6.x's EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT: compute_stage_count_or_override_single_affine_transformed_input<
    sm90_smem_capacity_bytes - tensormaps x sizeof(TmaDescriptor), weight, activation,
    ElementScale = Array<Scale, K / group_size>, void, Tile, carveout, SmemAlignment> (SM90_GMMA_BUILDER of
    CUTLASS 4.2.1): one Array of scales per row of M per stage, no clamp to 2."""
    alignment = max(array_smem_alignment(weight_bits, activation_bits, tile))
    count = sm90_stage_count(
        Sm90StageInputs(
            a_bits=weight_bits,
            b_bits=activation_bits,
            tile_m=tile.m,
            tile_n=tile.n,
            tile_k=tile.k,
            carveout=carveout,
            kernel_carveout=(
                StageTerm(
                    name="TensorMapStorage",
                    bytes=tensormaps * 128,
                    source=f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT} (FlashInfer 0.6.x): KernelSmemCarveout = TensorMapStorage = "
                    f"sizeof(cute::TmaDescriptor) * IsMixedInput * {tensormaps}",
                ),
            ),
            alignment=alignment,
            scale_bytes=scale_bits * (tile.k // group_size) * tile.m // 8,
            scale_source=f"{SM90_GMMA_BUILDER}: bits_to_bytes(s_bits * M * scale_zero_k_tile = 1) with ElementScale "
            f"= Array<Scale, K / {group_size}>",
        )
    )
    return count.model_copy(
        update={
            "formula": f"{EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT} (FlashInfer 0.6.x): {SM90_GMMA_BUILDER}: compute_stage_count_or_override_single_"
            "affine_transformed_input(StageCountAutoCarveout) = (sm90_smem_capacity_bytes - "
            f"KernelSmemCarveout - carveout, each aligned to SmemAlignment = {alignment}) / "
            "stage_bytes"
        }
    )


def legacy_array_tensormaps(descriptors: int) -> Block:
    """FlashInfer 0.6.x's EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_: `struct TensorMapStorage { cute::TmaDescriptor smem_tensormap_A,
    smem_tensormap_B, smem_tensormap_scale, smem_tensormap_zero; }`."""
    return array(
        "mainloop",
        descriptors * 128,
        64,
        f"{EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_} (FlashInfer 0.6.x): TensorMapStorage {{ {descriptors} x cute::TmaDescriptor "
        "(alignas(64), 128 B) }",
    )
