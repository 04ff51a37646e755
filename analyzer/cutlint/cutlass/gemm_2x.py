"""CUTLASS 2.x threadblock-level GEMM storage: the mainloop's `MmaBase::SharedStorage` and the
epilogue's `EpilogueBase::SharedStorage`, as every CUTLASS 2.x kernel shell holds them.

    union SharedStorage {                                   // gemm/kernel/gemm_universal.h,
      typename Mma::SharedStorage main_loop;                //   gemm_grouped.h, FlashInfer's
      typename Epilogue::SharedStorage epilogue;            //   moe_cutlass_kernel.h, ...
    };

`Mma` (MmaPipelined for 2 stages, MmaMultistage for 3 or more) keeps MmaBase's storage:

    AlignedBuffer<Operator::ElementA, (M + SmemPaddingA::kRow) x (K * Stages + SmemPaddingA::kColumn)>
    AlignedBuffer<Operator::ElementB, (K * Stages + SmemPaddingB::kRow) x (N + SmemPaddingB::kColumn)>

The padding is the `MmaPolicy` of the `DefaultMmaCore` the kernel's defaults pick (zero for the
SM75/SM80 tensor-op cores). The epilogue stages accumulators through shared memory:

    Shape        = (WarpCount::kM * WarpTileIterator::Shape::kRow * WarpCount::kK,
                    WarpCount::kN * WarpTileIterator::Shape::kColumn)
    StorageShape = ((Shape::kRow + Padding::kRow) * kFragmentsPerIteration,
                    Shape::kColumn + Padding::kColumn)
    AlignedBuffer<WarpTileIterator::Element, StorageShape::kCount> storage;

Header paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.layout import Block, array, empty, round_up, struct, union
from cutlint.cutlass.storage import THREADS_PER_WARP
from cutlint.records import Shape3

MMA_BASE = "cutlass/gemm/threadblock/mma_base.h"
EPI_BASE = "cutlass/epilogue/threadblock/epilogue_base.h"
EPI_TENSOR_OP = "cutlass/epilogue/threadblock/default_epilogue_tensor_op.h"
EPI_COMPLEX = "cutlass/epilogue/threadblock/default_epilogue_complex_tensor_op.h"
EPI_INTERLEAVED = "cutlass/epilogue/threadblock/interleaved_epilogue.h"
EPI_VOLTA = "cutlass/epilogue/threadblock/default_epilogue_volta_tensor_op.h"
EPI_SIMT = "cutlass/epilogue/threadblock/default_epilogue_simt.h"
CORE_SIMT = "cutlass/gemm/threadblock/default_mma_core_simt.h"
CORE_SM80 = "cutlass/gemm/threadblock/default_mma_core_sm80.h"
ALIGNED_BUFFER = "cutlass/aligned_buffer.h"

# ALIGNED_BUFFER: `template <typename T, int N, int Align = 16> struct AlignedBuffer`, whose
# `alignas(Align) Storage storage[kBytes]` holds kBytes = (sizeof_bits<T> * N + 7) / 8
ALIGNED_BUFFER_ALIGN = 16
# cutlass/epilogue/warp/tensor_op_policy.h: TensorOpPolicy<..., layout::RowMajor>::kRowsPerIteration
TENSOR_OP_ROWS_PER_ITERATION = 8

# sizeof_bits<T> of the element types cutlass_library instantiates (cutlass/numeric_types.h,
# cutlass/complex.h, cutlass/integer_subbyte.h, cutlass/half.h, cutlass/bfloat16.h, cutlass/tfloat32.h,
# cutlass/float8.h)
ELEMENT_BITS: dict[str, int] = {
    "double": 64,
    "float": 32,
    "cutlass::tfloat32_t": 32,
    "cutlass::half_t": 16,
    "cutlass::bfloat16_t": 16,
    "int32_t": 32,
    "uint32_t": 32,
    "int8_t": 8,
    "uint8_t": 8,
    "cutlass::float_e4m3_t": 8,
    "cutlass::float_e5m2_t": 8,
    "cutlass::int4b_t": 4,
    "cutlass::uint4b_t": 4,
    "cutlass::uint1b_t": 1,
    "cutlass::complex<float>": 64,
    "cutlass::complex<double>": 128,
}


def aligned_buffer(
    name: str, elements: int, bits: int, source: str, derived_from: tuple[str, ...] = ()
) -> Block:
    """`AlignedBuffer<T, N>` (ALIGNED_BUFFER): kBytes rounded up to its alignas(16)."""
    size = round_up((bits * elements + 7) // 8, ALIGNED_BUFFER_ALIGN)
    return array(name, size, ALIGNED_BUFFER_ALIGN, source, derived_from)


def warp_count(threadblock: Shape3, warp: Shape3) -> Shape3:
    """`Mma::WarpCount` / `MmaCore::WarpCount` = ThreadblockShape / WarpShape, per dimension."""
    return Shape3(m=threadblock.m // warp.m, n=threadblock.n // warp.n, k=threadblock.k // warp.k)


def thread_count(threadblock: Shape3, warp: Shape3) -> int:
    """`GemmKernel::kThreadCount = 32 * WarpCount::kCount` (gemm/kernel/gemm_universal.h)."""
    wc = warp_count(threadblock, warp)
    return THREADS_PER_WARP * wc.m * wc.n * wc.k


def mainloop_class(stages: int) -> str:
    """What cutlass/gemm/threadblock/default_mma.h picks: its `kStages == 2` specializations build
    MmaPipelined, the others MmaMultistage (both derive MmaBase and keep its SharedStorage)."""
    return "MmaPipelined" if stages == 2 else "MmaMultistage"


@dataclass(frozen=True)
class MmaStorage:
    """What `MmaBase::SharedStorage` is made from."""

    threadblock: Shape3
    stages: int
    bits_a: int
    """sizeof_bits<Operator::ElementA>: the warp-level operator's element, as it sits in smem."""
    bits_b: int
    padding_a: tuple[int, int] = (0, 0)
    """Policy::SmemPaddingA (row, column) of the DefaultMmaCore's MmaPolicy."""
    padding_b: tuple[int, int] = (0, 0)
    mainloop: str = ""
    """The Mma class, for the region's source (MmaPipelined, MmaMultistage)."""
    padding_source: str = "default_mma_core_sm80.h / _sm75.h: MmaPolicy<..., MatrixShape<0, 0>, MatrixShape<0, 0>, ...>"


def mma_shared_storage(m: MmaStorage) -> Block:
    """MmaBase::SharedStorage (MMA_BASE): operand_A then operand_B."""
    tb = m.threadblock
    a_elems = (tb.m + m.padding_a[0]) * (tb.k * m.stages + m.padding_a[1])
    b_elems = (tb.k * m.stages + m.padding_b[0]) * (tb.n + m.padding_b[1])
    derived = ("input.tile", "input.stages", "input.types")
    mainloop = m.mainloop or mainloop_class(m.stages)
    return struct(
        "Mma::SharedStorage",
        [
            aligned_buffer(
                "operand_A",
                a_elems,
                m.bits_a,
                f"{MMA_BASE}: AlignedBuffer<ElementA, ShapeA::kCount> operand_A, ShapeA = "
                f"({tb.m} + {m.padding_a[0]}) x ({tb.k} * {m.stages} + {m.padding_a[1]}) "
                f"({m.padding_source})",
                derived,
            ),
            aligned_buffer(
                "operand_B",
                b_elems,
                m.bits_b,
                f"{MMA_BASE}: AlignedBuffer<ElementB, ShapeB::kCount> operand_B, ShapeB = "
                f"({tb.k} * {m.stages} + {m.padding_b[0]}) x ({tb.n} + {m.padding_b[1]})",
                derived,
            ),
        ],
        f"{MMA_BASE}: MmaBase::SharedStorage ({mainloop})",
    )


@dataclass(frozen=True)
class EpilogueStorage:
    """What `EpilogueBase::SharedStorage` is made from."""

    threadblock: Shape3
    warp: Shape3
    element_bits: int
    """sizeof_bits<WarpTileIterator::Element>: the accumulator type staged through smem."""
    rows_per_iteration: int
    """WarpTileIterator::Shape::kRow (Policy::kRowsPerIteration)."""
    padding: tuple[int, int]
    """The epilogue's Padding (row, column)."""
    fragments_per_iteration: int
    source: str
    """The DefaultEpilogue* that chose Padding and kFragmentsPerIteration."""


def epilogue_shared_storage(e: EpilogueStorage) -> Block:
    """EpilogueBase::SharedStorage (EPI_BASE): `AlignedBuffer<Element, StorageShape::kCount>`."""
    wc = warp_count(e.threadblock, e.warp)
    rows = wc.m * e.rows_per_iteration * wc.k
    cols = wc.n * e.warp.n
    storage_rows = (rows + e.padding[0]) * e.fragments_per_iteration
    storage_cols = cols + e.padding[1]
    return struct(
        "Epilogue::SharedStorage",
        [
            aligned_buffer(
                "storage",
                storage_rows * storage_cols,
                e.element_bits,
                f"{EPI_BASE}: AlignedBuffer<Element, StorageShape::kCount> storage, StorageShape = "
                f"{storage_rows}x{storage_cols}",
                ("input.tile", "input.warp", "input.epilogue"),
            ),
        ],
        f"{EPI_BASE}: EpilogueBase::SharedStorage ({e.source}: Padding, kFragmentsPerIteration)",
    )


def tensor_op_padding(accumulator_bits: int) -> tuple[int, int]:
    """EPI_TENSOR_OP, DefaultEpilogueTensorOp:
    `using Padding = cutlass::MatrixShape<0, 64 / sizeof_bits<ElementAccumulator>::value * 4>;`"""
    return (0, 64 // accumulator_bits * 4)


# EPI_TENSOR_OP: the DefaultIteratorsTensorOp<ElementOutput, ElementAccumulator, ElementsPerAccess>
# specializations with kFragmentsPerIteration = 2; every other one (and the primary template) has 1
_TWO_FRAGMENTS: frozenset[tuple[str, str, int]] = frozenset(
    {
        ("float", "float", 4),
        ("cutlass::half_t", "float", 8),
        ("cutlass::bfloat16_t", "int32_t", 8),
        ("cutlass::half_t", "int32_t", 8),
    }
)


def tensor_op_fragments_per_iteration(
    output: str, accumulator: str, elements_per_access: int, partitions_k: int
) -> int:
    """EPI_TENSOR_OP: `kFragmentsPerIteration = (kPartitionsK == 1 ?
    DefaultIterators::kFragmentsPerIteration : 1)`."""
    if partitions_k != 1:
        return 1
    return 2 if (output, accumulator, elements_per_access) in _TWO_FRAGMENTS else 1


def tensor_op_epilogue(
    threadblock: Shape3,
    warp: Shape3,
    output: str,
    accumulator: str,
    elements_per_access: int,
) -> EpilogueStorage:
    """DefaultEpilogueTensorOp (EPI_TENSOR_OP): the warp tile iterator (TileIteratorTensorOp or
    TileIteratorTensorOpMixed, both `Shape = MatrixShape<Policy::kRowsPerIteration, WarpShape::kN>`
    of ElementAccumulator) stages the accumulators."""
    bits = ELEMENT_BITS[accumulator]
    partitions_k = threadblock.k // warp.k
    return EpilogueStorage(
        threadblock=threadblock,
        warp=warp,
        element_bits=bits,
        rows_per_iteration=TENSOR_OP_ROWS_PER_ITERATION,
        padding=tensor_op_padding(bits),
        fragments_per_iteration=tensor_op_fragments_per_iteration(
            output, accumulator, elements_per_access, partitions_k
        ),
        source=f"{EPI_TENSOR_OP}: DefaultEpilogueTensorOp",
    )


def complex_tensor_op_epilogue(
    threadblock: Shape3, warp: Shape3, accumulator: str
) -> EpilogueStorage:
    """DefaultEpilogueComplexTensorOp (EPI_COMPLEX; its Gaussian-complex specialization alike):
    TileIteratorTensorOp of the complex ElementAccumulator, `Padding = MatrixShape<0, 0>`, and
    Epilogue's default kFragmentsPerIteration = 1."""
    return EpilogueStorage(
        threadblock=threadblock,
        warp=warp,
        element_bits=ELEMENT_BITS[accumulator],
        rows_per_iteration=TENSOR_OP_ROWS_PER_ITERATION,
        padding=(0, 0),
        fragments_per_iteration=1,
        source=f"{EPI_COMPLEX}: DefaultEpilogueComplexTensorOp",
    )


# cutlass/epilogue/warp/volta_tensor_op_policy.h: VoltaTensorOpPolicy<..., GemmShape<32, 32, 4>,
# half_t | float, RowMajor>::kRowsPerIteration = 16, and kElementsPerAccess = 4 (half_t), 2 (float)
VOLTA_ROWS_PER_ITERATION = 16
VOLTA_ELEMENTS_PER_ACCESS = {"cutlass::half_t": 4, "float": 2}


def volta_tensor_op_epilogue(
    threadblock: Shape3, warp: Shape3, accumulator: str
) -> EpilogueStorage:
    """DefaultEpilogueVoltaTensorOp (EPI_VOLTA): TileIteratorVoltaTensorOp of ElementAccumulator,
    `Shape = MatrixShape<Policy::kRowsPerIteration, WarpShape::kN>`, `Padding = MatrixShape<0,
    Policy::kElementsPerAccess>` (cutlass/epilogue/warp/tile_iterator_volta_tensor_op.h), and
    Epilogue's default kFragmentsPerIteration = 1."""
    return EpilogueStorage(
        threadblock=threadblock,
        warp=warp,
        element_bits=ELEMENT_BITS[accumulator],
        rows_per_iteration=VOLTA_ROWS_PER_ITERATION,
        padding=(0, VOLTA_ELEMENTS_PER_ACCESS[accumulator]),
        fragments_per_iteration=1,
        source=f"{EPI_VOLTA}: DefaultEpilogueVoltaTensorOp",
    )


def interleaved_epilogue_storage() -> Block:
    """InterleavedEpilogue::SharedStorage (EPI_INTERLEAVED): `struct SharedStorage {};` - the
    interleaved epilogue writes from registers (DefaultInterleavedEpilogueTensorOp)."""
    return struct(
        "Epilogue::SharedStorage",
        [empty("(empty)", f"{EPI_INTERLEAVED}: struct SharedStorage {{}}")],
        f"{EPI_INTERLEAVED}: InterleavedEpilogue::SharedStorage",
    )


def simt_transpose_padding(threads: int, crosswise: int, size_in_bits: int) -> int:
    """CORE_SIMT, detail::simt_transpose_padding: the skew that makes the transposing store of a
    row-major A (column-major B) tile free of bank conflicts."""
    if size_in_bits >= 32:
        return threads // crosswise // (size_in_bits // 32)
    return threads // crosswise * (32 // size_in_bits)


@dataclass(frozen=True)
class SimtCore:
    """The SIMT DefaultMmaCore a kernel's defaults pick, and what its lanes are."""

    threadblock: Shape3
    warp: Shape3
    stages: int
    bits_a: int
    bits_b: int
    a_row_major: bool
    b_column_major: bool
    dp4a: bool
    """The int8 GemmShape<1, 1, 4> cores (CORE_SIMT): LaneMmaShape from const_min(4, ThreadTile)."""

    @property
    def multistage(self) -> bool:
        """Stages >= 3: CORE_SM80's `DefaultMmaCore<..., arch::OpClassSimt, Stages, ...>`;
        2 stages: CORE_SIMT's `DefaultMmaCore<..., arch::OpClassSimt, 2, ...>`."""
        return self.stages > 2

    @property
    def warp_threads_m(self) -> int:
        """WarpNumThreadsM: 4 in CORE_SM80; CORE_SIMT's detail::simt_get_warp_threads_m
        `(WarpShape::kM > WarpShape::kN) ? 8 : 4`."""
        if self.multistage:
            return 4
        return 8 if self.warp.m > self.warp.n else 4

    @property
    def lane_n(self) -> int:
        """LaneN = const_min(numElementsB = 128 / sizeof_bits<ElementB>, ThreadTileN) (the dp4a
        cores: const_min(4, ThreadTileN)); it is LaneMmaShape::kN."""
        thread_tile_n = self.warp.n // (THREADS_PER_WARP // self.warp_threads_m)
        return min(4 if self.dp4a else 128 // self.bits_b, thread_tile_n)

    def padding(self) -> tuple[tuple[int, int], tuple[int, int], str]:
        """MmaPolicy's SmemPaddingA, SmemPaddingB and where they come from: a row-major A gets
        rows, a column-major B columns of skew (the transposing stores); the others none."""
        k = self.threadblock.k
        if self.multistage:
            pad_a, pad_b = k // 32, k // 32
            src = f"{CORE_SM80}: MatrixShape<Shape::kK / 32, 0> (A row-major), MatrixShape<0, Shape::kK / 32> (B column-major)"
        else:
            pad_a = simt_transpose_padding(THREADS_PER_WARP, k, self.bits_a)
            pad_b = simt_transpose_padding(THREADS_PER_WARP, k, self.bits_b)
            src = f"{CORE_SIMT}: MatrixShape<kPaddingM, 0> (A row-major), MatrixShape<0, kPaddingN> (B column-major)"
        return (
            (pad_a if self.a_row_major else 0, 0),
            (0, pad_b if self.b_column_major else 0),
            src,
        )

    def mma_storage(self) -> MmaStorage:
        pad_a, pad_b, src = self.padding()
        return MmaStorage(
            threadblock=self.threadblock,
            stages=self.stages,
            bits_a=self.bits_a,
            bits_b=self.bits_b,
            padding_a=pad_a,
            padding_b=pad_b,
            padding_source=src,
        )


# cutlass/epilogue/warp/tile_iterator_simt.h: `#define CUTLASS_SIMT_EPILOGUE_USE_SCALAR_STORES 1`,
# which adds 1 to TileIteratorSimt's Padding column
SIMT_SCALAR_STORE_PADDING = 1


def simt_epilogue(core: SimtCore, accumulator: str) -> EpilogueStorage:
    """DefaultEpilogueSimt (EPI_SIMT): TileIteratorSimt of ElementAccumulator, `Shape =
    MatrixShape<Policy::kRowsPerIteration = MmaSimtPolicy::WarpShape::kRow (WarpNumThreadsM),
    WarpShape::kN>`, `Padding = MatrixShape<0, 4 * Policy::kElementsPerAccess (LaneMmaShape::kN)
    + 1>`, Epilogue's default kFragmentsPerIteration = 1."""
    return EpilogueStorage(
        threadblock=core.threadblock,
        warp=core.warp,
        element_bits=ELEMENT_BITS[accumulator],
        rows_per_iteration=core.warp_threads_m,
        padding=(0, 4 * core.lane_n + SIMT_SCALAR_STORE_PADDING),
        fragments_per_iteration=1,
        source=f"{EPI_SIMT}: DefaultEpilogueSimt (TileIteratorSimt::Padding)",
    )


EPI_TENSOR_OP_BLAS3 = "cutlass/epilogue/threadblock/default_epilogue_tensor_op_blas3.h"


def tensor_op_blas3_epilogue(
    threadblock: Shape3, warp: Shape3, accumulator: str
) -> EpilogueStorage:
    """DefaultEpilogueTensorOpBlas3 (EPI_TENSOR_OP_BLAS3, the real RankK and Rank2K kernels):
    DefaultEpilogueTensorOp's warp tile iterator and `Padding = MatrixShape<0, 64 /
    sizeof_bits<ElementAccumulator>::value * 4>`, but its `Epilogue<...>` is given no
    kFragmentsPerIteration, so Epilogue's default 1 holds. (Its complex sibling,
    default_epilogue_complex_tensor_op_blas3.h, is complex_tensor_op_epilogue: Padding 0, 1.)"""
    bits = ELEMENT_BITS[accumulator]
    return EpilogueStorage(
        threadblock=threadblock,
        warp=warp,
        element_bits=bits,
        rows_per_iteration=TENSOR_OP_ROWS_PER_ITERATION,
        padding=tensor_op_padding(bits),
        fragments_per_iteration=1,
        source=f"{EPI_TENSOR_OP_BLAS3}: DefaultEpilogueTensorOpBlas3",
    )


MMA_PLANAR_COMPLEX_BASE = "cutlass/gemm/threadblock/mma_planar_complex_base.h"
EPI_PLANAR_COMPLEX = "cutlass/epilogue/threadblock/epilogue_planar_complex.h"


def planar_complex_mma_shared_storage(m: MmaStorage) -> Block:
    """MmaPlanarComplexBase::SharedStorage (MMA_PLANAR_COMPLEX_BASE): MmaBase's ShapeA and ShapeB,
    each buffer twice as long, the imaginary plane after the real one:
    `AlignedBuffer<ElementA, ShapeA::kCount + kImaginaryStrideA>` with kImaginaryStrideA =
    ShapeA::kCount (B alike)."""
    tb = m.threadblock
    a_elems = (tb.m + m.padding_a[0]) * (tb.k * m.stages + m.padding_a[1])
    b_elems = (tb.k * m.stages + m.padding_b[0]) * (tb.n + m.padding_b[1])
    derived = ("input.tile", "input.stages", "input.types")
    mainloop = m.mainloop or mainloop_class(m.stages).replace("Mma", "MmaPlanarComplex", 1)
    return struct(
        "Mma::SharedStorage",
        [
            aligned_buffer(
                "operand_A",
                2 * a_elems,
                m.bits_a,
                f"{MMA_PLANAR_COMPLEX_BASE}: AlignedBuffer<ElementA, ShapeA::kCount + "
                f"kImaginaryStrideA> operand_A, ShapeA = ({tb.m} + {m.padding_a[0]}) x "
                f"({tb.k} * {m.stages} + {m.padding_a[1]}), real and imaginary planes "
                f"({m.padding_source})",
                derived,
            ),
            aligned_buffer(
                "operand_B",
                2 * b_elems,
                m.bits_b,
                f"{MMA_PLANAR_COMPLEX_BASE}: AlignedBuffer<ElementB, ShapeB::kCount + "
                f"kImaginaryStrideB> operand_B, ShapeB = ({tb.k} * {m.stages} + "
                f"{m.padding_b[0]}) x ({tb.n} + {m.padding_b[1]}), real and imaginary planes",
                derived,
            ),
        ],
        f"{MMA_PLANAR_COMPLEX_BASE}: MmaPlanarComplexBase::SharedStorage ({mainloop})",
    )


def planar_complex_epilogue_shared_storage(e: EpilogueStorage) -> Block:
    """EpiloguePlanarComplex::SharedStorage (EPI_PLANAR_COMPLEX): `StorageShape = (Shape::kRow +
    Padding::kRow) x (Shape::kColumn + Padding::kColumn)` of the real epilogue's WarpTileIterator
    and Padding (no kFragmentsPerIteration factor), and `AlignedBuffer<Element, kImaginaryStride *
    2> storage` with kImaginaryStride = StorageShape::kCount."""
    wc = warp_count(e.threadblock, e.warp)
    rows = wc.m * e.rows_per_iteration * wc.k + e.padding[0]
    cols = wc.n * e.warp.n + e.padding[1]
    return struct(
        "Epilogue::SharedStorage",
        [
            aligned_buffer(
                "storage",
                2 * rows * cols,
                e.element_bits,
                f"{EPI_PLANAR_COMPLEX}: AlignedBuffer<Element, kImaginaryStride * 2> storage, "
                f"StorageShape = {rows}x{cols}",
                ("input.tile", "input.warp", "input.epilogue"),
            ),
        ],
        f"{EPI_PLANAR_COMPLEX}: EpiloguePlanarComplex::SharedStorage ({e.source}: WarpTileIterator, Padding)",
    )


def kernel_union(
    name: str, mma: Block, epilogue: Block, source: str, extra: tuple[Block, ...] = ()
) -> Block:
    """`union SharedStorage { [extra...] Mma::SharedStorage main_loop; Epilogue::SharedStorage
    epilogue; }`: the 2.x kernel shells' storage."""
    return union(name, [*extra, mma.at("main_loop"), epilogue.at("epilogue")], source)


__all__ = [
    "ALIGNED_BUFFER_ALIGN",
    "ELEMENT_BITS",
    "EpilogueStorage",
    "MmaStorage",
    "SimtCore",
    "aligned_buffer",
    "complex_tensor_op_epilogue",
    "epilogue_shared_storage",
    "interleaved_epilogue_storage",
    "kernel_union",
    "mainloop_class",
    "mma_shared_storage",
    "planar_complex_epilogue_shared_storage",
    "planar_complex_mma_shared_storage",
    "simt_epilogue",
    "simt_transpose_padding",
    "tensor_op_blas3_epilogue",
    "tensor_op_epilogue",
    "tensor_op_fragments_per_iteration",
    "tensor_op_padding",
    "thread_count",
    "volta_tensor_op_epilogue",
    "warp_count",
]
