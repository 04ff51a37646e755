"""The SM90 ptr-array TMA epilogue's shared storage (`sm90_epilogue_array_tma_warpspecialized.hpp`),
which the SM90 grouped kernels and the SM120 block-scaled grouped kernels both instantiate.

    struct SharedStorage {
      struct TensorStorage {
        CollectiveStorage collective;   // C/D buffers: WithC (struct), ReuseC or WithoutC (unions)
        FusionStorage thread;           // FusionCallbacks::SharedStorage
      } tensors;
      struct TensorMapStorage : aligned_struct<128, _0> {
        TmaDescriptor smem_tensormap_C; array<TmaDescriptor, NumEpilogueWarpGroups> smem_tensormap_D;
      } tensormaps;
      PipelineTransactionAsync<StagesC>::SharedStorage pipeline;
    };

Which CollectiveStorage, how many buffers and which swizzle are the builder's choice
(`sm90_builder.inl` or `sm120_builder.inl`); the caller passes them in as an `EpilogueTile`.
Header paths are relative to CUTLASS's `include/`; unchanged between CUTLASS 4.2.1 and 4.5.0.
"""

from __future__ import annotations

from cutlint.cutlass.headers import (
    SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED,
    SM90_EPILOGUE_TMA_WARPSPECIALIZED,
    SM90_PIPELINE,
)
from cutlint.cutlass.layout import Block, array, empty, struct, union
from cutlint.cutlass.storage import (
    BARRIER_BYTES,
    TMA_DESCRIPTOR_ALIGN,
    TMA_DESCRIPTOR_BYTES,
    pipeline_storage,
)
from cutlint.records import EpilogueTile

NOSMEM = "cutlass/epilogue/collective/detail.hpp: Sm90TmaWarpSpecializedAdapter<DefaultEpilogue>"
SMEM_SELECTOR = "cutlass/gemm/collective/builders/sm90_common.inl: ss_smem_selector"

# What the buffers' sizes come from, for the derivation graph (records.Region.derived_from).
C_FROM = ("epilogue.tile", "epilogue.stages_c", "epilogue.swizzle", "input.types")
D_FROM = (
    "epilogue.tile",
    "epilogue.stages_d",
    "epilogue.stages_c",
    "epilogue.swizzle",
    "input.types",
)


def swizzle_align(contiguous_bits: int) -> int:
    """`alignment_for_swizzle` (cutlass/detail/layout.hpp: 1 << (B + M + S)) of the layout atom
    that `ss_smem_selector` picks: the widest of SW128 / SW64 / SW32 / INTER whose atom width
    (1024 / 512 / 256 / 128 bits) divides the contiguous extent of the tile, in bits. The K-major
    and MN-major selectors apply the same test to their contiguous mode."""
    for atom_bits, align in ((1024, 1024), (512, 512), (256, 256)):
        if contiguous_bits % atom_bits == 0:
            return align
    return 128


def collective_storage(
    e: EpilogueTile,
    c_bits: int | None,
    d_bits: int,
    header: str = SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED,
) -> Block:
    """`CollectiveStorage` (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED; the single-problem epilogue, SM90_EPILOGUE_TMA_WARPSPECIALIZED, defines the same three): `c_bits`
    None means ElementC is void (no source).

    The D buffers are allocated whether or not D is void: with a void ElementD the smem element
    is the fusion's `ElementAux` (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED: NonVoidElementD), and `d_bits` is its width.
    """
    d_tile = e.m * e.n * d_bits // 8
    if c_bits is None:
        # SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED: CollectiveStorageWithoutC. SmemElementC is NonVoidElementD.
        return union(
            "collective",
            [
                empty(
                    "smem_C",
                    f"{header}: CollectiveStorageWithoutC::smem_C, cute::array<SmemElementC, 0>",
                    C_FROM,
                ),
                array(
                    "smem_D",
                    e.stages_d * d_tile,
                    e.swizzle_align,
                    f"{header}: CollectiveStorageWithoutC::smem_D, alignas(SmemAlignmentD), "
                    f"StagesD = {e.stages_d}",
                    D_FROM,
                ),
            ],
            f"{header}: union CollectiveStorageWithoutC (ElementC = void)",
        )
    c_tile = e.m * e.n * c_bits // 8
    c_align = e.swizzle_align if e.swizzle_align_c is None else e.swizzle_align_c
    if e.reuse_smem_c:
        # SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED: alignas(MaxSmemAlignment) on both members of the union
        union_align = max(c_align, e.swizzle_align)
        return union(
            "collective",
            [
                array(
                    "smem_C",
                    e.stages_c * c_tile,
                    union_align,
                    f"{header}: CollectiveStorageReuseC::smem_C, alignas(MaxSmemAlignment), "
                    f"StagesC = {e.stages_c}",
                    C_FROM,
                ),
                array(
                    "smem_D",
                    e.stages_c * d_tile,
                    union_align,
                    f"{header}: CollectiveStorageReuseC::smem_D, ReuseSmemC ? StagesC : StagesD = "
                    f"{e.stages_c}",
                    D_FROM,
                ),
            ],
            f"{header}: union CollectiveStorageReuseC (alignas(MaxSmemAlignment))",
        )
    return struct(
        "collective",
        [
            array(
                "smem_C",
                e.stages_c * c_tile,
                c_align,
                f"{header}: CollectiveStorageWithC::smem_C, alignas(SmemAlignmentC), StagesC = "
                f"{e.stages_c}",
                C_FROM,
            ),
            array(
                "smem_D",
                e.stages_d * d_tile,
                e.swizzle_align,
                f"{header}: CollectiveStorageWithC::smem_D, alignas(SmemAlignmentD), StagesD = "
                f"{e.stages_d}",
                D_FROM,
            ),
        ],
        f"{header}: struct CollectiveStorageWithC",
    )


def tensor_storage(
    e: EpilogueTile,
    c_bits: int | None,
    d_bits: int,
    fusion: Block,
    header: str = SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED,
) -> Block:
    """`CollectiveEpilogue::SharedStorage::TensorStorage` (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED): the C/D buffers, then the fusion's
    `thread` storage (cutlint.cutlass.fusion, named `thread` or `thread.<what>`)."""
    return struct(
        "epilogue",
        [collective_storage(e, c_bits, d_bits, header), fusion],
        f"{header}: CollectiveEpilogue::SharedStorage::TensorStorage",
    )


def tensormaps(warp_groups: int) -> Block:
    """`TensorMapStorage : aligned_struct<128, _0>` (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED): one C descriptor, one D per warp group."""
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


def load_pipeline(stages_c: int) -> Block:
    """`PipelineTransactionAsync<StagesC>::SharedStorage` (SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED: LoadPipeline)."""
    return array(
        "epi_load",
        pipeline_storage(stages_c),
        BARRIER_BYTES,
        f"{SM90_PIPELINE}: PipelineTransactionAsync<StagesC = {stages_c}>::SharedStorage",
        ("epilogue.stages_c",),
    )


def shared_storage(
    e: EpilogueTile, c_bits: int | None, d_bits: int, fusion: Block, warp_groups: int
) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: what FlashInfer's launcher passes to the
    mainloop builder as `StageCountAutoCarveout`."""
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            tensor_storage(e, c_bits, d_bits, fusion).at("tensors"),
            tensormaps(warp_groups).at("tensormaps"),
            load_pipeline(e.stages_c).at("pipeline"),
        ],
        f"{SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage",
    )


def single_shared_storage(e: EpilogueTile, c_bits: int | None, d_bits: int, fusion: Block) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)` of the single-problem TMA epilogue (SM90_EPILOGUE_TMA_WARPSPECIALIZED):
    `struct SharedStorage { TensorStorage tensors; PipelineStorage pipeline; }`, no tensormaps."""
    return struct(
        "CollectiveEpilogue::SharedStorage",
        [
            tensor_storage(e, c_bits, d_bits, fusion, SM90_EPILOGUE_TMA_WARPSPECIALIZED).at(
                "tensors"
            ),
            load_pipeline(e.stages_c).at("pipeline"),
        ],
        f"{SM90_EPILOGUE_TMA_WARPSPECIALIZED}: CollectiveEpilogue::SharedStorage",
    )


def nosmem_tensor_storage() -> Block:
    """NoSmemWarpSpecialized (NOSMEM): TensorStorage = DefaultEpilogue::SharedStorage, an empty
    struct (cutlass/epilogue/collective/default_epilogue.hpp); also the whole SharedStorage that
    a StageCountAutoCarveout of the epilogue measures."""
    return empty("epilogue", f"{NOSMEM}: TensorStorage = DefaultEpilogue::SharedStorage {{}}")


PTR_ARRAY_EPILOGUE_WARP_GROUPS = 2
"""cutlass/epilogue/dispatch_policy.hpp: PtrArrayTmaWarpSpecializedCooperative and
PtrArrayTmaWarpSpecializedPingpong both have NumEpilogueWarpGroups = 2 (one D tensormap each)."""


def nosmem_tensormaps() -> Block:
    """The ptr-array NoSmem epilogue (`Sm90TmaWarpSpecializedAdapter<DefaultEpilogueArray>`):
    TensorMapStorage = DefaultEpilogueArray::SharedStorage, an empty struct
    (cutlass/epilogue/collective/default_epilogue_array.hpp)."""
    return empty(
        "epilogue",
        "cutlass/epilogue/collective/default_epilogue_array.hpp: TensorMapStorage = SharedStorage {}",
    )


def nosmem_load_pipeline() -> Block:
    """NOSMEM: PipelineStorage = PipelineTransactionAsync<0>::SharedStorage, two empty
    `cute::array<Barrier, 0>` members (cute/container/array.hpp: array<T, 0> has no data): 2 B."""
    src = f"{SM90_PIPELINE}: PipelineTransactionAsync<0>::SharedStorage"
    return struct(
        "epi_load",
        [
            empty("full_barrier_", f"{src}: cute::array<FullBarrier, 0>"),
            empty("empty_barrier_", f"{src}: cute::array<EmptyBarrier, 0>"),
        ],
        src,
    )
