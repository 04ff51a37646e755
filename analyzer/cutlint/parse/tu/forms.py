"""A kernel the TU front end found, as the source form families claim: the `using` chain a
scanner reads off a file (`GemmUniversal<ProblemShape, Mainloop, Epilogue, TileScheduler>` over
`CollectiveBuilder<...>::CollectiveOp` aliases, cutlint.parse.aliases), written from what clang
resolved (`TuKernel.built`) instead of what the file spells.

So a family claims a hand-written kernel reached through vLLM's dispatch exactly as it claims a
namespace-scope chain: one seam, no family reads TU records. The spellings are the scanner's:
clang's canonical `cute::tuple<cute::C<128>, ...>` is written `cute::Shape<cute::_128, ...>`, the
builders' trailing `Enable = void` is dropped, and a blockwise mainloop's scale layouts are
written as the `decltype(ScaleConfig::deduce_layoutSF?())` aliases of an
`Sm120BlockwiseScaleConfig<M, N, K>` (its granularity is what clang measured, the CollectiveMma's
`ScaleGranularity{M,N,K}`). A sub-byte integer is written by its alias (`cutlass::int4b_t` for
clang's `cutlass::integer_subbyte<4>`), and a mixed-input A given as a cute layout instead of a
tag (vLLM's W4A8 GEMMs pass `tile_to_shape(LayoutAtomQuant{}, Layout<Shape<int, int, int>,
StrideB>{})`, a reordered layout) as cutlass_library writes its `_shfl` kernels:
`decltype(cute::tile_to_shape(LayoutAtom{}, cute::Layout<cute::Shape<int,int,int>, StrideA>{}))`
with `StrideA` the `TagToStrideA_t` of the tag whose majorness the layout's stride has (the
builder reads only that: `is_major<1>` of its stride, cutlass/detail/layout.hpp). Syntax only:
which family a kernel is, is the registry's business.
"""

from __future__ import annotations

import re

from cutlint.records import FormKind, Instantiation, SourceSpan, TypeAlias
from cutlint.tu_records import TuKernel

KERNEL = "cutlass::gemm::kernel::GemmUniversal"
VISITOR_KERNEL = "cutlass::gemm::kernel::GemmWithEpilogueVisitor"
"""A 2.x kernel with an epilogue visitor (SGLang's, TensorRT-LLM's and vLLM's
`cutlass_extensions/gemm/gemm_with_epilogue_visitor.h`), written from its parts."""
MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder"
SCALE_CONFIGS = {
    "cutlass::arch::Sm120": "cutlass::detail::Sm120BlockwiseScaleConfig",
    "cutlass::arch::Sm121": "cutlass::detail::Sm120BlockwiseScaleConfig",
    "cutlass::arch::Sm90": "cutlass::detail::Sm90BlockwiseScaleConfig",
}
"""The scale configs whose `deduce_layoutSF?()` a blockwise builder of each arch takes
(cutlass/detail/blockwise_scale_layout.hpp). The granularity is what clang measured; the scale
majors are not carried (the families' sizes do not depend on them). Other arches' scale layouts
are left as clang spelled them: no family reads them off a TU yet."""

_C = re.compile(r"cute::C<(-?\d+)>")
_TUPLE = re.compile(r"cute::tuple<")
_LAYOUT_AND_SF = re.compile(
    r"cute::tuple<\s*(cutlass::layout::\w+)\s*(\*?)\s*,\s*cute::Layout<.*>\s*(\*?)\s*>$"
)
"""A blockwise operand's (layout tag, scale layout) pair; pointers for a grouped kernel."""


_SUBBYTE = re.compile(r"cutlass::integer_subbyte<([24])(?:,\s*(true|false))?>")
"""cutlass/integer_subbyte.h: int4b_t = integer_subbyte<4, true>, uint4b_t = <4, false>, and
the 2-bit pair; clang leaves out the default `Signed = true`."""


def _subbyte(text: str) -> str:
    return _SUBBYTE.sub(lambda m: f"cutlass::{'u' if m[2] == 'false' else ''}int{m[1]}b_t", text)


def _front(text: str) -> str:
    """cute's `front`: the first leaf of a nested tuple."""
    while text.startswith("cute::tuple<"):
        _, args = _split(text)
        if not args:
            break
        text = args[0]
    return text


def _reordered(arg: str, chain: list[TypeAlias], line: int) -> str:
    """A mixed-input A given as a cute layout (`cute::Layout<Shape, Stride>`, a pointer to one
    for a grouped kernel) as the reordered layout of the tag with its majorness: K-major (the
    front of mode 1's stride is 1) is RowMajor, else ColumnMajor."""
    pointer = arg.endswith("*")
    name, args = _split(arg.rstrip("* "))
    if name != "cute::Layout" or len(args) != 2:
        return arg
    _, modes = _split(args[1])
    if len(modes) < 2:
        return arg
    tag = "RowMajor" if _front(modes[1]) == "cute::C<1>" else "ColumnMajor"
    chain.append(
        TypeAlias(
            name="StrideA_Reordered",
            target="cutlass::detail::TagToStrideA_t",
            args=(f"cutlass::layout::{tag}",),
            member=None,
            line=line,
        )
    )
    chain.append(
        TypeAlias(
            name="LayoutA_Reordered",
            target="decltype(cute::tile_to_shape(LayoutAtom{}, cute::Layout<cute::Shape<int,int,"
            "int>, StrideA_Reordered>{}))",
            args=None,
            member=None,
            line=line,
        )
    )
    return "LayoutA_Reordered*" if pointer else "LayoutA_Reordered"


def _split(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME<A, B<C, D>, E>` -> (`NAME`, (`A`, `B<C, D>`, `E`)), top-level commas only."""
    text = " ".join(text.split())
    open_at = text.find("<")
    if open_at < 0 or not text.endswith(">"):
        return text, ()
    name, inner = text[:open_at].strip(), text[open_at + 1 : -1]
    args: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(inner):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
    args.append(inner[start:].strip())
    return name, tuple(a for a in args if a)


_ELEMENT_SPELLINGS = {"signed char": "int8_t", "unsigned char": "uint8_t", "int": "int32_t"}
"""clang's canonical spelling of a fixed-width element type -> the `<cstdint>` name a chain
writes (and the families read): `int8_t` is `signed char`, `int32_t` is `int` on the host."""
_MAINLOOP_ELEMENTS = (2, 5, 8)
"""ElementA, ElementB, ElementAccumulator of the mainloop builder."""
_EPILOGUE_ELEMENTS = (5, 6, 7, 10)
"""ElementAccumulator, ElementCompute, ElementC, ElementD of the epilogue builder."""


def _elements(args: list[str], where: tuple[int, ...]) -> None:
    for i in where:
        if i < len(args):
            args[i] = _ELEMENT_SPELLINGS.get(args[i], args[i])


def shape(text: str) -> str:
    """clang's `cute::tuple<cute::C<128>, cute::C<64>, int>` as written in a chain:
    `cute::Shape<cute::_128, cute::_64, int>`."""
    return _TUPLE.sub("cute::Shape<", _C.sub(r"cute::_\1", text))


def _builder_args(
    spelling: str, count: int, defaulted: int = 0
) -> tuple[str, tuple[str, ...]] | None:
    """The builder's arguments; clang's spelling leaves out trailing arguments equal to their
    defaults (the `Enable = void`, and an epilogue's FusionOpOrCallbacks when it is the
    default LinearCombination), so `count - defaulted` to `count` of them are read."""
    name, args = _split(spelling)
    if len(args) == count + 1 and args[-1] == "void":
        args = args[:-1]  # the builders' `class Enable = void`
    return (name, args) if count - defaulted <= len(args) <= count else None


def _layout(arg: str, sf: str, config: str, chain: list[TypeAlias], line: int) -> str:
    """A blockwise operand's `cute::tuple<Layout, cute::Layout<...>>` as `cute::tuple<Layout,
    LayoutSF?>`, with the alias LayoutSF? names (`decltype(config::deduce_layoutSF?())`) added
    to the chain."""
    m = _LAYOUT_AND_SF.match(arg)
    if m is None:
        return arg
    chain.append(
        TypeAlias(
            name=sf,
            target=f"decltype({config}::deduce_layoutSF{sf[-1]}())",
            args=None,
            member=None,
            line=line,
        )
    )
    return f"cute::tuple<{m[1]}{m[2]}, {sf}{m[3]}>"


def instantiation(kernel: TuKernel) -> Instantiation | None:
    """The chain of a CollectiveBuilder-built kernel; None when clang's sugar did not name both
    builders (a kernel written without them, or one the search did not reach)."""
    b = kernel.built
    if b is not None and b.visitor_kernel is not None:
        return _visitor_instantiation(kernel, b.visitor_kernel)
    if b is None or b.mainloop_builder is None or b.epilogue_builder is None:
        return None
    ml = _builder_args(b.mainloop_builder, 13)
    ep = _builder_args(b.epilogue_builder, 15, defaulted=1)
    if ml is None or ep is None:
        return None
    site = kernel.chosen_by
    line = site.line
    chain: list[TypeAlias] = []
    ml_args = list(ml[1])
    config = SCALE_CONFIGS.get(ml_args[0])
    if b.scale_granularity is not None and config is not None:
        ml_args[3] = _layout(ml_args[3], "LayoutSFA", "ScaleConfig", chain, line)
        ml_args[6] = _layout(ml_args[6], "LayoutSFB", "ScaleConfig", chain, line)
        if chain:
            chain.append(
                TypeAlias(
                    name="ScaleConfig",
                    target=config,
                    args=tuple(str(g) for g in b.scale_granularity),
                    member=None,
                    line=line,
                )
            )
    for i in (2, 5):
        ml_args[i] = _subbyte(ml_args[i])
    if ml_args[2].startswith("cute::tuple<") or ml_args[2] != ml_args[5]:
        ml_args[3] = _reordered(ml_args[3], chain, line)
    for i in (9, 10):
        ml_args[i] = shape(ml_args[i])
    _elements(ml_args, _MAINLOOP_ELEMENTS)
    ep_args = list(ep[1])
    if len(ep_args) == 14:
        # clang's spelling left FusionOpOrCallbacks out because it is the default
        # (cutlass/epilogue/collective/collective_builder.hpp): written out, for the families
        # that read all 15 arguments.
        d, compute, c = ep_args[10], ep_args[6], ep_args[7]
        ep_args.append(
            f"cutlass::epilogue::fusion::LinearCombination<{d}, {compute}, {c}, {compute}>"
        )
    for i in (2, 3, 4):
        ep_args[i] = shape(ep_args[i])
    _elements(ep_args, _EPILOGUE_ELEMENTS)
    problem = shape(b.problem_shape or "?")
    scheduler = b.tile_scheduler or "void"
    args = (problem, "CollectiveMainloop", "CollectiveEpilogue", scheduler)
    head = TypeAlias(name="GemmKernel", target=KERNEL, args=args, member=None, line=line)
    mainloop = TypeAlias(
        name="CollectiveMainloop",
        target=MAINLOOP_BUILDER,
        args=tuple(ml_args),
        member="CollectiveOp",
        line=line,
    )
    epilogue = TypeAlias(
        name="CollectiveEpilogue",
        target=EPILOGUE_BUILDER,
        args=tuple(ep_args),
        member="CollectiveOp",
        line=line,
    )
    return Instantiation(
        span=SourceSpan(path=site.path, line=line, column=1, end_line=line),
        form=FormKind.TYPE_ALIAS,
        name=KERNEL,
        args=args,
        chain=(head, epilogue, mainloop, *chain),
    )


def _visitor_instantiation(kernel: TuKernel, args: tuple[str, ...]) -> Instantiation:
    """A CUTLASS 2.x `GemmWithEpilogueVisitor`, written as one alias of its parts
    (TuBuilt.visitor_kernel)."""
    line = kernel.chosen_by.line
    head = TypeAlias(name="GemmKernel", target=VISITOR_KERNEL, args=args, member=None, line=line)
    return Instantiation(
        span=SourceSpan(path=kernel.chosen_by.path, line=line, column=1, end_line=line),
        form=FormKind.TYPE_ALIAS,
        name=VISITOR_KERNEL,
        args=args,
        chain=(head,),
    )


__all__ = ["VISITOR_KERNEL", "instantiation", "shape"]
