"""The CUTLASS 2.x structured-sparse GEMM as cutlass_library writes it, and the compiler's layout
of its `SharedStorage`.

cutlass_library's gemm_operation.py (EmitSparseGemmInstance) writes the device type itself:

    using Operation_<name> = cutlass::gemm::device::SparseGemm<
      ElementA, LayoutA, ElementB, LayoutB, ElementC, LayoutC, ElementAccumulator,
      OperatorClass, ArchTag, ThreadblockShape, WarpShape, InstructionShape, EpilogueOutputOp,
      ThreadblockSwizzle, Stages, AlignmentA, AlignmentB, SplitKSerial, Operator>;

`device::SparseGemm` (gemm/device/gemm_sparse.h) builds `DefaultSparseGemm<...>::GemmKernel`
(gemm/kernel/default_gemm_sparse.h): a `SparseMmaMultistage` mainloop, whose SparseMmaBase storage
holds the compressed A, B and the metadata E (cutlint.cutlass.gemm_2x.sparse_mma_shared_storage),
and `DefaultEpilogueTensorOp`, the dense GEMM's epilogue. kernel::SparseGemm (gemm/kernel/
sparse_gemm.h) holds `union SharedStorage { Mma::SharedStorage main_loop; Epilogue::SharedStorage
epilogue; }`.
"""

from __future__ import annotations

import dataclasses

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block
from cutlint.families.base import family_data
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType

PACKAGE = "cutlint.families.cutlass2_sparse_gemm"
TEMPLATE = "cutlass::gemm::device::SparseGemm"
KERNEL_SHELL = "cutlass/gemm/kernel/sparse_gemm.h"
_CONSTANTS = family_data(PACKAGE).constants
ARGUMENT_COUNT = _CONSTANTS["argument_count"]
STAGES_ARGUMENT = _CONSTANTS["stages_argument"]
SPARSE_ARCH = _CONSTANTS["sparse_arch"]
"""The DefaultSparseGemm specialization modeled (OpClassTensorOp, arch::Sm80); its Sm89 one
(FP8 SparseMma, mma_sparse_sm89.h) is in no build's compiler truth."""


def kernel_of(args: tuple[str, ...]) -> universal.Kernel:
    """device::SparseGemm's arguments typed as the dense GEMM's (the epilogue is the same)."""
    if len(args) != ARGUMENT_COUNT:
        raise UnreadableType(f"takes {ARGUMENT_COUNT} template arguments here, found {len(args)}")
    try:
        stages, alignment_a, alignment_b = (int(args[i]) for i in (STAGES_ARGUMENT, 15, 16))
    except ValueError as e:
        raise UnreadableType(f"Stages and alignments must be integer literals: {e}") from e
    return universal.Kernel(
        element_a=args[0],
        layout_a=args[1],
        alignment_a=alignment_a,
        element_b=args[2],
        layout_b=args[3],
        alignment_b=alignment_b,
        element_c=args[4],
        layout_c=args[5],
        element_accumulator=args[6],
        opclass=args[7],
        arch_tag=universal.arch_tag(args[8]),
        threadblock=universal.shape(args[9]),
        warp=universal.shape(args[10]),
        instruction=universal.shape(args[11]),
        epilogue=universal.epilogue_op(args[12]),
        swizzle=args[13],
        stages=stages,
        math_op=args[18],
    )


def scope_reason(k: universal.Kernel) -> str | None:
    if k.opclass != universal.TENSOR_OP or k.arch_tag != SPARSE_ARCH:
        return (
            f"only DefaultSparseGemm's OpClassTensorOp Sm{SPARSE_ARCH} specialization is "
            f"modeled; this one is {k.opclass.rsplit('::', 1)[-1]} Sm{k.arch_tag}"
        )
    for e in (k.element_a, k.element_b, k.element_accumulator):
        if e not in gemm_2x.ELEMENT_BITS or e in universal.COMPLEX:
            return f"element type {e} has no SparseMma the model reads (mma_sparse_sm80.h)"
    if k.epilogue is None:
        return (
            "its EpilogueOutputOp is no LinearCombination*<ElementOutput, Count, ...> whose "
            "ElementOutput and Count DefaultEpilogueTensorOp's iterators are chosen by"
        )
    return None


def mma_shared_storage(k: universal.Kernel) -> Block:
    return gemm_2x.sparse_mma_shared_storage(
        gemm_2x.MmaStorage(
            threadblock=k.threadblock,
            stages=k.stages,
            bits_a=gemm_2x.ELEMENT_BITS[k.element_a],
            bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
            mainloop="SparseMmaMultistage",
        )
    )


def epilogue_shared_storage(k: universal.Kernel) -> Block:
    """default_gemm_sparse.h: DefaultEpilogueTensorOp<ThreadblockShape, Mma::Operator,
    kPartitionsK, EpilogueOutputOp, EpilogueOutputOp::kCount>."""
    assert k.epilogue is not None, "scope_reason() first"
    return gemm_2x.epilogue_shared_storage(
        gemm_2x.tensor_op_epilogue(
            k.threadblock, k.warp, k.epilogue.output, k.element_accumulator, k.epilogue.count
        )
    )


def kernel_shared_storage(k: universal.Kernel) -> Block:
    return gemm_2x.kernel_union(
        "SharedStorage",
        mma_shared_storage(k),
        epilogue_shared_storage(k),
        f"{KERNEL_SHELL}: SparseGemm::SharedStorage (union)",
    )


def with_stages(k: universal.Kernel, stages: int) -> universal.Kernel:
    return dataclasses.replace(k, stages=stages)
