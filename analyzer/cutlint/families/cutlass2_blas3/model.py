"""The CUTLASS 2.x BLAS-3 kernels as cutlass_library writes them, and the compiler's layout of
their `SharedStorage`.

cutlass_library's trmm_operation.py, symm_operation.py, rank_k_operation.py and
rank_2k_operation.py write `using Operation_<name> = typename cutlass::gemm::device::Trmm<...>;`
(Symm, RankK, Rank2K alike). Each device type builds its kernel (`TrmmKernel`, `SymmKernel`,
`RankKkernel`, `Rank2Kkernel`) from Sm80 tensor-op parts:

    kernel shell (gemm/kernel/)   SharedStorage (a union)                  Mma         Epilogue
    TrmmUniversal                 { Mma main_loop; Epilogue epilogue; }    DefaultTrmm  TensorOp
    SymmUniversal                 { Mma1 ...; Mma2 ...; Epilogue ...; }    DefaultTrmm  TensorOp
    RankKUniversal                { Mma main_loop; Epilogue epilogue; }    DefaultMma   TensorOpBlas3
    Rank2KUniversal               { Mma1 ...; Mma2 ...; Epilogue ...; }    DefaultMma   TensorOpBlas3

(complex kernels: DefaultMultistageTrmmComplex / DefaultMultistageMmaComplex and the
DefaultEpilogueComplexTensorOp[Blas3] epilogues). Every Mma keeps MmaBase's SharedStorage with the
zero MmaPolicy padding of default_mma_core_sm80.h and default_multistage_mma_complex_core_sm80.h,
so Mma1 and Mma2 (which differ only in layout, fill and diagonal) are equally large. The model:
cutlint.cutlass.gemm_2x. What is modeled (each checked against nvcc, the truth file named in
data/family.toml) is listed in `scope_reason`; anything else is "not modeled".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block, union
from cutlint.families.base import family_data
from cutlint.families.cutlass2_gemm_universal.model import (
    EpilogueOp,
    UnreadableType,
    arch_tag,
    epilogue_op,
    shape,
)
from cutlint.records import Shape3

PACKAGE = "cutlint.families.cutlass2_blas3"
_CONSTANTS = family_data(PACKAGE).constants
MODELED_ARCH = _CONSTANTS["modeled_arch"]
"""The ArchTag of every BLAS-3 kernel cutlass_library writes (data/family.toml)."""

TENSOR_OP = "cutlass::arch::OpClassTensorOp"
COMPLEX = ("cutlass::complex<float>", "cutlass::complex<double>")
REAL = ("float", "double")


@dataclass(frozen=True)
class Template:
    """Where a device type's template arguments sit (its `template <...>` in gemm/device/)."""

    name: str
    header: str
    kernel_member: str
    """The device type's kernel alias (`TrmmKernel`, ...), whose SharedStorage initialize() sizes."""
    kernel_shell: str
    element_a: int
    element_b: int | None
    """None: RankK's one operand (A and A^T)."""
    element_c: int
    accumulator: int
    opclass: int
    """OperatorClass; ArchTag, ThreadblockShape, WarpShape, InstructionShape, EpilogueOutputOp,
    ThreadblockSwizzle and Stages follow it, in this order, in every one of the four."""
    operator: int
    min_args: int
    """cutlass_library writes this many, or more (the trailing ones have defaults)."""
    two_mainloops: bool
    """SharedStorage holds Mma1 and Mma2 (A*B and B*A, or the triangle's two halves)."""
    blas3_epilogue: bool
    """The real kernels' epilogue is DefaultEpilogueTensorOpBlas3 (else DefaultEpilogueTensorOp)."""


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "cutlass::gemm::device::Trmm",
            "cutlass/gemm/device/trmm.h",
            "TrmmKernel",
            "cutlass/gemm/kernel/trmm_universal.h: TrmmUniversal",
            element_a=0,
            element_b=5,
            element_c=7,
            accumulator=9,
            opclass=10,
            operator=21,
            min_args=22,
            two_mainloops=False,
            blas3_epilogue=False,
        ),
        Template(
            "cutlass::gemm::device::Symm",
            "cutlass/gemm/device/symm.h",
            "SymmKernel",
            "cutlass/gemm/kernel/symm_universal.h: SymmUniversal",
            element_a=0,
            element_b=4,
            element_c=6,
            accumulator=8,
            opclass=9,
            operator=20,
            min_args=21,
            two_mainloops=True,
            blas3_epilogue=False,
        ),
        Template(
            "cutlass::gemm::device::RankK",
            "cutlass/gemm/device/rank_k.h",
            "RankKkernel",
            "cutlass/gemm/kernel/rank_k_universal.h: RankKUniversal",
            element_a=0,
            element_b=None,
            element_c=2,
            accumulator=5,
            opclass=6,
            operator=16,
            min_args=17,
            two_mainloops=False,
            blas3_epilogue=True,
        ),
        Template(
            "cutlass::gemm::device::Rank2K",
            "cutlass/gemm/device/rank_2k.h",
            "Rank2Kkernel",
            "cutlass/gemm/kernel/rank_2k_universal.h: Rank2KUniversal",
            element_a=0,
            element_b=2,
            element_c=4,
            accumulator=7,
            opclass=8,
            operator=19,
            min_args=20,
            two_mainloops=True,
            blas3_epilogue=True,
        ),
    )
}


@dataclass(frozen=True)
class Kernel:
    """One BLAS-3 device type's kernel, typed."""

    template: Template
    element_a: str
    element_b: str
    element_c: str
    element_accumulator: str
    opclass: str
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    instruction: Shape3
    epilogue: EpilogueOp | None
    stages: int
    math_op: str

    @property
    def complex(self) -> bool:
        return self.element_a in COMPLEX


def kernel_of(template: str, args: tuple[str, ...]) -> Kernel:
    """The typed kernel of a device type's template arguments (UnreadableType if not)."""
    t = TEMPLATES[template]
    if len(args) < t.min_args:
        raise UnreadableType(f"takes at least {t.min_args} template arguments, found {len(args)}")
    o = t.opclass
    try:
        stages = int(args[o + 7])
    except ValueError as e:
        raise UnreadableType(f"Stages must be an integer literal: {e}") from e
    return Kernel(
        template=t,
        element_a=args[t.element_a],
        element_b=args[t.element_b if t.element_b is not None else t.element_a],
        element_c=args[t.element_c],
        element_accumulator=args[t.accumulator],
        opclass=args[o],
        arch_tag=arch_tag(args[o + 1]),
        threadblock=shape(args[o + 2]),
        warp=shape(args[o + 3]),
        instruction=shape(args[o + 4]),
        epilogue=epilogue_op(args[o + 5]),
        stages=stages,
        math_op=args[t.operator],
    )


def scope_reason(k: Kernel) -> str | None:
    """Why this kernel is outside what the model computes exactly (None: inside)."""
    if k.opclass != TENSOR_OP:
        return f"{k.opclass.rsplit('::', 1)[-1]} BLAS-3 kernels are not modeled (TensorOp is)"
    if k.arch_tag != MODELED_ARCH:
        return f"BLAS-3 kernels of ArchTag Sm{k.arch_tag} are not modeled (Sm{MODELED_ARCH} is)"
    for e in (k.element_a, k.element_b, k.element_accumulator):
        if e not in REAL + COMPLEX:
            return f"element type {e} is not modeled for BLAS-3 kernels (float, double and their complex are)"
    if k.stages < 3:
        # every cutlass_library BLAS-3 kernel is multistage; the 2-stage Sm80 path is not in the truth
        return f"Stages = {k.stages}: only the multistage (3 or more) Sm80 mainloops are modeled"
    if not k.complex and k.epilogue is None:
        return (
            "its EpilogueOutputOp is no LinearCombination*<ElementOutput, Count, ...> whose "
            "ElementOutput and Count the epilogue's iterators are chosen by"
        )
    return None


def mma_storage(k: Kernel) -> gemm_2x.MmaStorage:
    """MmaBase's storage with Operator::ElementA/B = the kernel's elements (the FastF32 and
    complex warp operators convert after the smem load) and the Sm80 cores' zero padding."""
    core = "default_multistage_mma_complex_core_sm80.h" if k.complex else "default_mma_core_sm80.h"
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
    """Complex: DefaultEpilogueComplexTensorOp[Blas3] (Padding 0, one fragment); real: the
    template's DefaultEpilogueTensorOp (Trmm, Symm) or DefaultEpilogueTensorOpBlas3 (RankK,
    Rank2K)."""
    if k.complex:
        e = gemm_2x.complex_tensor_op_epilogue(k.threadblock, k.warp, k.element_accumulator)
    elif k.template.blas3_epilogue:
        e = gemm_2x.tensor_op_blas3_epilogue(k.threadblock, k.warp, k.element_accumulator)
    else:
        assert k.epilogue is not None, "scope_reason() first"
        e = gemm_2x.tensor_op_epilogue(
            k.threadblock, k.warp, k.epilogue.output, k.element_accumulator, k.epilogue.count
        )
    return gemm_2x.epilogue_shared_storage(e)


def kernel_shared_storage(k: Kernel) -> Block:
    mma = mma_shared_storage(k)
    epilogue = epilogue_shared_storage(k)
    source = f"{k.template.kernel_shell}::SharedStorage (union)"
    if k.template.two_mainloops:
        members = [mma.at("mma1_main_loop"), mma.at("mma2_main_loop"), epilogue.at("epilogue")]
        return union("SharedStorage", members, source)
    return gemm_2x.kernel_union("SharedStorage", mma, epilogue, source)


def threads_per_block(k: Kernel) -> int:
    """`kThreadCount = 32 * WarpCount::kCount` (each of the four kernel shells)."""
    return gemm_2x.thread_count(k.threadblock, k.warp)


def with_stages(k: Kernel, stages: int) -> Kernel:
    return dataclasses.replace(k, stages=stages)
