"""CUTLASS's SM100 ptr-array epilogues as the SM100 epilogue builder builds them.

The epilogue subtile (`sm100_dense_compute_tile_shape_or_override` for `EpilogueTileAuto`),
StagesC / StagesD / ReuseSmemC (`sm100_dense_dispatch_policy`), the C/D smem swizzle
(`sm100_get_epilogue_smem_swizzle_layout_atom`), and the `SharedStorage` of the TMA epilogue
(`Sm100PtrArrayTmaWarpSpecialized`) and of the no-smem one (`Sm100PtrArrayNoSmem`).

Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cutlint.cutlass.headers import SM90_PIPELINE, SM100_EPILOGUE_BUILDER
from cutlint.cutlass.layout import Block, array, empty, struct, union
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    pipeline_storage,
)
from cutlint.records import EpilogueTile

TMA_EP = "cutlass/epilogue/collective/sm100_epilogue_array_tma_warpspecialized.hpp"
TMA_EP_UNIVERSAL = "cutlass/epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp"
NOSMEM_EP = "cutlass/epilogue/collective/sm100_epilogue_array_nosmem.hpp"
COMMON = "cutlass/gemm/collective/builders/sm100_common.inl"

DP_FULL = 32
"""SM100_EPILOGUE_BUILDER: DpFull = 32 TMEM datapaths per subpartition (the 32dp TMEM load target)."""
EPILOGUE_THREADS = 128
"""TMA_EP / NOSMEM_EP: ThreadCount = 128."""


class EpilogueKind(StrEnum):
    TMA = "tma"
    """PtrArrayTmaWarpSpecialized{1,2}Sm -> Sm100PtrArrayTmaWarpSpecialized (TMA_EP)."""
    NO_SMEM = "nosmem"
    """PtrArrayNoSmemWarpSpecialized{1,2}Sm -> Sm100PtrArrayNoSmem (NOSMEM_EP)."""


class FusionStorage(StrEnum):
    """What `FusionCallbacks::SharedStorage` holds for the launcher's fusions."""

    EMPTY = "empty"
    """Every node's SharedStorage is empty (LinearCombination, LinCombEltAct...): size 1."""
    ROW_BROADCAST_SCALE = "row-broadcast-scale"
    """FINALIZE with SwapAB: Sm90RowBroadcast of the float router scales, CTA_N floats."""
    ROW_BROADCAST_BIAS = "row-broadcast-bias"
    """FINALIZE without SwapAB: Sm90RowBroadcast of the bias (the output type), CTA_N elements."""


@dataclass(frozen=True)
class Epilogue:
    """What the SM100 epilogue builder is given, reduced to what sizes shared memory."""

    kind: EpilogueKind
    mma_m: int
    mma_n: int
    two_sm: bool
    c_bits: int | None
    """sizeof_bits of ElementC; None when C is void (source disabled)."""
    d_bits: int
    """sizeof_bits of the element D is stored in (the aux element when ElementD is void)."""
    d_void: bool
    """ElementD is void (FINALIZE writes through the fusion)."""
    d_m_major: bool
    """C/D column-major (the launcher's LayoutD_T under SwapAB): M is contiguous."""
    blockscaled: bool
    """OpClassBlockScaledTensorOp (changes EpilogueTileAuto for CTA_N = 256)."""
    per_col_scale: bool = False
    """FusionOp::IsPerColScaleSupported."""
    tile_override: tuple[int, int] | None = None
    """An explicit EpilogueTile (the launcher's EpilogueSubTile), else EpilogueTileAuto."""
    fusion: FusionStorage = FusionStorage.EMPTY
    fusion_bits: int = 0
    """Element bits of the fusion's row broadcast (ROW_BROADCAST_*)."""
    n_divides: bool = True
    """CUTLASS >= 4.3.0 (knob `sm100_epilogue_tile_n_divides`): an auto tile N that does not
    divide CTA_N falls back to CTA_N."""
    fusion_operation: bool = False
    """A FusionOperation is named to the builder (not its default): the no-smem builder then
    builds the fusion-callbacks collective whatever the MMA (see nosmem_storage)."""
    ptr_array: bool = True
    """The ptr-array epilogue (tensormaps in shared memory); False: TmaWarpSpecialized{1,2}Sm ->
    Sm100TmaWarpSpecialized (TMA_EP_UNIVERSAL), whose SharedStorage is tensors and pipeline only
    (checked for the TMA kind)."""
    d_fp6: bool = False
    """ElementD is a 6-bit float (float_e3m2_t, float_e2m3_t): SM100_EPILOGUE_BUILDER's N_min_D is 128 x WarpN for a
    row-major D ("TMA store only supports SW128B for FP6 data type"), and the epilogue stages D
    in shared memory unpacked to a byte (cutlass/float_subbyte.h: get_unpacked_element_type ->
    float_e3m2_unpack8bits_t), so `d_bits` is 8."""
    evt: Block | None = None
    """An epilogue visitor tree given as the fusion: its `thread` storage (cutlint.cutlass.sm90_evt)."""

    @property
    def header(self) -> str:
        return TMA_EP if self.ptr_array else TMA_EP_UNIVERSAL

    @property
    def cta_m(self) -> int:
        return self.mma_m // 2 if self.two_sm else self.mma_m


def tmem_warps(e: Epilogue) -> tuple[int, int]:
    """SM100_EPILOGUE_BUILDER: sm100_tmem_warps: 2x2 for a 2-SM MMA of M = 128, else 4x1."""
    return (2, 2) if e.two_sm and e.mma_m == 128 else (4, 1)


def epilogue_tile(e: Epilogue) -> tuple[int, int, int]:
    """(EPI_M, EPI_N, contiguous N run) as SM100_EPILOGUE_BUILDER picks them.

    The third value is the length of the unit-stride run of the N mode (its tile is strided by
    the TMEM warp layout when WarpN > 1): what the swizzle of row-major C/D is chosen from.
    """
    cta_m, cta_n = e.cta_m, e.mma_n
    warp_m, warp_n = tmem_warps(e)
    if e.tile_override is not None:
        m, n = e.tile_override
        return m, n, n
    if e.kind is EpilogueKind.NO_SMEM:
        # SM100_EPILOGUE_BUILDER (the no-smem builder): Shape<CTA_M, min(64, CTA_N)> for block-scaled or
        # non-transform schedules.
        return cta_m, min(64, cta_n), min(64, cta_n)
    m = min(cta_m, DP_FULL * warp_m)
    if e.blockscaled and cta_n == 256:
        return m, 128, 128
    c_bits = e.c_bits if e.c_bits is not None else e.d_bits
    max_bits = max(c_bits, e.d_bits)
    if e.c_bits is None:
        n_perf = (8192 if max_bits == 4 else 4096) // m
    elif max_bits == 32:
        n_perf = 16 if cta_m > 64 and cta_n <= 128 else 32
    elif e.per_col_scale:
        n_perf = 32
    elif max_bits == 16:
        n_perf = 32 if cta_n <= 128 else 64
    else:
        n_perf = 64
    n_min_c = 8 * warp_n if (e.c_bits is None or e.d_m_major) else 128 // c_bits * warp_n
    if e.d_m_major:
        n_min_d = 8 * warp_n
    else:
        n_min_d = 128 * warp_n if e.d_fp6 else 128 // e.d_bits * warp_n
    n_tmp = min(cta_n, max(n_perf, n_min_c, n_min_d))
    n = n_tmp if cta_n % n_tmp == 0 or not e.n_divides else cta_n
    # tile_n = coalesce(Layout<Shape<N/WarpN, WarpN>, Stride<1, CTA_N/WarpN>>)
    run = n if warp_n == 1 or n == cta_n else n // warp_n
    return m, n, run


@dataclass(frozen=True)
class Stages:
    stages_c: int
    stages_d: int
    reuse_smem_c: bool
    """The epilogue class's ReuseSmemC (the policy's, and only with a destination)."""


def stages(e: Epilogue) -> Stages:
    """SM100_EPILOGUE_BUILDER: sm100_dense_dispatch_policy: StagesD = min(EpiTiles, 2); ReuseSmem = bits(C) > 8;
    StagesC = ReuseSmem ? max(min(EpiTiles, 4), StagesD + 1) : min(EpiTiles, 4)."""
    m, n, _ = epilogue_tile(e)
    epi_tiles = (e.cta_m // m) * (e.mma_n // n)
    reuse = e.c_bits is not None and e.c_bits > 8
    stages_d = min(epi_tiles, 2)
    stages_c = max(min(epi_tiles, 4), stages_d + 1) if reuse else min(epi_tiles, 4)
    return Stages(stages_c, stages_d, reuse and not e.d_void)


def swizzle_align(bits: int, m_major: bool, epi_m: int, run_n: int) -> int:
    """`alignment_for_swizzle` of the C or D smem layout (cutlass/detail/layout.hpp: 1 << (B+M+S)).

    SM100_EPILOGUE_BUILDER: sm100_get_epilogue_smem_swizzle_layout_atom -> sm100_smem_selector (COMMON): MN-major
    (column-major C/D) picks from the M extent, and 32-bit elements always take
    Layout_MN_SW128_32B (Swizzle<2,5,2>: 512); K-major picks from the N run. The widest of
    SW128 / SW64 / SW32 / INTER whose atom (1024 / 512 / 256 / 128 bits) divides the extent.
    """
    if m_major and bits == 32:
        return 512
    extent_bits = (epi_m if m_major else run_n) * bits
    for atom_bits in (1024, 512, 256):
        if extent_bits % atom_bits == 0:
            return atom_bits
    return 128


def tile_shape(e: Epilogue) -> EpilogueTile:
    m, n, run = epilogue_tile(e)
    st = stages(e)
    return EpilogueTile(
        m=m,
        n=n,
        stages_c=st.stages_c,
        stages_d=st.stages_d,
        reuse_smem_c=st.reuse_smem_c,
        swizzle_align=swizzle_align(e.d_bits, e.d_m_major, m, run),
        source=f"{SM100_EPILOGUE_BUILDER}: sm100_dense_compute_tile_shape_or_override (EpilogueTileAuto), "
        "sm100_dense_dispatch_policy (StagesC, StagesD, ReuseSmem)",
        derived_from={
            "tile": ("input.tile", "input.types", "input.cluster", "input.swap_ab"),
            "stages_c": ("input.tile", "epilogue.tile", "input.fusion", "input.types"),
            "stages_d": ("input.tile", "epilogue.tile"),
            "swizzle": ("input.swap_ab", "input.types", "epilogue.tile"),
        },
    )


_C_FROM = ("epilogue.tile", "epilogue.stages_c", "epilogue.swizzle", "input.types")
_D_FROM = ("epilogue.tile", "epilogue.stages_d", "epilogue.swizzle", "input.types")
_FUSION_FROM = ("input.tile", "input.fusion", "input.swap_ab", "input.types")
SCATTER = "cutlass_extensions/epilogue/fusion/sm90_visitor_scatter.hpp (FlashInfer)"


def fusion_storage(e: Epilogue) -> Block:
    """`FusionCallbacks::SharedStorage`, the `thread` member of the epilogue's TensorStorage."""
    if e.evt is not None:
        return e.evt
    if e.fusion is FusionStorage.EMPTY:
        return empty(
            "thread",
            "cutlass/epilogue/fusion/sm100_callbacks_tma_warpspecialized.hpp: every node's SharedStorage is empty",
            _FUSION_FROM,
        )
    what = "float router scales" if e.fusion is FusionStorage.ROW_BROADCAST_SCALE else "bias"
    return array(
        "thread",
        e.fusion_bits // 8 * e.mma_n,
        16,
        f"{SCATTER}: Sm90RowBroadcast of the {what}: array_aligned<ElementInput, CTA_N> smem",
        _FUSION_FROM,
    )


def collective_storage(e: Epilogue) -> Block:
    m, n, run = epilogue_tile(e)
    st = stages(e)
    d_align = swizzle_align(e.d_bits, e.d_m_major, m, run)
    d_stage = m * n * e.d_bits // 8
    if e.c_bits is None:
        return union(
            "collective",
            [
                empty(
                    "smem_C",
                    f"{e.header}: CollectiveStorageWithoutC: cute::array<SmemElementC, 0> smem_C",
                ),
                array(
                    "smem_D",
                    st.stages_d * d_stage,
                    d_align,
                    f"{e.header}: CollectiveStorageWithoutC: alignas(SmemAlignmentD) smem_D, StagesD = {st.stages_d}",
                    _D_FROM,
                ),
            ],
            f"{e.header}: union CollectiveStorageWithoutC",
        )
    c_align = swizzle_align(e.c_bits, e.d_m_major, m, run)
    c_stage = m * n * e.c_bits // 8
    if st.reuse_smem_c:
        align = max(c_align, d_align)
        max_stage = max(c_stage, d_stage)
        return union(
            "collective",
            [
                array(
                    "smem_C",
                    st.stages_c * max_stage,
                    align,
                    f"{e.header}: CollectiveStorageReuseC: alignas(MaxSmemAlignment) smem_C, StagesC = {st.stages_c}",
                    _C_FROM,
                ),
                array(
                    "smem_D",
                    st.stages_c * max_stage,
                    align,
                    f"{e.header}: CollectiveStorageReuseC: smem_D, ReuseSmemC ? StagesC : StagesD = {st.stages_c}",
                    _D_FROM,
                ),
            ],
            f"{e.header}: union CollectiveStorageReuseC",
        )
    return struct(
        "collective",
        [
            array(
                "smem_C",
                st.stages_c * c_stage,
                c_align,
                f"{e.header}: CollectiveStorageWithC: alignas(SmemAlignmentC) smem_C, StagesC = {st.stages_c}",
                _C_FROM,
            ),
            array(
                "smem_D",
                st.stages_d * d_stage,
                d_align,
                f"{e.header}: CollectiveStorageWithC: alignas(SmemAlignmentD) smem_D, StagesD = {st.stages_d}",
                _D_FROM,
            ),
        ],
        f"{e.header}: struct CollectiveStorageWithC",
    )


def nosmem_storage(e: Epilogue) -> Block:
    """The no-smem epilogue's SharedStorage, which the kernel also takes for its TensorStorage and
    TensorMapStorage (cutlass/epilogue/collective/detail.hpp: `using TensorStorage = typename
    EpilogueOp::SharedStorage; using TensorMapStorage = ...`).

    SM100_EPILOGUE_BUILDER picks the legacy `thread::LinearCombination` collective (an empty SharedStorage) for the
    default fusion of a non-block-scaled MMA, else the fusion-callbacks one: `{ FusionStorage
    thread; array_aligned<uint8_t, 0> buffer; }` (no reduction buffer; cute::array<T, 0> is an
    empty class, aligned 16). The one-problem no-smem epilogue (sm100_epilogue_nosmem.hpp) has the
    same two SharedStorages."""
    if not e.blockscaled and not e.fusion_operation:
        return empty(
            "epilogue",
            f"{NOSMEM_EP}: CollectiveEpilogue<Sm100PtrArrayNoSmem, thread op>::SharedStorage {{ }}",
        )
    return struct(
        "epilogue",
        [
            fusion_storage(e),
            array(
                "buffer",
                16,
                16,
                f"{NOSMEM_EP}: array_aligned<uint8_t, ImplicitSharedStorageSize = 0> buffer (an empty class, alignas 16)",
            ),
        ],
        f"{NOSMEM_EP}: CollectiveEpilogue<Sm100PtrArrayNoSmem, FusionCallbacks>::SharedStorage",
    )


def tensor_storage(e: Epilogue) -> Block:
    """`CollectiveEpilogue::TensorStorage` (TMA: collective + fusion; no-smem: its SharedStorage)."""
    if e.kind is EpilogueKind.NO_SMEM:
        return nosmem_storage(e)
    return struct(
        "epilogue",
        [collective_storage(e), fusion_storage(e)],
        f"{e.header}: CollectiveEpilogue::SharedStorage::TensorStorage",
    )


def tensormap_storage(e: Epilogue) -> Block:
    if e.kind is EpilogueKind.NO_SMEM:
        return nosmem_storage(e)
    return struct(
        "epilogue",
        [
            array(
                f"smem_tensormap_{x}",
                TMA_DESCRIPTOR_BYTES,
                TMA_DESCRIPTOR_ALIGN,
                f"{TMA_EP}: cute::TmaDescriptor smem_tensormap_{x}",
            )
            for x in ("C", "D")
        ],
        f"{TMA_EP}: CollectiveEpilogue::SharedStorage::TensorMapStorage : cute::aligned_struct<128, _0>",
        base_align=128,
    )


def pipeline(e: Epilogue) -> Block:
    """`LoadPipeline::SharedStorage` = PipelineTransactionAsync<StagesC> (TMA epilogue); the
    no-smem epilogue's is PipelineTransactionAsync<0> (cutlass/epilogue/collective/detail.hpp:
    "0 stage to disable smem alloc"), whose `cute::array<Barrier, 0>` members are empty classes of
    one byte each."""
    if e.kind is EpilogueKind.NO_SMEM:
        return array(
            "epi_load",
            2,
            1,
            f"{SM90_PIPELINE}: PipelineTransactionAsync<0>::SharedStorage: cute::array<FullBarrier, 0>, "
            "cute::array<EmptyBarrier, 0> (1 B each)",
        )
    stages_c = stages(e).stages_c
    return array(
        "epi_load",
        pipeline_storage(stages_c),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTransactionAsync<StagesC = {stages_c}>::SharedStorage",
        ("epilogue.stages_c",),
    )


def shared_storage(e: Epilogue) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    if e.kind is EpilogueKind.NO_SMEM:
        s = nosmem_storage(e)
        return Block("CollectiveEpilogue::SharedStorage", s.size, s.align, s.source, s.pieces)
    if not e.ptr_array:
        return struct(
            "CollectiveEpilogue::SharedStorage",
            [tensor_storage(e).at("tensors"), pipeline(e).at("pipeline")],
            f"{TMA_EP_UNIVERSAL}: CollectiveEpilogue::SharedStorage (tensors, pipeline)",
        )
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            tensor_storage(e).at("tensors"),
            tensormap_storage(e).at("tensormaps"),
            pipeline(e).at("pipeline"),
        ],
        f"{TMA_EP}: CollectiveEpilogue::SharedStorage",
    )
