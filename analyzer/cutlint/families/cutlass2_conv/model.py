"""The CUTLASS 2.x implicit-GEMM convolutions as cutlass_library writes them, and the compiler's
layout of their `SharedStorage`.

cutlass_library's conv2d_operation.py / conv3d_operation.py write

    using <name>_base = typename cutlass::conv::kernel::DefaultConv2dFprop<
      ElementA, LayoutA, ElementB, LayoutB, ElementC, LayoutC, ElementAccumulator,
      OperatorClass, ArchTag, ThreadblockShape, WarpShape, InstructionShape, EpilogueOutputOp,
      ThreadblockSwizzle, Stages, MathOperatorTag, [GroupMode,] IteratorAlgorithm, StrideSupport
      [, AlignmentA, AlignmentB]>::Kernel;

(DefaultConv2dDgrad, DefaultConv2dWgrad, DefaultConv2dGroupFprop, DefaultConv3d*: the same first
sixteen arguments). Every one builds `kernel::ImplicitGemmConvolution<Mma, Epilogue, ...>`
(conv/kernel/implicit_gemm_convolution.h), whose

    union SharedStorage { Mma::SharedStorage main_loop; Epilogue::SharedStorage epilogue; };

is GemmUniversal's: the Mma (ImplicitGemmPipelined for 2 stages, ImplicitGemmMultistage for more,
whatever the iterator algorithm: analytic, optimized, fixed or few channels) derives MmaBase and
its `DefaultMmaCore` is the GEMM's, with the operand layouts the conv operator fixes (below); the
epilogue is DefaultEpilogueTensorOp (conv/kernel/default_conv2d.h, DefaultConvEpilogue), its
StridedDgrad twin (same Padding and kFragmentsPerIteration) or DefaultEpilogueSimt. So the
storage is laid out by cutlint.cutlass.gemm_2x; `scope_reason` lists what is modeled.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block
from cutlint.families.base import family_data
from cutlint.families.cutlass2_gemm_universal.model import (
    COMPLEX,
    EpilogueOp,
    UnreadableType,
    arch_tag,
    epilogue_op,
    shape,
)
from cutlint.records import Shape3

PACKAGE = "cutlint.families.cutlass2_conv"
KERNEL_SHELL = "cutlass/conv/kernel/implicit_gemm_convolution.h"
_CONSTANTS = family_data(PACKAGE).constants
COMMON_ARGUMENTS = _CONSTANTS["common_arguments"]
"""The leading template arguments every DefaultConv*d* shares (data/family.toml)."""
STAGES_ARGUMENT = _CONSTANTS["stages_argument"]

FPROP, DGRAD, WGRAD = "fprop", "dgrad", "wgrad"
TEMPLATES: dict[str, str] = {
    "cutlass::conv::kernel::DefaultConv2dFprop": FPROP,
    "cutlass::conv::kernel::DefaultConv2dGroupFprop": FPROP,
    "cutlass::conv::kernel::DefaultConv2dDgrad": DGRAD,
    "cutlass::conv::kernel::DefaultConv2dWgrad": WGRAD,
    "cutlass::conv::kernel::DefaultConv3dFprop": FPROP,
    "cutlass::conv::kernel::DefaultConv3dDgrad": DGRAD,
    "cutlass::conv::kernel::DefaultConv3dWgrad": WGRAD,
}
"""The implicit-GEMM kernels and the conv operator each one builds."""
DEPTHWISE = "cutlass::conv::kernel::DefaultDepthwiseDirect2dConvFprop"
"""Claimed so that `covers` says why it is not modeled (kernel::DirectConvolution)."""

# The GEMM operand layouts each operator hands DefaultMmaCore (they set the SIMT cores' skew):
# default_conv2d_fprop.h / default_conv3d_fprop.h / default_conv2d_group_fprop.h: A RowMajor,
# B ColumnMajor; default_conv2d_dgrad.h / default_conv3d_dgrad.h: A RowMajor, B RowMajor;
# default_conv2d_wgrad.h / default_conv3d_wgrad.h: A ColumnMajor, B RowMajor.
A_ROW_MAJOR = {FPROP: True, DGRAD: True, WGRAD: False}
B_COLUMN_MAJOR = {FPROP: True, DGRAD: False, WGRAD: False}

TENSOR_OP = "cutlass::arch::OpClassTensorOp"
SIMT = "cutlass::arch::OpClassSimt"
TENSOR_OP_ARCHES = (75, 80)
"""ArchTags of the tensor-op conv kernels the compiler truth holds (default_mma_core_sm75.h and
_sm80.h cores, MmaPolicy padding zero; DefaultConvEpilogue's DefaultEpilogueTensorOp)."""
PLAIN_LAYOUTS = ("cutlass::layout::TensorNHWC", "cutlass::layout::TensorNDHWC")
INTERLEAVED = "cutlass::layout::TensorNCxHWx<"
"""default_conv2d_fprop.h's interleaved specializations: RowMajorInterleaved /
ColumnMajorInterleaved cores (MmaPolicy padding zero) and DefaultInterleavedConvEpilogue, whose
InterleavedEpilogue writes from registers (empty SharedStorage)."""


def _readable_layout(layout: str) -> bool:
    return layout in PLAIN_LAYOUTS or layout.startswith(INTERLEAVED)


@dataclass(frozen=True)
class Kernel:
    """One DefaultConv*<...>::Kernel, typed."""

    template: str
    operator: str
    element_a: str
    layout_a: str
    element_b: str
    element_c: str
    layout_c: str
    element_accumulator: str
    opclass: str
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    instruction: Shape3
    epilogue: EpilogueOp | None
    stages: int
    math_op: str
    iterator_algorithm: str

    @property
    def interleaved(self) -> bool:
        return self.layout_c.startswith(INTERLEAVED)

    @property
    def short(self) -> str:
        return self.template.rsplit("::", 1)[-1]


def kernel_of(template: str, args: tuple[str, ...]) -> Kernel:
    """The typed kernel of a DefaultConv* template's arguments (UnreadableType if not)."""
    if template not in TEMPLATES:
        raise UnreadableType(f"`{template}` is no implicit-GEMM conv kernel the model reads")
    if len(args) < COMMON_ARGUMENTS:
        raise UnreadableType(
            f"takes at least {COMMON_ARGUMENTS} template arguments, found {len(args)}"
        )
    try:
        stages = int(args[STAGES_ARGUMENT])
    except ValueError as e:
        raise UnreadableType(f"Stages must be an integer literal: {e}") from e
    algorithm = next((a for a in args if "IteratorAlgorithm::" in a), "")
    return Kernel(
        template=template,
        operator=TEMPLATES[template],
        element_a=args[0],
        layout_a=args[1],
        element_b=args[2],
        element_c=args[4],
        layout_c=args[5],
        element_accumulator=args[6],
        opclass=args[7],
        arch_tag=arch_tag(args[8]),
        threadblock=shape(args[9]),
        warp=shape(args[10]),
        instruction=shape(args[11]),
        epilogue=epilogue_op(args[12]),
        stages=stages,
        math_op=args[15],
        iterator_algorithm=algorithm.rsplit("::", 1)[-1],
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
        return f"Stages = {k.stages}: the implicit-GEMM mainloops need 2 or more"
    if not all(_readable_layout(x) for x in (k.layout_a, k.layout_c)):
        return (
            f"conv layout {k.layout_a} is not modeled (TensorNHWC, TensorNDHWC, TensorNCxHWx are)"
        )
    if k.interleaved and k.opclass != TENSOR_OP:
        return "interleaved SIMT conv kernels are not modeled"
    if k.opclass == TENSOR_OP:
        if k.arch_tag not in TENSOR_OP_ARCHES:
            arches = ", ".join(f"Sm{a}" for a in TENSOR_OP_ARCHES)
            return (
                f"tensor-op conv kernels of ArchTag Sm{k.arch_tag} are not modeled ({arches} are)"
            )
        if k.element_a in COMPLEX:
            return "complex tensor-op conv kernels are not modeled"
        if k.epilogue is None:
            return (
                "its EpilogueOutputOp is no LinearCombination*<ElementOutput, Count, ...> whose "
                "ElementOutput and Count DefaultEpilogueTensorOp's iterators are chosen by"
            )
        return None
    if k.opclass == SIMT:
        return None
    return f"{k.opclass.rsplit('::', 1)[-1]} conv kernels are not modeled (TensorOp and Simt are)"


def simt_core(k: Kernel) -> gemm_2x.SimtCore:
    return gemm_2x.SimtCore(
        threadblock=k.threadblock,
        warp=k.warp,
        stages=k.stages,
        bits_a=gemm_2x.ELEMENT_BITS[k.element_a],
        bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
        a_row_major=A_ROW_MAJOR[k.operator],
        b_column_major=B_COLUMN_MAJOR[k.operator],
        dp4a=k.instruction.k == 4 and k.element_a == "int8_t" and k.element_b == "int8_t",
    )


def mma_storage(k: Kernel) -> gemm_2x.MmaStorage:
    """SIMT: the SimtCore's skew for the operator's layouts. Tensor op: no padding."""
    if k.opclass == SIMT:
        return simt_core(k).mma_storage()
    return gemm_2x.MmaStorage(
        threadblock=k.threadblock,
        stages=k.stages,
        bits_a=gemm_2x.ELEMENT_BITS[k.element_a],
        bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
        mainloop="ImplicitGemmPipelined" if k.stages == 2 else "ImplicitGemmMultistage",
        padding_source=f"default_mma_core_sm{k.arch_tag}.h: MmaPolicy<..., MatrixShape<0, 0>, MatrixShape<0, 0>, ...>",
    )


def mma_shared_storage(k: Kernel) -> Block:
    return gemm_2x.mma_shared_storage(mma_storage(k))


def epilogue_shared_storage(k: Kernel) -> Block:
    """DefaultInterleavedConvEpilogue (empty) for interleaved layouts; DefaultEpilogueSimt (its
    StridedDgrad twin alike) for SIMT; DefaultConvEpilogue's
    DefaultEpilogueTensorOp (or DefaultEpilogueTensorOpStridedDgrad) for tensor op."""
    if k.interleaved:
        return gemm_2x.interleaved_epilogue_storage()
    if k.opclass == SIMT:
        e = gemm_2x.simt_epilogue(simt_core(k), k.element_accumulator)
    else:
        assert k.epilogue is not None, "scope_reason() first"
        e = gemm_2x.tensor_op_epilogue(
            k.threadblock, k.warp, k.epilogue.output, k.element_accumulator, k.epilogue.count
        )
    return gemm_2x.epilogue_shared_storage(e)


def kernel_shared_storage(k: Kernel) -> Block:
    return gemm_2x.kernel_union(
        "SharedStorage",
        mma_shared_storage(k),
        epilogue_shared_storage(k),
        f"{KERNEL_SHELL}: ImplicitGemmConvolution::SharedStorage (union)",
    )


def threads_per_block(k: Kernel) -> int:
    """`ImplicitGemmConvolution::kThreadCount = 32 * WarpCount::kCount`."""
    return gemm_2x.thread_count(k.threadblock, k.warp)


def with_stages(k: Kernel, stages: int) -> Kernel:
    return dataclasses.replace(k, stages=stages)
