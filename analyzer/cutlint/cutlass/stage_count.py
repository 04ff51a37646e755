"""The SM90 CollectiveBuilder's stage count: `compute_stage_count_or_override` with
`StageCountAutoCarveout`, and the kernel-level carveout the SM90 GMMA builders take off first.

One formula for every SM90 TMA GMMA builder that uses it (`sm90_gmma_builder.inl`: the SS
builder for KernelPtrArrayTmaWarpSpecialized{Cooperative,Pingpong} and the FP8 fast-accumulation
builder). The SM100 block-scaled formula that the SM120 recipe uses is another function
(`sm100_compute_stage_count_or_override_blockscaled`), kept with that recipe for now.

Header paths are relative to CUTLASS's `include/`. Unchanged between CUTLASS 4.2.1 and 4.5.0
except for the order of the template parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.layout import round_up
from cutlint.cutlass.storage import TMA_DESCRIPTOR_BYTES, cpp_div, pipeline_storage
from cutlint.records import StageCount, StageTerm

SC90 = "cutlass/gemm/collective/builders/sm90_common.inl"
GB90 = "cutlass/gemm/collective/builders/sm90_gmma_builder.inl"

# SC90: detail::sm90_smem_capacity_bytes = 232448 (the opt-in limit of H100/H200)
SM90_SMEM_CAPACITY = 232448
# GB90: compute_stage_count_or_override<..., int alignment = 128, ...>
SM90_STAGE_ALIGNMENT = 128
# cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp: the builder sizes the grouped scheduler's
# pipeline for PipelineAsyncSharedStorage<8>
BUILDER_SCHEDULER_PIPELINE_STAGES = 8


def sm90_kernel_carveout(ptr_array: bool, grouped_strides: bool) -> tuple[StageTerm, ...]:
    """GB90: KernelSmemCarveout = TensorMapStorage + SchedulerPipelineStorage.

    TensorMapStorage = IsArrayOfPointersGemm ? 2 * sizeof(TmaDescriptor) : 0 (A and B);
    SchedulerPipelineStorage = is_pointer_v<TagToStrideA_t<GmemLayoutATag>> ?
    sizeof(PipelineAsyncSharedStorage<8>) : 0 (a grouped GEMM passes `LayoutA*`).
    """
    return (
        StageTerm(
            name="TensorMapStorage",
            bytes=2 * TMA_DESCRIPTOR_BYTES if ptr_array else 0,
            source=f"{GB90}: IsArrayOfPointersGemm ? sizeof(cute::TmaDescriptor) * 2 : 0",
        ),
        StageTerm(
            name="SchedulerPipelineStorage",
            bytes=pipeline_storage(BUILDER_SCHEDULER_PIPELINE_STAGES) if grouped_strides else 0,
            source=f"{GB90}: is_pointer_v<TagToStrideA_t<GmemLayoutATag>> ? "
            "sizeof(PipelineDetail::PipelineAsyncSharedStorage<8>) : 0",
        ),
    )


# GB90 (GMMA_TMA_WS_RS): TensorMapStorage = sizeof(cute::TmaDescriptor) * size_t(IsMixedInput) * 4
# (A, B, scale and zero: the mixed-input ptr-array collective's TensorMapStorage)
MIXED_INPUT_TENSORMAPS = 4


def sm90_mixed_input_carveout(ptr_array: bool) -> tuple[StageTerm, ...]:
    """GB90 (GMMA_TMA_WS_RS, IsMixedInput): KernelSmemCarveout = TensorMapStorage +
    SchedulerPipelineStorage, subtracted from the capacity only for a ptr-array schedule
    (`IsArrayOfPointersGemm ? compute_..._single_affine_transformed_input<Sm90ReducedSmemCapacity
    Bytes, ...> : ...<sm90_smem_capacity_bytes, ...>`).

    TensorMapStorage = sizeof(TmaDescriptor) * IsMixedInput * 4; SchedulerPipelineStorage =
    is_pointer_v<TagToStrideA_t<GmemLayoutATag_>> ? sizeof(PipelineAsyncSharedStorage<8>) : 0:
    a grouped GEMM's A is a pointer (`LayoutA*`, or a reordered `cute::Layout<...>*`, which
    cutlass/detail/layout.hpp's primary TagToStrideA<L> keeps as it is: a pointer).
    """
    return (
        StageTerm(
            name="TensorMapStorage",
            bytes=MIXED_INPUT_TENSORMAPS * TMA_DESCRIPTOR_BYTES if ptr_array else 0,
            source=f"{GB90} (GMMA_TMA_WS_RS): sizeof(cute::TmaDescriptor) * IsMixedInput * 4, "
            "in KernelSmemCarveout only when IsArrayOfPointersGemm",
        ),
        StageTerm(
            name="SchedulerPipelineStorage",
            bytes=pipeline_storage(BUILDER_SCHEDULER_PIPELINE_STAGES) if ptr_array else 0,
            source=f"{GB90} (GMMA_TMA_WS_RS): is_pointer_v<TagToStrideA_t<GmemLayoutATag_>> ? "
            "sizeof(PipelineDetail::PipelineAsyncSharedStorage<8>) : 0 (cutlass/detail/layout.hpp: "
            "TagToStrideA<L>::type = L for a cute layout pointer)",
        ),
    )


@dataclass(frozen=True, kw_only=True)
class Sm90StageInputs:
    """What `compute_stage_count_or_override` is given (sm90_stage_count): the A and B element
    widths, the CTA tile, the builder's carveout and the kernel's, the capacity and alignment,
    and what the mixed-input and blockwise-scaled builders add to each stage."""

    a_bits: int
    b_bits: int
    tile_m: int
    tile_n: int
    tile_k: int
    carveout: int
    kernel_carveout: tuple[StageTerm, ...]
    capacity: int = SM90_SMEM_CAPACITY
    alignment: int = SM90_STAGE_ALIGNMENT
    scale_bytes: int = 0
    zero_bytes: int = 0
    block_scales: tuple[StageTerm, ...] = ()
    scale_source: str = ""


def sm90_stage_count(given: Sm90StageInputs) -> StageCount:
    """GB90: `compute_stage_count_or_override<Sm90ReducedSmemCapacityBytes, ElementAMma,
    ElementBMma, TileShape_MNK>(StageCountAutoCarveout<carveout>)`:

        stage_bytes    = round_up(bits_to_bytes(a_bits*M*K) + bits_to_bytes(b_bits*N*K), 128)
                         + sizeof(PipelineTmaAsync<1>::SharedStorage)
        carveout_bytes = round_up(carveout, 128)
        capacity_bytes = (sm90_smem_capacity_bytes - KernelSmemCarveout) / 128 * 128
        stages         = (capacity_bytes - carveout_bytes) / stage_bytes

    The mixed-input builder (`compute_stage_count_or_override_single_affine_transformed_input`)
    adds one K-slice of scales and zero points per stage (`scale_bytes`, `zero_bytes`: bits of
    ElementScale / ElementZero x M, 0 when void) and aligns to its SmemAlignment, the larger
    swizzle alignment of A's and B's smem layout atoms, instead of 128.

    The blockwise-scaled FP8 builder (`compute_stage_count_with_blockwise_scale`) adds
    bits_to_bytes(scale_bits x ScaleMsPerTile) and (x ScaleNsPerTile) per stage before the same
    round-up: `block_scales` (cutlint.cutlass.sm90_blockwise.stage_terms).
    """
    a_bits, b_bits, carveout = given.a_bits, given.b_bits, given.carveout
    tile_m, tile_n, tile_k = given.tile_m, given.tile_n, given.tile_k
    capacity, alignment = given.capacity, given.alignment
    kernel_carveout, block_scales = given.kernel_carveout, given.block_scales
    scale_bytes, zero_bytes, scale_source = given.scale_bytes, given.zero_bytes, given.scale_source
    reduced = capacity - sum(t.bytes for t in kernel_carveout)
    capacity_bytes = reduced // alignment * alignment
    carveout_bytes = round_up(carveout, alignment)
    a = round_up(a_bits * tile_m * tile_k, 8) // 8
    b = round_up(b_bits * tile_n * tile_k, 8) // 8
    extra = scale_bytes + zero_bytes + sum(t.bytes for t in block_scales)
    tensors = round_up(a + b + extra, alignment)
    reductions = (
        *kernel_carveout,
        StageTerm(
            name="capacity round-down",
            bytes=reduced - capacity_bytes,
            source=f"{GB90}: capacity_bytes = capacity_bytes_ / alignment * alignment",
        ),
        StageTerm(
            name="carveout round-up",
            bytes=carveout_bytes - carveout,
            source=f"{GB90}: carveout_bytes = cutlass::round_up(carveout_bytes_, alignment)",
        ),
    )
    per_stage = (
        StageTerm(name="A", bytes=a, source=f"{GB90}: bits_to_bytes(a_bits * M * K)"),
        StageTerm(name="B", bytes=b, source=f"{GB90}: bits_to_bytes(b_bits * N * K)"),
        *(
            StageTerm(
                name=name,
                bytes=size,
                source=scale_source
                or f"{GB90}: compute_stage_count_or_override_single_affine_transformed_input: "
                f"bits_to_bytes({name}_bits * M * scale_zero_k_tile = 1)",
            )
            for name, size in (("scale", scale_bytes), ("zero", zero_bytes))
            if size
        ),
        *block_scales,
        StageTerm(
            name="alignment",
            bytes=tensors - (a + b + extra),
            source=f"{GB90}: cutlass::round_up(stage_bytes_, alignment = {alignment})",
        ),
        StageTerm(
            name="pipeline",
            bytes=pipeline_storage(1),
            source=f"{GB90}: sizeof(cutlass::PipelineTmaAsync<1>::SharedStorage)",
        ),
    )
    stage_bytes = sum(t.bytes for t in per_stage)
    stage_budget = capacity - sum(t.bytes for t in reductions) - carveout
    return StageCount(
        stages=cpp_div(stage_budget, stage_bytes),
        capacity=capacity,
        reductions=reductions,
        carveout=carveout,
        stage_budget=stage_budget,
        per_stage=per_stage,
        stage_bytes=stage_bytes,
        formula=f"{GB90}: compute_stage_count_or_override(StageCountAutoCarveout) = "
        "(capacity - KernelSmemCarveout - carveout, each aligned to 128) / stage_bytes",
        capacity_source=f"{SC90}: detail::sm90_smem_capacity_bytes",
    )
