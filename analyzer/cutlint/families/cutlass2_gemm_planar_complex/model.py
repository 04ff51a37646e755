"""The CUTLASS 2.x planar-complex GEMM as cutlass_library writes it, and the compiler's layout of
its `SharedStorage`.

cutlass_library's gemm_operation.py (EmitGemmPlanarComplexInstance, and
EmitGemmPlanarComplexArrayInstance alike) writes

    using Operation_<name> = typename cutlass::gemm::kernel::DefaultGemmPlanarComplexUniversal<
      ElementA, LayoutA, TransformA, AlignmentA, ElementB, LayoutB, TransformB, AlignmentB,
      ElementC, LayoutC, ElementAccumulator, OperatorClass, ArchTag, ThreadblockShape, WarpShape,
      InstructionShape, EpilogueOutputOp, ThreadblockSwizzle, Stages, MathOperator>::GemmKernel;

(`::GemmArrayKernel` for the array kernels)
(DefaultGemmUniversal's 20 arguments in DefaultGemmUniversal's order, so they are read by
cutlint.families.cutlass2_gemm_universal.model.kernel_of). gemm/kernel/
default_gemm_planar_complex_universal.h builds `kernel::GemmPlanarComplex<Mma, Epilogue, ...>`
(`GemmPlanarComplexArray` for the array kernels: the same storage) from
DefaultMmaPlanarComplexPipelined (Stages <= 2) or DefaultMmaPlanarComplexMultistage (Stages > 2),
whose MmaPlanarComplexBase keeps the real DefaultMma's operand tiles twice (real and imaginary
planes), and DefaultEpiloguePlanarComplex, whose EpiloguePlanarComplex stages the real and the
imaginary accumulators with DefaultEpilogueTensorOp's warp tile iterator and Padding:

    union SharedStorage { Mma::SharedStorage main_loop; Epilogue::SharedStorage epilogue; };

laid out by cutlint.cutlass.gemm_2x. What is modeled (each checked against nvcc, the truth file
named in data/family.toml) is listed in `scope_reason`; anything else is "not modeled".
"""

from __future__ import annotations

import dataclasses

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block
from cutlint.families.cutlass2_gemm_universal.model import Kernel, UnreadableType, kernel_of

PACKAGE = "cutlint.families.cutlass2_gemm_planar_complex"
TEMPLATE = "cutlass::gemm::kernel::DefaultGemmPlanarComplexUniversal"
KERNEL_SHELL = "cutlass/gemm/kernel/gemm_planar_complex.h"
KERNEL_MEMBERS = ("GemmKernel", "GemmArrayKernel")
"""default_gemm_planar_complex_universal.h: `using GemmKernel = kernel::GemmPlanarComplex<...>`
and `using GemmArrayKernel = kernel::GemmPlanarComplexArray<...>` (EmitGemmPlanarComplexArrayInstance
names the latter); both hold `union SharedStorage { Mma::SharedStorage main_loop;
Epilogue::SharedStorage epilogue; }` of the same Mma and Epilogue."""
TENSOR_OP = "cutlass::arch::OpClassTensorOp"
ARCHES = (75, 80)
"""The ArchTags whose DefaultEpiloguePlanarComplex is built on DefaultEpilogueTensorOp and whose
DefaultMma uses the zero-padding cores default_mma_core_sm75.h / _sm80.h (the Sm70 one uses
DefaultEpilogueVoltaTensorOp; the SIMT one DefaultEpilogueSimt; neither is in the truth)."""
OPERANDS = ("cutlass::half_t", "cutlass::bfloat16_t")
ACCUMULATORS = ("cutlass::half_t", "float")

__all__ = [
    "ARCHES",
    "KERNEL_MEMBERS",
    "TEMPLATE",
    "Kernel",
    "UnreadableType",
    "epilogue_shared_storage",
    "kernel_of",
    "kernel_shared_storage",
    "mma_shared_storage",
    "scope_reason",
    "threads_per_block",
    "with_stages",
]


def scope_reason(k: Kernel) -> str | None:
    """Why this kernel is outside what the model computes exactly (None: inside)."""
    if k.opclass != TENSOR_OP:
        return (
            f"{k.opclass.rsplit('::', 1)[-1]} planar-complex kernels are not modeled (TensorOp is)"
        )
    if k.arch_tag not in ARCHES:
        arches = ", ".join(f"Sm{a}" for a in ARCHES)
        return f"planar-complex kernels of ArchTag Sm{k.arch_tag} are not modeled ({arches} are)"
    for e in (k.element_a, k.element_b):
        if e not in OPERANDS:
            return f"operand type {e} is not modeled for planar-complex kernels (half_t, bfloat16_t are)"
    if k.element_accumulator not in ACCUMULATORS:
        return f"accumulator type {k.element_accumulator} is not modeled for planar-complex kernels"
    if k.stages < 2:
        return f"Stages = {k.stages}: DefaultMmaPlanarComplexPipelined needs 2"
    if k.epilogue is None:
        return (
            "its EpilogueOutputOp is no LinearCombinationPlanarComplex<ElementOutput, Count, ...>"
        )
    return None


def mma_shared_storage(k: Kernel) -> Block:
    """MmaPlanarComplexBase::SharedStorage: the real DefaultMma's tiles (Operator::ElementA/B = the
    kernel's elements; zero MmaPolicy padding), twice."""
    core = f"default_mma_core_sm{k.arch_tag}.h"
    return gemm_2x.planar_complex_mma_shared_storage(
        gemm_2x.MmaStorage(
            threadblock=k.threadblock,
            stages=k.stages,
            bits_a=gemm_2x.ELEMENT_BITS[k.element_a],
            bits_b=gemm_2x.ELEMENT_BITS[k.element_b],
            padding_source=f"{core}: MmaPolicy<..., MatrixShape<0, 0>, MatrixShape<0, 0>, ...>",
        )
    )


def epilogue_shared_storage(k: Kernel) -> Block:
    """EpiloguePlanarComplex with `RealEpilogue = DefaultEpilogueTensorOp<...>`'s WarpTileIterator
    and Padding (cutlass/epilogue/threadblock/default_epilogue_planar_complex.h, its Sm75 and Sm80
    specializations); its storage has no kFragmentsPerIteration factor."""
    assert k.epilogue is not None, "scope_reason() first"
    real = gemm_2x.tensor_op_epilogue(
        k.threadblock, k.warp, k.epilogue.output, k.element_accumulator, k.epilogue.count
    )
    return gemm_2x.planar_complex_epilogue_shared_storage(real)


def kernel_shared_storage(k: Kernel) -> Block:
    return gemm_2x.kernel_union(
        "SharedStorage",
        mma_shared_storage(k),
        epilogue_shared_storage(k),
        f"{KERNEL_SHELL}: GemmPlanarComplex::SharedStorage (union; gemm_planar_complex_array.h's "
        "GemmPlanarComplexArray alike)",
    )


def threads_per_block(k: Kernel) -> int:
    """`kThreadCount = 32 * WarpCount::kCount` (GemmPlanarComplex, GemmPlanarComplexArray)."""
    return gemm_2x.thread_count(k.threadblock, k.warp)


def with_stages(k: Kernel, stages: int) -> Kernel:
    return dataclasses.replace(k, stages=stages)
