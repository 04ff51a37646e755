"""The SM120 TMA epilogue of a kernel of one problem, as CUTLASS 4.5.0 builds it.

`epilogue::collective::CollectiveBuilder<Sm120, ...>` (SM120_EPILOGUE_BUILDER) with `EpilogueScheduleAuto`,
`TmaWarpSpecialized` or `TmaWarpSpecializedCooperative` and a stride that is not a pointer picks
`Sm120TmaWarpSpecialized<StagesC, StagesD, 4, ReuseSmem, DelayTmaStore>`, whose collective is the
SM90 one (`Sm90TmaWarpSpecialized`, SM90_EPILOGUE_TMA_WARPSPECIALIZED). Its `SharedStorage` is the C/D buffers (a union when
there is no C or when C and D reuse one buffer), the fusion's storage and the C load pipeline.
Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.headers import (
    SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED,
    SM90_EPILOGUE_TMA_WARPSPECIALIZED,
    SM90_PIPELINE,
    SM120_EPILOGUE_BUILDER,
)
from cutlint.cutlass.layout import Block, array, empty, struct, union
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    pipeline_storage,
)
from cutlint.records import EpilogueTile, Shape3

# SM120_EPILOGUE_BUILDER: sm120_compute_tile_shape_or_override, EpilogueTileAuto (not FP6, not sparse): Shape<_64,_32>
EPI_TILE_M = 64
EPI_TILE_N = 32


@dataclass(frozen=True)
class EpilogueOperands:
    """The element types and layout the epilogue is built from."""

    c_bits: int
    """sizeof_bits of ElementC; 0 for `void` (no source: cutlass::sizeof_bits<void> = 0)."""
    d_bits: int
    d_column_major: bool
    """LayoutD is ColumnMajor (FlashInfer's SwapAB launchers): M is the contiguous extent."""
    d_fp6: bool = False
    """ElementD is float_e3m2_t or float_e2m3_t: SM120_EPILOGUE_BUILDER picks a 128-wide subtile and one D stage, and
    the smem element is the 8-bit container (cutlass/float_subbyte.h:
    get_unpacked_element_type<float_e3m2_t> = float_e3m2_unpack8bits_t)."""

    @property
    def d_smem_bits(self) -> int:
        """sizeof_bits of SmemElementD (SM90_EPILOGUE_TMA_WARPSPECIALIZED: get_unpacked_element_type<ElementD>)."""
        return 8 if self.d_fp6 else self.d_bits


EpiTile = tuple[int, int] | None
"""An explicit EpilogueTile (`Shape<_16, _32>`: M, N); None for EpilogueTileAuto."""


def tile_shape(ops: EpilogueOperands, epi_tile: EpiTile = None) -> tuple[int, int]:
    """SM120_EPILOGUE_BUILDER: sm120_compute_tile_shape_or_override, EpilogueTileAuto: 64x32, or for an FP6 ElementD
    the 128-wide contiguous extent TMA needs (64x128 row-major D, 128x32 column-major D); an
    explicit cute::Shape EpilogueTile is returned as given (`is_tuple<EpilogueTileType>`)."""
    if epi_tile is not None:
        return epi_tile
    if ops.d_fp6:
        return (128, EPI_TILE_N) if ops.d_column_major else (EPI_TILE_M, 128)
    return EPI_TILE_M, EPI_TILE_N


def sparse_tile_shape(ops: EpilogueOperands, sf_vec_size: int) -> tuple[int, int]:
    """SM120_EPILOGUE_BUILDER: sm120_compute_tile_shape_or_override, EpilogueTileAuto under
    SparseTmaWarpSpecializedCooperativeSm120 (not FP6): 32x64 for FusionOp::SFVecSize == 64 and a
    row-major D; else M = 64 and N = 32, or 16 for a 32-bit D with no C or for a C wider than 16
    bits ("sm120 sparse kernels require more shared memory budget ... in the mainloop")."""
    if ops.d_fp6:
        return tile_shape(ops)
    if sf_vec_size == 64 and not ops.d_column_major:
        return 32, 64
    if ops.c_bits == 0:
        return EPI_TILE_M, 16 if ops.d_bits == 32 else 32
    return EPI_TILE_M, 32 if ops.c_bits <= 16 else 16


def shape(tile: Shape3, ops: EpilogueOperands, epi_tile: EpiTile = None) -> EpilogueTile:
    """SM120_EPILOGUE_BUILDER: sm120_compute_tile_shape_or_override (EpilogueTileAuto, or the
    explicit tile) and sm120_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem)."""
    epi_m, epi_n = tile_shape(ops, epi_tile)
    epi_tiles = (tile.m // epi_m) * (tile.n // epi_n)
    # SM120_EPILOGUE_BUILDER: StagesD = (IsFP6 && IsRowMajorD) ? 1 : min(EpiTiles, 2)
    stages_d = 1 if ops.d_fp6 and not ops.d_column_major else min(epi_tiles, 2)
    # SM120_EPILOGUE_BUILDER: ReuseSmem = sizeof_bits<C> == sizeof_bits<D> && sizeof_bits<D> > 8; SM90_EPILOGUE_TMA_WARPSPECIALIZED: ReuseSmemC also
    # needs a destination, and with no source the collective uses CollectiveStorageWithoutC.
    reuse = ops.c_bits == ops.d_bits and ops.d_bits > 8
    stages_c = max(min(epi_tiles, 2), stages_d + 1) if reuse else stages_d
    return EpilogueTile(
        m=epi_m,
        n=epi_n,
        stages_c=stages_c,
        stages_d=stages_d,
        reuse_smem_c=reuse and ops.c_bits > 0,
        swizzle_align=swizzle_align(ops, epi_tile=epi_tile),
        source=f"{SM120_EPILOGUE_BUILDER}: sm120_compute_tile_shape_or_override (EpilogueTileAuto = 64x32, FP6 D "
        "64x128), sm120_get_tma_dispatch_policy (StagesD = FP6 row-major D ? 1 : "
        "min(EpiTiles, 2), StagesC, ReuseSmem)",
    )


def swizzle_align(ops: EpilogueOperands, bits: int | None = None, epi_tile: EpiTile = None) -> int:
    """`alignment_for_swizzle` (cutlass/detail/layout.hpp: 1 << (B + M + S)) of the D layout (of
    an operand of `bits` smem bits when given, e.g. C): SM120_EPILOGUE_BUILDER
    sm120_get_epilogue_smem_swizzle_layout_atom -> SM90_COMMON_SS_SMEM_SELECTOR, the widest of SW128/SW64/SW32/INTER
    (1024/512/256/128 bits) that divides the contiguous extent (M when D is column-major)."""
    epi_m, epi_n = tile_shape(ops, epi_tile)
    contiguous_bits = (epi_m if ops.d_column_major else epi_n) * (
        ops.d_smem_bits if bits is None else bits
    )
    for atom_bits in (1024, 512, 256):
        if contiguous_bits % atom_bits == 0:
            return atom_bits
    return 128


def collective_storage(tile: Shape3, ops: EpilogueOperands, epi_tile: EpiTile = None) -> Block:
    """SM90_EPILOGUE_TMA_WARPSPECIALIZED: the C and D buffers, each aligned to its own layout's swizzle (SmemAlignmentC,
    SmemAlignmentD; the ReuseC union to the larger of the two, MaxSmemAlignment)."""
    e = shape(tile, ops, epi_tile)
    epi_elems = e.m * e.n
    d_tile = epi_elems * ops.d_smem_bits // 8
    d_align = e.swizzle_align
    if ops.c_bits == 0:
        return union(
            "collective",
            [
                empty(
                    "smem_C",
                    f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageWithoutC: cute::array<SmemElementC, 0>",
                ),
                array(
                    "smem_D",
                    e.stages_d * d_tile,
                    d_align,
                    f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageWithoutC: alignas(SmemAlignmentD) smem_D, StagesD = {e.stages_d}",
                ),
            ],
            f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: union CollectiveStorageWithoutC (ElementC = void)",
        )
    c_tile = epi_elems * ops.c_bits // 8
    c_align = swizzle_align(ops, ops.c_bits, epi_tile)
    if e.reuse_smem_c:
        align = max(c_align, d_align)
        return union(
            "collective",
            [
                array(
                    "smem_C",
                    e.stages_c * c_tile,
                    align,
                    f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageReuseC::smem_C",
                ),
                array(
                    "smem_D",
                    e.stages_c * d_tile,
                    align,
                    f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageReuseC::smem_D",
                ),
            ],
            f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: union CollectiveStorageReuseC (alignas(MaxSmemAlignment))",
        )
    return struct(
        "collective",
        [
            array(
                "smem_C",
                e.stages_c * c_tile,
                c_align,
                f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageWithC: alignas(SmemAlignmentC) smem_C",
            ),
            array(
                "smem_D",
                e.stages_d * d_tile,
                d_align,
                f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveStorageWithC: alignas(SmemAlignmentD) smem_D",
            ),
        ],
        f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: struct CollectiveStorageWithC",
    )


def tensor_storage(
    tile: Shape3, ops: EpilogueOperands, fusion: Block, epi_tile: EpiTile = None
) -> Block:
    """`SharedStorage::TensorStorage {CollectiveStorage collective; FusionStorage thread;}`;
    `fusion` is the FusionCallbacks' SharedStorage, named `thread`."""
    return struct(
        "epilogue",
        [collective_storage(tile, ops, epi_tile), fusion],
        f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage::TensorStorage",
    )


def load_pipeline(tile: Shape3, ops: EpilogueOperands, epi_tile: EpiTile = None) -> Block:
    stages_c = shape(tile, ops, epi_tile).stages_c
    return array(
        "epi_load",
        pipeline_storage(stages_c),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTransactionAsync<StagesC = {stages_c}>::SharedStorage (LoadPipeline)",
    )


def shared_storage(
    tile: Shape3, ops: EpilogueOperands, fusion: Block, epi_tile: EpiTile = None
) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: what StageCountAutoCarveout carves out."""
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            tensor_storage(tile, ops, fusion, epi_tile).at("tensors"),
            load_pipeline(tile, ops, epi_tile).at("pipeline"),
        ],
        f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage {{TensorStorage tensors; PipelineStorage pipeline;}}",
    )


def linear_combination_storage() -> Block:
    """`FusionCallbacks::SharedStorage` of `fusion::LinearCombination` (and the default
    epilogue's): every node of Sm90LinearCombination (scalar broadcasts, accumulator and source
    fetch) has empty storage, so the member is an empty struct of size 1."""
    return empty(
        "thread",
        "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp: Sm90LinearCombination: "
        "every node's SharedStorage is empty",
    )


# cutlass/epilogue/fusion/sm120_visitor_store_tma_warpspecialized.hpp: Sm120BlockScaleFactorRowStore
# NumSyncQuads = NumWarpsPerWarpGroup (4) * NumWarpgroups (2) * NumQuadsPerWarp (8)
BLOCK_SCALE_ROW_SYNC_QUADS = 4 * 2 * 8
# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED_DEFAULT = 16
SF_STORE = "cutlass/epilogue/fusion/sm120_visitor_store_tma_warpspecialized.hpp"


def block_scale_factor_row_storage(compute_bytes: int = 4) -> Block:
    """`FusionCallbacks::SharedStorage` of `fusion::LinCombBlockScaleFactor` with a row-major D on
    Sm120TmaWarpSpecialized (cutlass/epilogue/fusion/sm120_callbacks_tma_warpspecialized.hpp:
    Sm120LinearCombRowBlockScaleFactor = Sm90EVT<Sm120BlockScaleFactorRowStore, Sm90LinearCombination>):
    the row store's `array_aligned<ElementCompute, NumSyncQuads> smem_aux`; the linear
    combination's nodes are empty and take no bytes in the visitor's tuple."""
    return array(
        "thread",
        BLOCK_SCALE_ROW_SYNC_QUADS * compute_bytes,
        ARRAY_ALIGNED_DEFAULT,
        f"{SF_STORE}: Sm120BlockScaleFactorRowStore::SharedStorage: "
        f"array_aligned<ElementCompute, NumSyncQuads = {BLOCK_SCALE_ROW_SYNC_QUADS}> smem_aux",
    )


# cutlass/epilogue/fusion/sm120_visitor_store_tma_warpspecialized.hpp: Sm120BlockScaleFactorColStore
# NumSyncElementsCrossWarp = NumWarpsPerWarpGroup (4) * NumWarpgroups (2) * NumThreadsPerQuad (4)
BLOCK_SCALE_COL_SYNC_ELEMENTS = 4 * 2 * 4


def block_scale_factor_col_storage(compute_bytes: int = 4) -> Block:
    """`FusionCallbacks::SharedStorage` of `fusion::LinCombBlockScaleFactor` with a column-major D
    on Sm120TmaWarpSpecialized (cutlass/epilogue/fusion/sm120_callbacks_tma_warpspecialized.hpp:
    Sm120LinearCombColBlockScaleFactor = Sm90EVT<Sm120BlockScaleFactorColStore,
    Sm90LinearCombination>): the column store's `array_aligned<ElementCompute,
    NumSyncElementsCrossWarp> smem_aux`; the linear combination's nodes take no bytes."""
    return array(
        "thread",
        BLOCK_SCALE_COL_SYNC_ELEMENTS * compute_bytes,
        ARRAY_ALIGNED_DEFAULT,
        f"{SF_STORE}: Sm120BlockScaleFactorColStore::SharedStorage: "
        f"array_aligned<ElementCompute, NumSyncElementsCrossWarp = {BLOCK_SCALE_COL_SYNC_ELEMENTS}> smem_aux",
    )


# --- the ptr-array (grouped) epilogue ------------------------------------------------------------

# SM120_EPILOGUE_BUILDER: GetNumEpilogueWarpGroups<Schedule> = 2 unless the schedule names its own
EPILOGUE_WARP_GROUPS = 2


def array_tensormaps(warp_groups: int = EPILOGUE_WARP_GROUPS) -> Block:
    """SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED: `struct TensorMapStorage : aligned_struct<128, _0> {TmaDescriptor smem_tensormap_C;
    cute::array<TmaDescriptor, NumEpilogueWarpGroups> smem_tensormap_D;}`."""
    return struct(
        "epilogue",
        [
            array(
                "smem_tensormap_C",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED}: cute::TmaDescriptor smem_tensormap_C",
            ),
            array(
                "smem_tensormap_D",
                warp_groups * TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED}: cute::array<TmaDescriptor, NumEpilogueWarpGroups = {warp_groups}>",
            ),
        ],
        f"{SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def array_shared_storage(
    tile: Shape3, ops: EpilogueOperands, fusion: Block, warp_groups: int = EPILOGUE_WARP_GROUPS
) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)` of the ptr-array epilogue (a grouped kernel's:
    `Sm120PtrArrayTmaWarpSpecialized`, whose collective is SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED): tensors, tensormaps, pipeline."""
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            tensor_storage(tile, ops, fusion).at("tensors"),
            array_tensormaps(warp_groups).at("tensormaps"),
            load_pipeline(tile, ops).at("pipeline"),
        ],
        f"{SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage {{tensors; tensormaps; pipeline;}}",
    )
