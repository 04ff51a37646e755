"""`FusionCallbacks::SharedStorage` of the epilogue fusions FlashInfer's MoE launcher builds: the
`thread` member of the TMA epilogue's TensorStorage.

The visitor trees keep their children's storage in a `cute::tuple`, whose empty-base layout gives
empty nodes no bytes; only the broadcast nodes that stage a row in shared memory have any.
"""

from __future__ import annotations

from cutlint.cutlass.layout import Block, array, empty, round_up

CALLBACKS = "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp"
ROW_BROADCAST = (
    "cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp: Sm90RowBroadcast"
)
SCATTER = (
    "cutlass_extensions/epilogue/fusion/sm90_visitor_scatter.hpp (TensorRT-LLM, vendored by "
    "FlashInfer)"
)
# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED_DEFAULT = 16
# What the storage's size comes from, for the derivation graph (records.Region.derived_from).
FUSION_FROM = ("input.tile", "input.fusion", "input.swap_ab", "input.types")


def linear_combination(ptr_array: bool = True) -> Block:
    """`LinearCombination` (the NONE fusion): every node's SharedStorage is empty, so the member
    is an empty struct of size 1 (Sm90LinearCombinationPtrArray for the ptr-array epilogues,
    Sm90LinearCombination for the single-problem ones)."""
    callbacks = "Sm90LinearCombinationPtrArray" if ptr_array else "Sm90LinearCombination"
    return empty(
        "thread",
        f"{CALLBACKS}: {callbacks}: every node's SharedStorage is empty",
        FUSION_FROM,
    )


def finalize_scatter(tile_n: int, swap_ab: bool, bias_bits: int) -> Block:
    """FlashInfer's FINALIZE fusion: the scatter visitor trees of `sm90_visitor_scatter.hpp`.

    The only node with shared storage is the `Sm90RowBroadcast` (`array_aligned<ElementInput,
    size<1>(CtaTileShapeMNK)> smem`, ROW_BROADCAST): with SwapAB on (launcher:
    ScaledAccPerRowBiasPerColScaleScatter) it stages the float router scales, else
    (ScaledAccPerColBiasPerRowScaleScatter) the bias, in the output type (launcher: ElementBias =
    ElementFinalOutput). The Sm90ColBroadcast, scalar broadcast, compute and scatter nodes have
    empty SharedStorage.
    """
    if swap_ab:
        return array(
            "thread.scale",
            round_up(4 * tile_n, ARRAY_ALIGNED_DEFAULT),
            ARRAY_ALIGNED_DEFAULT,
            f"{SCATTER}: ScaledAccPerRowBiasPerColScaleScatter, {ROW_BROADCAST}<..., "
            "ElementScalar* = float*>: array_aligned<float, CTA_N> smem",
            FUSION_FROM,
        )
    return array(
        "thread.bias",
        round_up(bias_bits * tile_n // 8, ARRAY_ALIGNED_DEFAULT),
        ARRAY_ALIGNED_DEFAULT,
        f"{SCATTER}: ScaledAccPerColBiasPerRowScaleScatter, {ROW_BROADCAST}<..., ElementBias*>: "
        "array_aligned<ElementBias, CTA_N> smem",
        FUSION_FROM,
    )


def per_col_bias(tile_n: int, bias_bits: int) -> Block:
    """`fusion::LinCombPerColBias` on the SM90 / SM120 TMA epilogue (CALLBACKS:
    Sm90LinCombPerColBias): the bias is an `Sm90RowBroadcast<0, CtaTileShapeMNK, ElementBias, ...>`
    whose SharedStorage is `array_aligned<ElementBias, size<1>(CtaTileShapeMNK)> smem` (ROW_BROADCAST);
    the scalar broadcasts, the source and accumulator fetches and the compute nodes are empty."""
    return array(
        "thread",
        round_up(bias_bits * tile_n // 8, ARRAY_ALIGNED_DEFAULT),
        ARRAY_ALIGNED_DEFAULT,
        f"{CALLBACKS}: Sm90LinCombPerColBias, {ROW_BROADCAST}<0, ..., ElementBias>: "
        "array_aligned<ElementBias, CTA_N> smem",
        FUSION_FROM,
    )


def per_row_bias() -> Block:
    """`fusion::LinCombPerRowBias` (CALLBACKS: Sm90LinCombPerRowBias): the bias is an
    `Sm90ColBroadcast`, whose SharedStorage is empty (each thread loads its rows from global
    memory), as are all the other nodes: an empty struct of size 1."""
    return empty(
        "thread",
        f"{CALLBACKS}: Sm90LinCombPerRowBias: Sm90ColBroadcast::SharedStorage {{}} and every other "
        "node's SharedStorage is empty",
        FUSION_FROM,
    )
