"""The SM90 2:4 structured-sparse GMMA mainloop of one problem (`CollectiveBuilder<Sm90,
OpClassSparseTensorOp, ...>`): the builder's stage count and the mainloop's `SharedStorage`, as
CUTLASS 4.2.0 builds them.

The builder (SM90_SPARSE_GMMA_BUILDER) keeps A compressed in shared memory as `sparse_elem<2, T>` (half the bits of a
logical element), adds the metadata E (`sparse_elem<8, uint8_t>`, 1 bit per logical element of A;
`sparse_elem<4, uint8_t>`, 2 bits, for tf32) and sizes stages with
`compute_stage_count_or_override_sparse` against the whole `sm90_smem_capacity_bytes`, without
the dense builder's 128-byte round-ups. `CollectiveMma<MainloopSm90TmaGmmaWarpSpecializedSparse
[FP8]>` (SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED, SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8) lays A, B and E out, each `alignas(128)`; the kernel shell is the dense one of
the schedule (cutlint.cutlass.sm90_gemm_kernel). Header paths are relative to CUTLASS's include/.
"""

from __future__ import annotations

from cutlint.cutlass.headers import (
    SM90_SPARSE_GMMA_BUILDER,
    SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED,
    SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8,
)
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.sm90_gemm_kernel import mainloop_pipeline
from cutlint.cutlass.stage_count import SC90, SM90_SMEM_CAPACITY
from cutlint.cutlass.storage import cpp_div, pipeline_storage
from cutlint.records import Shape3, StageCount, StageTerm

TRAITS = "cute/atom/mma_traits_sm90_gmma_sparse.hpp"

# TRAITS: every SM90 sparse GMMA's ValTypeA is sparse_elem<2, T> (cute/pointer_sparse.hpp:
# sizeof_bits<sparse_elem<S, T>> = sizeof_bits<T> / S)
SPARSITY_A = 2
# TRAITS: ValTypeE = sparse_elem<8, uint8_t> (1 bit per logical A element), sparse_elem<4, uint8_t>
# (2 bits) for the tf32 atoms
METADATA_BITS = 1
METADATA_BITS_TF32 = 2
# SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED, SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8: alignas(128) ArrayEngine<...> smem_A, smem_B, smem_E
TENSOR_ALIGN = 128


def bits(a_bits: int) -> tuple[int, int]:
    """(sizeof_bits<ElementAMma>, sizeof_bits<ElementEMma>) of the sparse GMMA for a logical A of
    `a_bits` (TRAITS)."""
    return a_bits // SPARSITY_A, METADATA_BITS_TF32 if a_bits == 32 else METADATA_BITS


def stage_count(a_bits: int, b_bits: int, tile: Shape3, carveout: int) -> StageCount:
    """SM90_SPARSE_GMMA_BUILDER: compute_stage_count_or_override_sparse<sm90_smem_capacity_bytes, ElementAMma,
    ElementBMma, ElementEMma, TileShape_MNK>(StageCountAutoCarveout<carveout>) =
    (capacity - carveout) / (bits_to_bytes(a_bits*M*K) + bits_to_bytes(b_bits*N*K) +
    bits_to_bytes(e_bits*M*K) + sizeof(PipelineTmaAsync<1>::SharedStorage))."""
    a_mma, e_mma = bits(a_bits)
    per_stage = (
        StageTerm(
            name="A",
            bytes=a_mma * tile.m * tile.k // 8,
            source=f"{SM90_SPARSE_GMMA_BUILDER}: bits_to_bytes(a_bits * M * K), ElementAMma = sparse_elem<2, A>",
            derived_from=("input.tile", "input.types"),
        ),
        StageTerm(
            name="B",
            bytes=b_bits * tile.n * tile.k // 8,
            source=f"{SM90_SPARSE_GMMA_BUILDER}: bits_to_bytes(b_bits * N * K)",
            derived_from=("input.tile", "input.types"),
        ),
        StageTerm(
            name="E",
            bytes=e_mma * tile.m * tile.k // 8,
            source=f"{SM90_SPARSE_GMMA_BUILDER}: bits_to_bytes(e_bits * M * K), ElementEMma = TiledMma::ValTypeE",
            derived_from=("input.tile", "input.types"),
        ),
        StageTerm(
            name="pipeline",
            bytes=pipeline_storage(1),
            source=f"{SM90_SPARSE_GMMA_BUILDER}: sizeof(cutlass::PipelineTmaAsync<1>::SharedStorage)",
        ),
    )
    stage_bytes = sum(t.bytes for t in per_stage)
    budget = SM90_SMEM_CAPACITY - carveout
    return StageCount(
        stages=cpp_div(budget, stage_bytes),
        capacity=SM90_SMEM_CAPACITY,
        reductions=(),
        carveout=carveout,
        stage_budget=budget,
        per_stage=per_stage,
        stage_bytes=stage_bytes,
        formula=f"{SM90_SPARSE_GMMA_BUILDER}: compute_stage_count_or_override_sparse(StageCountAutoCarveout) = "
        "(sm90_smem_capacity_bytes - carveout) / stage_bytes",
        capacity_source=f"{SC90}: detail::sm90_smem_capacity_bytes",
    )


def tensor_storage(a_bits: int, b_bits: int, tile: Shape3, stages: int, fp8: bool) -> Block:
    """SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED/SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8: `struct TensorStorage { alignas(128) ArrayEngine<ElementAMma, cosize_v<SmemLayoutA>>
    smem_A; alignas(128) ... smem_B; alignas(128) ArrayEngine<ElementEMma, cosize_v<SmemLayoutE>>
    smem_E; }`: a sparse_elem<S, T> engine holds cosize / S elements of T (cute/tensor_impl.hpp),
    and the layouts tile M x K (N x K) x Stages logical elements."""
    a_mma, e_mma = bits(a_bits)
    src = (
        SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8
        if fp8
        else SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED
    )
    derived = ("builder.stages", "input.tile", "input.types")
    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                stages * tile.m * tile.k * a_mma // 8,
                TENSOR_ALIGN,
                f"{src}: alignas(128) ArrayEngine<sparse_elem<2, A>, cosize_v<SmemLayoutA>> smem_A "
                f"(M x K x Stages / 2 = {tile.m} x {tile.k} x {stages} / 2)",
                derived,
            ),
            array(
                "smem_B",
                stages * tile.n * tile.k * b_bits // 8,
                TENSOR_ALIGN,
                f"{src}: alignas(128) ArrayEngine<ElementBMma, cosize_v<SmemLayoutB>> smem_B "
                f"(N x K x Stages = {tile.n} x {tile.k} x {stages})",
                derived,
            ),
            array(
                "smem_E",
                stages * tile.m * tile.k * e_mma // 8,
                TENSOR_ALIGN,
                f"{src}: alignas(128) ArrayEngine<ElementEMma, cosize_v<SmemLayoutE>> smem_E "
                f"({e_mma} bit(s) x M x K x Stages = {tile.m} x {tile.k} x {stages})",
                derived,
            ),
        ],
        f"{src}: CollectiveMma::SharedStorage::TensorStorage",
    )


def shared_storage(a_bits: int, b_bits: int, tile: Shape3, stages: int, fp8: bool) -> Block:
    """`sizeof(CollectiveMainloop::SharedStorage)`: { TensorStorage tensors; PipelineTmaAsync<
    Stages>::SharedStorage pipeline; }."""
    return struct(
        "CollectiveMainloop::SharedStorage",
        [
            tensor_storage(a_bits, b_bits, tile, stages, fp8).at("tensors"),
            mainloop_pipeline(stages, cp_async=False).at("pipeline"),
        ],
        f"{SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8 if fp8 else SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED}: CollectiveMma::SharedStorage",
    )
