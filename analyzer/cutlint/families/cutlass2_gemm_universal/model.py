"""The CUTLASS 2.x universal GEMM as cutlass_library writes it, and the compiler's layout of its
`SharedStorage`.

cutlass_library's gemm_operation.py (EmitGemmUniversalInstance) writes

    using <name>_base = typename cutlass::gemm::kernel::DefaultGemmUniversal<
      ElementA, LayoutA, TransformA, AlignmentA, ElementB, LayoutB, TransformB, AlignmentB,
      ElementC, LayoutC, ElementAccumulator, OperatorClass, ArchTag, ThreadblockShape, WarpShape,
      InstructionShape, EpilogueOutputOp, ThreadblockSwizzle, Stages, MathOperator>::GemmKernel;

`DefaultGemmUniversal` (gemm/kernel/default_gemm_universal.h) builds `kernel::GemmUniversal<Mma,
Epilogue, ...>` from `DefaultGemm` (real types) or `DefaultGemmComplex` (complex types); its

    union SharedStorage { Mma::SharedStorage main_loop; Epilogue::SharedStorage epilogue; };

is laid out by cutlint.cutlass.gemm_2x. What is modeled (each checked against nvcc, the truth
file named in data/family.toml) is listed in `scope_reason`; anything else is "not modeled".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block, empty, struct, union
from cutlint.families.alias_args import split_template
from cutlint.families.base import family_data
from cutlint.records import Shape3

PACKAGE = "cutlint.families.cutlass2_gemm_universal"
TEMPLATE = "cutlass::gemm::kernel::DefaultGemmUniversal"
VISITOR_KERNEL = "cutlass::gemm::kernel::GemmWithEpilogueVisitor"
"""A kernel of DefaultGemm's parts with an epilogue visitor (`cutlass_extensions/gemm/
gemm_with_epilogue_visitor.h` of SGLang, TensorRT-LLM and vLLM), as `cutlint tu` writes it: its
parts as DefaultGemmUniversal's 20 arguments, then its EpilogueVisitor (parse/tu/forms.py)."""
VISITOR_SHELL = "cutlass_extensions/gemm/gemm_with_epilogue_visitor.h (SGLang 0.5.23's JIT tree)"
EMPTY_VISITORS = {
    "cutlass::epilogue::threadblock::EpilogueVisitorPerRowPerCol": (
        "cutlass_extensions/epilogue/epilogue_per_row_per_col_scale.h (SGLang 0.5.23's JIT "
        "tree): EpilogueVisitorPerRowPerCol::SharedStorage {} (empty)"
    ),
}
"""Epilogue visitors whose SharedStorage is known, by template name -> its source."""
KERNEL_SHELL = "cutlass/gemm/kernel/gemm_universal.h"
_CONSTANTS = family_data(PACKAGE).constants
ARGUMENT_COUNT = _CONSTANTS["argument_count"]
"""EmitGemmUniversalInstance's template arguments (data/family.toml)."""
STAGES_ARGUMENT = _CONSTANTS["stages_argument"]

ARGUMENT_NAMES = (
    "ElementA",
    "LayoutA",
    "TransformA",
    "AlignmentA",
    "ElementB",
    "LayoutB",
    "TransformB",
    "AlignmentB",
    "ElementC",
    "LayoutC",
    "ElementAccumulator",
    "OperatorClass",
    "ArchTag",
    "ThreadblockShape",
    "WarpShape",
    "InstructionShape",
    "EpilogueOutputOp",
    "ThreadblockSwizzle",
    "Stages",
    "Operator",
)

TENSOR_OP = "cutlass::arch::OpClassTensorOp"
SIMT = "cutlass::arch::OpClassSimt"
TENSOR_OP_ARCHES = (70, 75, 80, 89, 90)
"""ArchTags whose tensor-op DefaultGemm this model reads (each checked against nvcc): Sm70 with
DefaultEpilogueVoltaTensorOp, the others with DefaultEpilogueTensorOp; the MmaPolicy padding of
default_mma_core_sm70.h, _sm75.h, _sm80.h (Sm89 and Sm90 DefaultMma use the latter) and
default_multistage_mma_complex_core_sm80.h is zero."""
VOLTA = 70
VOLTA_ACCUMULATORS = ("cutlass::half_t", "float")
COMPLEX_ARCHES = (80, 90)
"""The ArchTags whose complex tensor-op kernels (DefaultGemmComplex) the compiler truth holds."""
SIMT_MULTISTAGE_ARCH = _CONSTANTS["simt_multistage_arch"]
"""default_mma.h builds SIMT kernels of 3 or more stages from default_mma_core_sm80.h's cores."""
ROW_MAJOR = "cutlass::layout::RowMajor"
COLUMN_MAJOR = "cutlass::layout::ColumnMajor"
COMPLEX = ("cutlass::complex<float>", "cutlass::complex<double>")
INTERLEAVED = "Interleaved<"


class UnreadableType(ValueError):
    """A template argument that is not the type the model expects."""


def shape(text: str) -> Shape3:
    """`cutlass::gemm::GemmShape<M, N, K>`."""
    name, args = split_template(text)
    if name.rsplit("::", 1)[-1] != "GemmShape" or len(args) != 3:
        raise UnreadableType(f"expected cutlass::gemm::GemmShape<M, N, K>, found `{text}`")
    try:
        return Shape3(m=int(args[0]), n=int(args[1]), k=int(args[2]))
    except ValueError as e:
        raise UnreadableType(f"GemmShape with non-literal extents: `{text}`") from e


def arch_tag(text: str) -> int:
    """`cutlass::arch::Sm80` -> 80."""
    tail = text.rsplit("::", 1)[-1]
    if not tail.startswith("Sm") or not (tail[2:].isascii() and tail[2:].isdigit()):
        raise UnreadableType(f"expected cutlass::arch::SmNN, found `{text}`")
    return int(tail[2:])


@dataclass(frozen=True)
class EpilogueOp:
    """`cutlass::epilogue::thread::LinearCombination*<ElementOutput, Count, ElementAccumulator,
    ElementCompute, ...>` (the EpilogueOutputOp)."""

    name: str
    output: str
    count: int
    """kCount: the epilogue's ElementsPerAccess (DefaultGemm passes EpilogueOutputOp::kCount)."""


def epilogue_op(text: str) -> EpilogueOp | None:
    """The EpilogueOutputOp's ElementOutput and Count, or None when it is no
    `LinearCombination*<ElementOutput, Count, ...>` (valid C++ the model does not read)."""
    name, args = split_template(text)
    if not name.startswith("cutlass::epilogue::thread::LinearCombination") or len(args) < 2:
        return None
    try:
        count = int(args[1])
    except ValueError:
        return None
    return EpilogueOp(name=name, output=args[0], count=count)


@dataclass(frozen=True)
class Kernel:
    """One DefaultGemmUniversal<...>::GemmKernel, typed."""

    element_a: str
    layout_a: str
    alignment_a: int
    element_b: str
    layout_b: str
    alignment_b: int
    element_c: str
    layout_c: str
    element_accumulator: str
    opclass: str
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    instruction: Shape3
    epilogue: EpilogueOp | None
    """None: an EpilogueOutputOp the model does not read (scope_reason says so)."""
    swizzle: str
    stages: int
    math_op: str
    visitor: str | None = None
    """GemmWithEpilogueVisitor's EpilogueVisitor; None: DefaultGemmUniversal's GemmUniversal."""

    @property
    def complex(self) -> bool:
        return self.element_a in COMPLEX

    @property
    def interleaved(self) -> bool:
        return INTERLEAVED in self.layout_c


def kernel_of(args: tuple[str, ...]) -> Kernel:
    """The typed kernel of DefaultGemmUniversal's 20 template arguments (UnreadableType if not)."""
    if len(args) != ARGUMENT_COUNT:
        raise UnreadableType(f"takes {ARGUMENT_COUNT} template arguments here, found {len(args)}")
    try:
        alignment_a, alignment_b, stages = int(args[3]), int(args[7]), int(args[STAGES_ARGUMENT])
    except ValueError as e:
        raise UnreadableType(f"alignments and Stages must be integer literals: {e}") from e
    return Kernel(
        element_a=args[0],
        layout_a=args[1],
        alignment_a=alignment_a,
        element_b=args[4],
        layout_b=args[5],
        alignment_b=alignment_b,
        element_c=args[8],
        layout_c=args[9],
        element_accumulator=args[10],
        opclass=args[11],
        arch_tag=arch_tag(args[12]),
        threadblock=shape(args[13]),
        warp=shape(args[14]),
        instruction=shape(args[15]),
        epilogue=epilogue_op(args[16]),
        swizzle=args[17],
        stages=stages,
        math_op=args[19],
    )


def scope_reason(k: Kernel) -> str | None:
    """Why this kernel is outside what the model computes exactly (None: inside)."""
    unknown = [
        e
        for e in (k.element_a, k.element_b, k.element_accumulator)
        if e not in gemm_2x.ELEMENT_BITS
    ]
    if unknown:
        return f"element type {unknown[0]} is not in the model's sizeof_bits table"
    if k.stages < 2:
        return f"Stages = {k.stages}: DefaultMma has no single-stage mainloop"
    if k.visitor is not None and _visitor_name(k.visitor) not in EMPTY_VISITORS:
        return (
            f"epilogue visitor {_visitor_name(k.visitor)}: the model knows the SharedStorage of "
            f"{', '.join(EMPTY_VISITORS)} only"
        )
    if k.epilogue is None:
        return (
            "its EpilogueOutputOp is no LinearCombination*<ElementOutput, Count, ...> whose "
            "ElementOutput and Count the epilogue's iterators are chosen by"
        )
    if k.opclass == TENSOR_OP:
        if k.arch_tag not in TENSOR_OP_ARCHES:
            arches = ", ".join(f"Sm{a}" for a in TENSOR_OP_ARCHES)
            return f"tensor-op kernels of ArchTag Sm{k.arch_tag} are not modeled ({arches} are)"
        if k.complex and k.arch_tag not in COMPLEX_ARCHES:
            return f"complex tensor-op kernels of ArchTag Sm{k.arch_tag} are not modeled"
        if k.arch_tag == VOLTA and (
            k.interleaved or k.element_accumulator not in VOLTA_ACCUMULATORS
        ):
            return (
                "Volta tensor-op kernels with interleaved C or accumulators other than half_t "
                "and float are not modeled"
            )
        return None
    if k.opclass == SIMT:
        if k.stages > 2 and k.arch_tag < SIMT_MULTISTAGE_ARCH:
            return f"a {k.stages}-stage SIMT kernel needs ArchTag Sm80's multistage core"
        if not all(_plain(layout) for layout in (k.layout_a, k.layout_b, k.layout_c)):
            return "SIMT kernels with affine or interleaved layouts are not modeled"
        return None
    return f"{k.opclass.rsplit('::', 1)[-1]} kernels are not modeled (TensorOp and Simt are)"


def _plain(layout: str) -> bool:
    return layout in (ROW_MAJOR, COLUMN_MAJOR)


def simt_core(k: Kernel) -> gemm_2x.SimtCore:
    bits_a = gemm_2x.ELEMENT_BITS[k.element_a]
    return gemm_2x.SimtCore(
        threadblock=k.threadblock,
        warp=k.warp,
        stages=k.stages,
        bits_a=bits_a,
        bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
        a_row_major=k.layout_a == ROW_MAJOR,
        b_column_major=k.layout_b == COLUMN_MAJOR,
        dp4a=k.instruction.k == 4 and k.element_a == "int8_t" and k.element_b == "int8_t",
    )


def mma_storage(k: Kernel) -> gemm_2x.MmaStorage:
    """SIMT: the SimtCore's padding. Tensor op: the MmaBase storage: Operator::ElementA/B are the kernel's elements (the SM80
    mixed-input, fast-F32/BF16/F16 and complex warp operators convert after the smem load)."""
    if k.opclass == SIMT:
        return simt_core(k).mma_storage()
    if k.complex:
        core = "default_multistage_mma_complex_core_sm80.h"
    else:
        core = f"default_mma_core_sm{min(k.arch_tag, 80)}.h"
    return gemm_2x.MmaStorage(
        threadblock=k.threadblock,
        stages=k.stages,
        bits_a=gemm_2x.ELEMENT_BITS[k.element_a],
        bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
        padding_source=f"{core}: MmaPolicy<..., MatrixShape<0, 0>, MatrixShape<0, 0>, ...>",
    )


def mma_shared_storage(k: Kernel) -> Block:
    return gemm_2x.mma_shared_storage(mma_storage(k))


def epilogue_shared_storage(k: Kernel) -> Block:
    """DefaultGemm's epilogue: DefaultInterleavedEpilogueTensorOp for interleaved C (empty
    storage), DefaultEpilogueSimt for SIMT (DefaultGemmComplex too), DefaultEpilogueVoltaTensorOp
    for Sm70, DefaultEpilogueComplexTensorOp for complex tensor op, DefaultEpilogueTensorOp
    otherwise."""
    if k.interleaved:
        return gemm_2x.interleaved_epilogue_storage()
    if k.opclass == SIMT:
        e = gemm_2x.simt_epilogue(simt_core(k), k.element_accumulator)
    elif k.arch_tag == VOLTA:
        e = gemm_2x.volta_tensor_op_epilogue(k.threadblock, k.warp, k.element_accumulator)
    elif k.complex:
        e = gemm_2x.complex_tensor_op_epilogue(k.threadblock, k.warp, k.element_accumulator)
    else:
        assert k.epilogue is not None, "scope_reason() first"
        e = gemm_2x.tensor_op_epilogue(
            k.threadblock, k.warp, k.epilogue.output, k.element_accumulator, k.epilogue.count
        )
    return gemm_2x.epilogue_shared_storage(e)


def _visitor_name(visitor: str) -> str:
    return visitor.split("<", 1)[0].strip()


def visitor_epilogue_storage(k: Kernel) -> Block:
    """VISITOR_SHELL's `struct { Epilogue::SharedStorage epilogue; EpilogueVisitor::SharedStorage
    visitor; } epilogue;`. EpilogueWithVisitor's SharedStorage is its base's
    (cutlass/epilogue/threadblock/epilogue_with_visitor.h: `using SharedStorage = typename
    Base::SharedStorage`), the staging buffer of the DefaultGemm epilogue it was built from; an
    empty visitor takes a byte, padded to the buffer's alignment."""
    assert k.visitor is not None
    return struct(
        "epilogue",
        [
            epilogue_shared_storage(k).at("epilogue"),
            empty("visitor", EMPTY_VISITORS[_visitor_name(k.visitor)]),
        ],
        f"{VISITOR_SHELL}: SharedStorage::epilogue {{ epilogue; visitor; }}",
    )


def kernel_shared_storage(k: Kernel) -> Block:
    if k.visitor is not None:
        # VISITOR_SHELL: union SharedStorage { Mma::SharedStorage main_loop; struct {...} epilogue; }
        return union(
            "SharedStorage",
            [mma_shared_storage(k).at("main_loop"), visitor_epilogue_storage(k)],
            f"{VISITOR_SHELL}: GemmWithEpilogueVisitor::SharedStorage (union)",
        )
    return gemm_2x.kernel_union(
        "SharedStorage",
        mma_shared_storage(k),
        epilogue_shared_storage(k),
        f"{KERNEL_SHELL}: GemmUniversal::SharedStorage (union)",
    )


def threads_per_block(k: Kernel) -> int:
    return gemm_2x.thread_count(k.threadblock, k.warp)


def library_estimate(k: Kernel) -> int:
    """cutlass_library's own estimate (library.py CalculateSmemUsage), in bytes before its `>> 10`:
    `(sizeof_bits(A) * M * K / 8 + sizeof_bits(B, or A when A and B are one type) * N * K / 8) *
    stages` - the operand tiles only, no padding and no epilogue. manifest.py's filter compares
    its KiB with SharedMemPerCC[cc], which has no entry for 120 (every kernel passes)."""
    tb = k.threadblock
    bits_a = gemm_2x.ELEMENT_BITS[k.element_a]
    bits_b = gemm_2x.ELEMENT_BITS[k.element_b] if k.element_a != k.element_b else bits_a
    return (bits_a * tb.m * tb.k // 8 + bits_b * tb.n * tb.k // 8) * k.stages


def with_stages(k: Kernel, stages: int) -> Kernel:
    return dataclasses.replace(k, stages=stages)
