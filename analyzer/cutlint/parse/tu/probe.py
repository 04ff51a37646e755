"""Ask clang for each candidate: is it a CUTLASS kernel, and what are its numbers.

The candidates are appended to the TU (as unsaved contents: the file on disk is not touched),
one line each, as aliases whose *size* is the number wanted, as in `verify/libclang_layout.py`:

    using cutlint_c3_smem = char[::cutlint_tu::smem<K>::value + 1];

`K` is the kernel a candidate names: itself when it has a `SharedStorage` and a mainloop (a
`GemmUniversal`), its `GemmKernel` when it is an adapter or a config wrapper such as vLLM's
`cutlass_3x_gemm` (`Gemm::GemmKernel` one level further). What is not a kernel maps to `void`
and every number to 0. The numbers are libclang's record layout of `K::SharedStorage`: measured,
not explained (no family model is involved).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PRELUDE = r"""
#include <type_traits>
#include <utility>
namespace cutlint_tu {
template <int N> struct rank : rank<N - 1> {};
template <> struct rank<0> {};
template <class T> auto pick(rank<4>) -> decltype((void)sizeof(typename T::SharedStorage),
    std::declval<typename T::CollectiveMainloop*>(), std::declval<T*>());
template <class T> auto pick(rank<3>) -> decltype((void)sizeof(typename T::SharedStorage),
    std::declval<typename T::Mma*>(), std::declval<T*>());
template <class T> auto pick(rank<2>) -> typename T::GemmKernel*;
template <class T> auto pick(rank<1>) -> typename T::Gemm::GemmKernel*;
template <class T> auto pick(rank<0>) -> void*;
// decltype of the comma expressions above is `T*&&` (declval's xvalue): strip the reference.
template <class T> struct kernel_of {
  using type = std::remove_pointer_t<std::remove_reference_t<decltype(pick<T>(rank<4>{}))>>;
};
template <class T> using kernel_t = typename kernel_of<T>::type;
#define CUTLINT_TU_TYPE(NAME, EXPR) \
  template <class K, class = void> struct NAME { using type = void; }; \
  template <class K> struct NAME<K, std::void_t<EXPR>> { using type = EXPR; };
#define CUTLINT_TU_VALUE(NAME, EXPR) \
  template <class K, class = void> struct NAME : std::integral_constant<long, 0> {}; \
  template <class K> struct NAME<K, std::void_t<decltype(EXPR)>> \
      : std::integral_constant<long, static_cast<long>(EXPR)> {};
CUTLINT_TU_VALUE(smem, sizeof(typename K::SharedStorage))
CUTLINT_TU_VALUE(stages, K::CollectiveMainloop::DispatchPolicy::Stages)
CUTLINT_TU_VALUE(threads, K::MaxThreadsPerBlock)
CUTLINT_TU_TYPE(tile, typename K::TileShape)
CUTLINT_TU_TYPE(cluster, typename K::CollectiveMainloop::DispatchPolicy::ClusterShape)
CUTLINT_TU_TYPE(policy, typename K::CollectiveMainloop::DispatchPolicy)
CUTLINT_TU_TYPE(element_a, typename K::CollectiveMainloop::ElementA)
CUTLINT_TU_TYPE(element_b, typename K::CollectiveMainloop::ElementB)
CUTLINT_TU_TYPE(element_d, typename K::CollectiveEpilogue::ElementD)
CUTLINT_TU_TYPE(mainloop, typename K::CollectiveMainloop)
CUTLINT_TU_TYPE(epilogue, typename K::CollectiveEpilogue)
CUTLINT_TU_TYPE(problem_shape, typename K::ProblemShape)
CUTLINT_TU_TYPE(scheduler_tag, typename K::TileSchedulerTag)
CUTLINT_TU_VALUE(scale_m, K::CollectiveMainloop::ScaleGranularityM)
CUTLINT_TU_VALUE(scale_n, K::CollectiveMainloop::ScaleGranularityN)
CUTLINT_TU_VALUE(scale_k, K::CollectiveMainloop::ScaleGranularityK)
// A CUTLASS 2.x kernel with an epilogue visitor (SGLang's GemmWithEpilogueVisitor): the parts
// DefaultGemm chose, read off the kernel's own members (gemm_with_epilogue_visitor.h).
CUTLINT_TU_VALUE(stages2x, K::kStages)
CUTLINT_TU_VALUE(align_a2x, K::kAlignmentA)
CUTLINT_TU_VALUE(align_b2x, K::kAlignmentB)
CUTLINT_TU_VALUE(align_c2x, K::kAlignmentC)
CUTLINT_TU_TYPE(tb2x, typename K::ThreadblockShape)
CUTLINT_TU_TYPE(warp2x, typename K::WarpShape)
CUTLINT_TU_TYPE(inst2x, typename K::InstructionShape)
CUTLINT_TU_TYPE(arch2x, typename K::ArchTag)
CUTLINT_TU_TYPE(opclass2x, typename K::OperatorClass)
CUTLINT_TU_TYPE(ea2x, typename K::ElementA)
CUTLINT_TU_TYPE(la2x, typename K::LayoutA)
CUTLINT_TU_TYPE(eb2x, typename K::ElementB)
CUTLINT_TU_TYPE(lb2x, typename K::LayoutB)
CUTLINT_TU_TYPE(ec2x, typename K::ElementC)
CUTLINT_TU_TYPE(lc2x, typename K::LayoutC)
CUTLINT_TU_TYPE(acc2x, typename K::Mma::Policy::Operator::ElementC)
CUTLINT_TU_TYPE(mathop2x, typename K::Mma::Policy::Operator::MathOperator)
CUTLINT_TU_TYPE(visitor2x, typename K::EpilogueVisitor)
CUTLINT_TU_TYPE(swizzle2x, typename K::ThreadblockSwizzle)
// The wrapper's own members, their sugar kept (builders.py follows it to the builders).
CUTLINT_TU_TYPE(sugar_gemm_kernel, typename K::GemmKernel)
CUTLINT_TU_TYPE(sugar_gemm, typename K::Gemm::GemmKernel)
}  // namespace cutlint_tu
"""

VALUES = (
    "smem",
    "stages",
    "threads",
    "scale_m",
    "scale_n",
    "scale_k",
    "stages2x",
    "align_a2x",
    "align_b2x",
    "align_c2x",
)
VISITOR_2X = (
    "tb2x",
    "warp2x",
    "inst2x",
    "arch2x",
    "opclass2x",
    "ea2x",
    "la2x",
    "eb2x",
    "lb2x",
    "ec2x",
    "lc2x",
    "acc2x",
    "mathop2x",
    "visitor2x",
    "swizzle2x",
)
"""A 2.x visitor kernel's parts (TuBuilt.cutlass2x)."""
TYPES = (
    "tile",
    "cluster",
    "policy",
    "element_a",
    "element_b",
    "element_d",
    "mainloop",
    "epilogue",
    "problem_shape",
    "scheduler_tag",
    *VISITOR_2X,
)
SUGAR = ("mainloop", "epilogue", "sugar_gemm_kernel", "sugar_gemm")
"""Traits applied to the candidate as written (not to its kernel): the starting points of the
builders' search, `{k}_w` (the candidate itself) first."""


@dataclass(frozen=True)
class ProbeLine:
    line: int
    """1-based line of the candidate's aliases in the probed text."""
    index: int


def probe_text(original: str, type_exprs: Sequence[str]) -> tuple[str, list[ProbeLine]]:
    """The TU's text with the prelude and one line of aliases per candidate appended."""
    text = original if original.endswith("\n") else original + "\n"
    text += PRELUDE
    lines: list[ProbeLine] = []
    line = text.count("\n") + 1
    for i, expr in enumerate(type_exprs):
        k = f"cutlint_k{i}"
        parts = [f"using {k} = ::cutlint_tu::kernel_t<{expr}>;"]
        parts += [f"using {k}_{v} = char[::cutlint_tu::{v}<{k}>::value + 1];" for v in VALUES]
        parts += [f"using {k}_{t} = typename ::cutlint_tu::{t}<{k}>::type;" for t in TYPES]
        parts.append(f"using {k}_w = {expr};")
        parts += [f"using {k}_s{t} = typename ::cutlint_tu::{t}<{k}_w>::type;" for t in SUGAR]
        text += " ".join(parts) + "\n"
        lines.append(ProbeLine(line, i))
        line += 1
    return text, lines


__all__ = ["PRELUDE", "SUGAR", "TYPES", "VALUES", "VISITOR_2X", "ProbeLine", "probe_text"]
