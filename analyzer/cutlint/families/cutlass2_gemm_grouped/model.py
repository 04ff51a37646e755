"""The CUTLASS 2.x grouped GEMM as cutlass_library writes it, and the compiler's layout of its
`SharedStorage`.

cutlass_library's gemm_operation.py (EmitGemmGroupedInstance) writes

    using <name>_base = typename cutlass::gemm::kernel::DefaultGemmGrouped<
      ElementA, LayoutA, TransformA, AlignmentA, ElementB, LayoutB, TransformB, AlignmentB,
      ElementC, LayoutC, ElementAccumulator, OperatorClass, ArchTag, ThreadblockShape, WarpShape,
      InstructionShape, EpilogueOutputOp, ThreadblockSwizzle, Stages, GroupScheduleMode,
      MathOperator>::GemmKernel;

`DefaultGemmGrouped` (gemm/kernel/default_gemm_grouped.h) takes Mma and Epilogue from the
`DefaultGemm` (real) or `DefaultGemmComplex` (complex) that DefaultGemmUniversal uses, after
`kernel::detail::MapArguments` (gemm/kernel/gemm_transpose_operands.h) has transposed the problem
when `LayoutC` is column-major (`kInternalTranspose`: A and B swap, each layout transposed). The
kernel shell `kernel::GemmGrouped` (gemm/kernel/gemm_grouped.h) holds

    struct SharedStorage {
      union { Mma::SharedStorage main_loop; Epilogue::SharedStorage epilogue; } kernel;
      typename ProblemVisitor::SharedStorage problem_visitor;
    };

The union is cutlass2-gemm-universal's (cutlint.cutlass.gemm_2x through that family's model).
"""

from __future__ import annotations

import dataclasses

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block, empty, struct
from cutlint.families.base import family_data
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType

PACKAGE = "cutlint.families.cutlass2_gemm_grouped"
TEMPLATE = "cutlass::gemm::kernel::DefaultGemmGrouped"
KERNEL_SHELL = "cutlass/gemm/kernel/gemm_grouped.h"
PROBLEM_VISITOR = "cutlass/gemm/kernel/grouped_problem_visitor.h"
_CONSTANTS = family_data(PACKAGE).constants
ARGUMENT_COUNT = _CONSTANTS["argument_count"]
SCHEDULE_ARGUMENT = _CONSTANTS["schedule_argument"]
DEVICE_ONLY = "cutlass::gemm::kernel::GroupScheduleMode::kDeviceOnly"

_TRANSPOSE = {
    universal.ROW_MAJOR: universal.COLUMN_MAJOR,
    universal.COLUMN_MAJOR: universal.ROW_MAJOR,
}


def kernel_of(args: tuple[str, ...]) -> tuple[universal.Kernel, str]:
    """The DefaultGemm kernel DefaultGemmGrouped builds (after MapArguments) and the
    GroupScheduleMode (UnreadableType if the arguments are not DefaultGemmGrouped's)."""
    if len(args) != ARGUMENT_COUNT:
        raise UnreadableType(f"takes {ARGUMENT_COUNT} template arguments here, found {len(args)}")
    schedule = args[SCHEDULE_ARGUMENT]
    k = universal.kernel_of(args[:SCHEDULE_ARGUMENT] + args[SCHEDULE_ARGUMENT + 1 :])
    return mapped(k), schedule


def transposed(k: universal.Kernel) -> bool:
    """default_gemm_grouped.h: `kInternalTranspose = is_same<LayoutC, layout::ColumnMajor>`."""
    return k.layout_c == universal.COLUMN_MAJOR


def mapped(k: universal.Kernel) -> universal.Kernel:
    """kernel::detail::MapArguments<..., kInternalTranspose = true>: ElementA = ElementB_,
    LayoutA = LayoutTranspose<LayoutB_>, ElementB = ElementA_, LayoutB = LayoutTranspose<LayoutA_>,
    LayoutC = LayoutTranspose<LayoutC_>."""
    if not transposed(k):
        return k
    return dataclasses.replace(
        k,
        element_a=k.element_b,
        layout_a=_TRANSPOSE.get(k.layout_b, k.layout_b),
        alignment_a=k.alignment_b,
        element_b=k.element_a,
        layout_b=_TRANSPOSE.get(k.layout_a, k.layout_a),
        alignment_b=k.alignment_a,
        layout_c=universal.ROW_MAJOR,
    )


def scope_reason(k: universal.Kernel, schedule: str) -> str | None:
    if schedule != DEVICE_ONLY:
        return (
            f"GroupScheduleMode {schedule.rsplit('::', 1)[-1]}: its problem visitor's "
            "prefetched_problems array (grouped_problem_visitor.h) is not in the compiler truth; "
            "kDeviceOnly is modeled"
        )
    return universal.scope_reason(k)


def problem_visitor_storage() -> Block:
    """GroupedProblemVisitor<..., GroupScheduleMode::kDeviceOnly, ...>::SharedStorage
    (PROBLEM_VISITOR): `struct SharedStorage {};`, one byte as a member."""
    return empty(
        "problem_visitor",
        f"{PROBLEM_VISITOR}: GroupedProblemVisitor<..., kDeviceOnly, ...>::SharedStorage {{}}",
    )


def kernel_shared_storage(k: universal.Kernel) -> Block:
    union = gemm_2x.kernel_union(
        "kernel",
        universal.mma_shared_storage(k),
        universal.epilogue_shared_storage(k),
        f"{KERNEL_SHELL}: GemmGrouped::SharedStorage::kernel (union)",
    )
    return struct(
        "SharedStorage",
        [union.at("kernel"), problem_visitor_storage()],
        f"{KERNEL_SHELL}: GemmGrouped::SharedStorage {{ union kernel; problem_visitor; }}",
    )
