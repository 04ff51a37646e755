"""The SM90 blockwise-scaled FP8 mainloop of one problem (`KernelTmaWarpSpecialized{Cooperative,
Pingpong}FP8Blockwise`): the scale factors its builder counts per stage and the mainloop's
`SharedStorage`, as CUTLASS 4.2.0 builds them.

`CollectiveBuilder<Sm90, OpClassTensorOp, ElementA, tuple<LayoutA, LayoutSFA>, ..., KernelSchedule
FP8Blockwise>` (SM90_GMMA_BUILDER) takes the scale granularities from the SFA/SFB layouts
(`Sm90BlockwiseScaleConfig<SFVecSizeM, SFVecSizeN, SFVecSizeK>`, BLOCKWISE_SCALE_LAYOUT), sizes stages with
`compute_stage_count_with_blockwise_scale` (cutlint.cutlass.stage_count.sm90_stage_count with
`block_scales`) and builds `CollectiveMma<MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8>` (SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING),
whose shell is the cooperative or pingpong TMA kernel of its base schedule; the ptr-array
schedule `KernelPtrArrayTmaWarpSpecializedCooperativeFP8Blockwise` builds
`MainloopSm90ArrayTmaGmmaWarpSpecializedBlockwise` (SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING) for the ptr-array shell. Header paths
are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.headers import (
    SM90_GMMA_BUILDER,
    SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING,
    SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING,
)
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.mainloop import sm90_array_tensormaps
from cutlint.cutlass.sm90_gemm_kernel import ARRAY_ALIGNED, mainloop_pipeline
from cutlint.records import Shape3, StageTerm

# SM90_GMMA_BUILDER: ElementBlockScale = ElementAccumulator (SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING static_asserts they are the same: float)
SCALE_BYTES = 4
# SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: CUTE_ALIGNAS(128) cute::array<ElementBlockScale, cosize_v<SmemLayoutSF*>> smem_SFA, smem_SFB
SCALE_ARRAY_ALIGN = 128


@dataclass(frozen=True)
class Granularity:
    """SFVecSizeM/N/K of the SFA and SFB layouts (SM90_GMMA_BUILDER: ScaleGranularityM = size<0,0>(LayoutSFA),
    ScaleGranularityN = size<0,0>(LayoutSFB), ScaleGranularityK = size<1,0>(LayoutSFA))."""

    m: int
    n: int
    k: int

    def scales_per_tile(self, tile: Shape3) -> tuple[int, int]:
        """SM90_GMMA_BUILDER, SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: ScaleMsPerTile = M / ScaleGranularityM, ScaleNsPerTile = N / ScaleGranularityN
        (both static_assert that the granularity divides the tile)."""
        return tile.m // self.m, tile.n // self.n

    def k_blocks(self, tile: Shape3) -> int:
        """BLOCKWISE_SCALE_LAYOUT: smem_atom_layoutSF{A,B}'s K mode holds ceil_div(K, SFVecSizeK) scales."""
        return -(-tile.k // self.k)

    def outside(self, tile: Shape3) -> str | None:
        """Why the builder rejects this granularity for `tile` (a static_assert), or None."""
        if tile.m % self.m or tile.n % self.n:
            return (
                f"scale granularity {self.m}x{self.n} does not divide tile {tile}: the builder's "
                "static_assert 'FP8 scaling granularity must evenly divide tile shape' (does not "
                "compile; not modeled)"
            )
        if tile.k % self.k:
            return f"scale granularity K {self.k} does not divide tile K {tile.k} (SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING static_assert)"
        return None


def stage_terms(g: Granularity, tile: Shape3) -> tuple[StageTerm, ...]:
    """SM90_GMMA_BUILDER: compute_stage_count_with_blockwise_scale's per-stage scale bytes,
    bits_to_bytes(scale_bits x ScaleMsPerTile) + bits_to_bytes(scale_bits x ScaleNsPerTile) (one
    K block: the builder does not multiply by ceil_div(K, SFVecSizeK))."""
    ms, ns = g.scales_per_tile(tile)
    return (
        StageTerm(
            name="SFA",
            bytes=SCALE_BYTES * ms,
            source=f"{SM90_GMMA_BUILDER}: compute_stage_count_with_blockwise_scale: "
            "bits_to_bytes(scale_bits * ScaleMsPerTile)",
            derived_from=("input.tile", "input.scales"),
        ),
        StageTerm(
            name="SFB",
            bytes=SCALE_BYTES * ns,
            source=f"{SM90_GMMA_BUILDER}: compute_stage_count_with_blockwise_scale: "
            "bits_to_bytes(scale_bits * ScaleNsPerTile)",
            derived_from=("input.tile", "input.scales"),
        ),
    )


def tensor_storage(
    a_bits: int, b_bits: int, g: Granularity, tile: Shape3, stages: int, ptr_array: bool = False
) -> Block:
    """SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: `struct TensorStorage : cute::aligned_struct<128> { array_aligned<ValTypeA,
    cosize_v<SmemLayoutA>> smem_A; ... smem_B; CUTE_ALIGNAS(128) array<ElementBlockScale,
    cosize_v<SmemLayoutSFA>> smem_SFA; ... smem_SFB; }`. SmemLayoutSFA appends Stages to BLOCKWISE_SCALE_LAYOUT's
    smem atom ((SFVecSizeM, ScaleMsPerTile), (SFVecSizeK, K blocks)) with a stage stride of its
    non-zero size: cosize = ScaleMsPerTile x K blocks x Stages (SFB likewise with N)."""
    ms, ns = g.scales_per_tile(tile)
    kb = g.k_blocks(tile)
    derived = ("builder.stages", "input.tile", "input.types")
    # SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: TensorStorage : aligned_struct<128, _0> { array_aligned<...> smem_A, smem_B, smem_SFA,
    # smem_SFB; }: the scales are array_aligned (16), not CUTE_ALIGNAS(128)
    src, sf_align, sf_decl = (
        (
            SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING,
            ARRAY_ALIGNED,
            "cute::array_aligned",
        )
        if ptr_array
        else (
            SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING,
            SCALE_ARRAY_ALIGN,
            "CUTE_ALIGNAS(128) cute::array",
        )
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
                derived,
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * b_bits // 8,
                ARRAY_ALIGNED,
                f"{src}: cute::array_aligned<ValTypeB, cosize_v<SmemLayoutB>> smem_B "
                f"(N x K x Stages = {tile.n} x {tile.k} x {stages})",
                derived,
            ),
            array(
                "smem_SFA",
                SCALE_BYTES * ms * kb * stages,
                sf_align,
                f"{src}: {sf_decl}<float, cosize_v<SmemLayoutSFA>> smem_SFA "
                f"(ScaleMsPerTile x K blocks x Stages = {ms} x {kb} x {stages})",
                (*derived, "input.scales"),
            ),
            array(
                "smem_SFB",
                SCALE_BYTES * ns * kb * stages,
                sf_align,
                f"{src}: {sf_decl}<float, cosize_v<SmemLayoutSFB>> smem_SFB "
                f"(ScaleNsPerTile x K blocks x Stages = {ns} x {kb} x {stages})",
                (*derived, "input.scales"),
            ),
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128>",
        base_align=128,
    )


def shared_storage(
    a_bits: int, b_bits: int, g: Granularity, tile: Shape3, stages: int, ptr_array: bool = False
) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)` of SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: { TensorStorage tensors;
    PipelineTmaAsync<Stages>::SharedStorage pipeline; }; SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING: { tensors; TensorMapStorage :
    aligned_struct<128, _0> { smem_tensormap_A, smem_tensormap_B } tensormaps; pipeline; }."""
    tensors = tensor_storage(a_bits, b_bits, g, tile, stages, ptr_array).at("tensors")
    pipeline = mainloop_pipeline(stages, cp_async=False).at("pipeline")
    if ptr_array:
        return struct(
            "CollectiveMainloop::SharedStorage",
            [tensors, sm90_array_tensormaps().at("tensormaps"), pipeline],
            f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING}: CollectiveMma::SharedStorage",
        )
    return struct(
        "CollectiveMainloop::SharedStorage",
        [tensors, pipeline],
        f"{SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING}: CollectiveMma::SharedStorage",
    )
