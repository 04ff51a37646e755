"""Which CollectiveBuilders made a kernel: read off the type sugar clang keeps.

A kernel's canonical type names what the builders *returned* (`CollectiveMma<...>`,
`CollectiveEpilogue<...>`), not what they were given (the stage policy, the kernel and epilogue
schedules, the epilogue tile). The families model the builders from their arguments, so the
front end recovers them: clang keeps, on each alias as written, the sugar of how it was spelled
(`using CollectiveMainloop = typename CollectiveBuilder<Sm120, ..., StageCountAutoCarveout<...>,
KernelSchedule>::CollectiveOp;` in vLLM's `cutlass_3x_gemm_sm120`, with the class's template
parameters replaced). From a probe alias that names the kernel's wrapper as the dispatch path
wrote it, this module follows that sugar (alias -> the type it was written as -> its template
arguments) to every `CollectiveBuilder<...>::CollectiveOp` on the way, and takes the builder
whose `CollectiveOp` *is* the kernel's mainloop (or epilogue): a `conditional_t<swap_ab,
Builder1::CollectiveOp, Builder2::CollectiveOp>` names two, and only one was chosen.

Each builder is given as its canonical spelling (`cutlass::gemm::collective::CollectiveBuilder<
cutlass::arch::Sm120, ..., cutlass::gemm::collective::StageCountAutoCarveout<26112>, ...>`):
every argument resolved, values computed. Syntax only; what a builder means is a family's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAINLOOP_BUILDER = "cutlass::gemm::collective::CollectiveBuilder<"
EPILOGUE_BUILDER = "cutlass::epilogue::collective::CollectiveBuilder<"

_MAX_NODES = 400
"""Types visited per kernel at most: the sugar of a vLLM kernel is a few dozen; an epilogue's
fusion tree (EVT) adds its nodes' arguments."""


@dataclass(frozen=True)
class Builders:
    mainloop: str | None
    """The mainloop CollectiveBuilder that built the kernel's CollectiveMainloop (canonical)."""
    epilogue: str | None


def _builder_of(t: Any, cindex: Any) -> tuple[str, str] | None:
    """(builder spelling, its CollectiveOp's canonical spelling) when `t` is an alias of a
    `CollectiveBuilder<...>::CollectiveOp`."""
    if t.kind != cindex.TypeKind.TYPEDEF:
        return None
    decl = t.get_declaration()
    if decl is None or decl.spelling != "CollectiveOp":
        return None
    parent = decl.semantic_parent
    if parent is None or parent.spelling != "CollectiveBuilder":
        return None
    spelling = str(parent.type.get_canonical().spelling)
    if not spelling.startswith((MAINLOOP_BUILDER, EPILOGUE_BUILDER)):
        return None
    return spelling, str(t.get_canonical().spelling)


def _next(t: Any, cindex: Any) -> Iterable[Any]:
    """The types `t` was written with: what an alias names, a template's arguments."""
    if t.kind == cindex.TypeKind.TYPEDEF:
        decl = t.get_declaration()
        if decl is not None and decl.kind in (
            cindex.CursorKind.TYPE_ALIAS_DECL,
            cindex.CursorKind.TYPEDEF_DECL,
        ):
            yield decl.underlying_typedef_type
    elif t.kind == cindex.TypeKind.ELABORATED:
        yield t.get_named_type()
    n = t.get_num_template_arguments()
    for i in range(max(n, 0)):
        a = t.get_template_argument_type(i)
        if a.kind != cindex.TypeKind.INVALID:
            yield a


def find(
    starts: Iterable[Any], mainloop: str | None, epilogue: str | None, cindex: Any
) -> Builders:
    """The builders of the kernel whose canonical mainloop and epilogue are `mainloop` and
    `epilogue`, searched from the sugared types `starts` (breadth first)."""
    found_ml: str | None = None
    found_ep: str | None = None
    queue = [t for t in starts if t is not None and t.kind != cindex.TypeKind.INVALID]
    seen: set[str] = set()
    visited = 0
    while queue and visited < _MAX_NODES and (found_ml is None or found_ep is None):
        t = queue.pop(0)
        key = f"{t.kind}:{t.spelling}"
        if key in seen:
            continue
        seen.add(key)
        visited += 1
        b = _builder_of(t, cindex)
        if b is not None:
            spelling, op = b
            if spelling.startswith(MAINLOOP_BUILDER) and found_ml is None and op == mainloop:
                found_ml = spelling
            elif spelling.startswith(EPILOGUE_BUILDER) and found_ep is None and op == epilogue:
                found_ep = spelling
            continue  # a builder's own arguments are in its spelling
        queue.extend(_next(t, cindex))
    return Builders(found_ml, found_ep)


__all__ = ["EPILOGUE_BUILDER", "MAINLOOP_BUILDER", "Builders", "find"]
