"""The SM90 ptr-array TMA GMMA mainloop's shared storage:
`CollectiveMma<MainloopSm90ArrayTmaGmmaWarpSpecialized<...>>`
(`cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized.hpp`, SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED).

    struct SharedStorage {
      struct TensorStorage : aligned_struct<128, _0> {
        array_aligned<ValTypeA, cosize_v<SmemLayoutA>> smem_A;   // M x K x Stages
        array_aligned<ValTypeB, cosize_v<SmemLayoutB>> smem_B;   // N x K x Stages
      } tensors;
      struct TensorMapStorage : aligned_struct<128, _0> { TmaDescriptor smem_tensormap_A, _B; } tensormaps;
      PipelineTmaAsync<Stages>::SharedStorage pipeline;
    };

The SS builder (`sm90_gmma_builder.inl`) and the FP8 fast-accumulation builder both pick this
collective for the ptr-array kernel schedules. `SmemLayoutA/B` are `tile_to_shape` of a GMMA
layout atom that divides the tile, so their cosize is exactly M*K*Stages and N*K*Stages
elements. Unchanged between CUTLASS 4.2.1 and 4.5.0.
"""

from __future__ import annotations

from cutlint.cutlass.headers import SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED, SM90_PIPELINE
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    pipeline_storage,
)

# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED = 16


def sm90_array_tensor_storage(
    a_bits: int, b_bits: int, tile_m: int, tile_n: int, tile_k: int, stages: int
) -> Block:
    """SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>."""
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile_m * tile_k * a_bits // 8,
                ARRAY_ALIGNED,
                f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: cute::array_aligned<TiledMma::ValTypeA, cosize_v<SmemLayoutA>> smem_A "
                f"(M x K x Stages = {tile_m} x {tile_k} x {stages})",
            ),
            array(
                "smem_B",
                stages * tile_n * tile_k * b_bits // 8,
                ARRAY_ALIGNED,
                f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: cute::array_aligned<TiledMma::ValTypeB, cosize_v<SmemLayoutB>> smem_B "
                f"(N x K x Stages = {tile_n} x {tile_k} x {stages})",
            ),
        ],
        f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def sm90_array_tensormaps() -> Block:
    """SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED: TensorMapStorage : cute::aligned_struct<128, _0> { smem_tensormap_A, smem_tensormap_B }."""
    return struct(
        "mainloop",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("A", "B")
        ],
        f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: CollectiveMma::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def sm90_array_pipeline(stages: int) -> Block:
    """SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED: MainloopPipeline = PipelineTmaAsync<Stages>; its SharedStorage."""
    return array(
        "mainloop",
        pipeline_storage(stages),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTmaAsync<{stages}>::SharedStorage",
    )


def sm90_array_shared_storage(
    a_bits: int, b_bits: int, tile_m: int, tile_n: int, tile_k: int, stages: int
) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)` (SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED)."""
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            sm90_array_tensor_storage(a_bits, b_bits, tile_m, tile_n, tile_k, stages).at("tensors"),
            sm90_array_tensormaps().at("tensormaps"),
            sm90_array_pipeline(stages).at("pipeline"),
        ],
        f"{SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED}: CollectiveMma::SharedStorage",
    )
