"""CUTLASS's shared-memory building blocks that every kernel family lays out the same way.

Barriers, pipeline storage and TMA descriptors: one CUTLASS fact, one place. Header paths are
relative to CUTLASS's `include/`.
"""

from __future__ import annotations

# cutlass/arch/barrier.h: ClusterBarrier / ClusterTransactionBarrier hold one uint64_t
BARRIER_BYTES = 8
# cute/arch/copy_sm90_desc.hpp: TmaDescriptor = CUtensorMap, `struct alignas(64) { char bytes[128]; }`
TMA_DESCRIPTOR_BYTES = 128
TMA_DESCRIPTOR_ALIGN = 64
# cutlass/cutlass.h: NumThreadsPerWarpGroup = 128
THREADS_PER_WARP_GROUP = 128
# cutlass/cutlass.h: NumThreadsPerWarp = 32
THREADS_PER_WARP = 32


def pipeline_storage(stages: int) -> int:
    """`FullBarrier full_barrier_[Stages]; EmptyBarrier empty_barrier_[Stages];` (SM90_PIPELINE): the
    shared storage of PipelineTmaAsync, PipelineTransactionAsync, PipelineAsync and
    PipelineTmaUmmaAsync alike."""
    return 2 * stages * BARRIER_BYTES


def ordered_sequence_barrier_storage(depth: int, length: int) -> int:
    """`OrderedSequenceBarrier<Depth, Length>::SharedStorage` (SM90_PIPELINE): `Barrier barrier_[Depth][Length]`."""
    return depth * length * BARRIER_BYTES


def cpp_div(a: int, b: int) -> int:
    """C++ integer division truncates toward zero; Python's // floors."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
