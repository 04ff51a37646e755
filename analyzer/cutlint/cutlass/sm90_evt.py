"""`FusionCallbacks::SharedStorage` of an epilogue visitor tree (EVT) given as the epilogue
builder's FusionOpOrCallbacks, read from its spelling: the `thread` member of the TMA epilogue's
TensorStorage.

`Sm90EVT<Node, Children...>` is `Sm90TreeVisitor<Node, Children...>`, an `Sm90VisitorImpl<
Children..., Node>` whose `SharedStorage` is `cute::tuple<Children::SharedStorage...,
Node::SharedStorage>` (SM90_VISITOR_TMA_WARPSPECIALIZED). A `cute::tuple` is laid out by CUTE_TUPLE's
empty-storage optimization (`ESO<IsFirstEmpty, IsRestEmpty, ...>`): `First first_;` only when the
first type is not empty, then `ESO_t<Rest...> rest_;` only when some later one is not; so empty
nodes take no bytes, and a tree of empty nodes is an empty struct (size 1 as a member). Only the
broadcast nodes that stage a row in shared memory have storage. vLLM's scaled-mm epilogues
(`csrc/cutlass_extensions/epilogue/scaled_mm_epilogues_c3x.hpp`) build their trees from CUTLASS's
nodes and the two of `csrc/cutlass_extensions/epilogue/broadcast_load_epilogue_c3x.hpp`.
"""

from __future__ import annotations

from collections.abc import Mapping

from cutlint.cutlass.headers import (
    CUTE_TUPLE,
    SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED,
    SM90_VISITOR_TMA_WARPSPECIALIZED,
)
from cutlint.cutlass.layout import Block, array, empty, struct

NS = "cutlass::epilogue::fusion::"
TREE = f"{NS}Sm90TreeVisitor"
EVT = f"{NS}Sm90EVT"
"""SM90_VISITOR_TMA_WARPSPECIALIZED: `template <class NodeOp, class... ChildOps> using Sm90EVT =
Sm90TreeVisitor<NodeOp, ChildOps...>`, the spelling a file writes (clang's names the tree)."""
# cute/container/array_aligned.hpp: array_aligned<T, N, size_t Alignment = 16>
ARRAY_ALIGNED_DEFAULT = 16
VLLM_BROADCAST = "vLLM csrc/cutlass_extensions/epilogue/broadcast_load_epilogue_c3x.hpp"
VLLM_BROADCAST_ARRAY = "vLLM csrc/cutlass_extensions/epilogue/broadcast_load_epilogue_array_c3x.hpp"
"""The ptr-array (grouped) forms of vLLM's broadcasts: a pointer per group, the same storage."""

EMPTY_NODES: Mapping[str, str] = {
    "Sm90Compute": f"{SM90_VISITOR_TMA_WARPSPECIALIZED}: Sm90Compute (no SharedStorage member: empty)",
    "Sm90AccFetch": f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90AccFetch (empty)",
    "Sm90SrcFetch": f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90SrcFetch (empty)",
    "Sm90ScalarBroadcast": f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90ScalarBroadcast::SharedStorage {{}}",
    "Sm90ColBroadcast": f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90ColBroadcast::SharedStorage {{}}",
    "Sm90ColOrScalarBroadcast": f"{VLLM_BROADCAST}: Sm90ColOrScalarBroadcast::SharedStorage {{}}",
    "Sm90ColOrScalarBroadcastArray": f"{VLLM_BROADCAST_ARRAY}: Sm90ColOrScalarBroadcastArray::SharedStorage {{}}",
}
"""Nodes whose SharedStorage is empty."""

ROW_NODES: Mapping[str, tuple[int, str]] = {
    "Sm90RowBroadcast": (
        2,
        f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90RowBroadcast<Stages, CtaTileShapeMNK, ElementInput, ...>::SharedStorage: array_aligned<ElementInput, size<1>(CtaTileShapeMNK{{}})> smem",
    ),
    "Sm90RowOrScalarBroadcast": (
        2,
        f"{VLLM_BROADCAST}: Sm90RowOrScalarBroadcast<Stages, CtaTileShapeMNK, Element, ...>::SharedStorage: array_aligned<Element, size<1>(CtaTileShapeMNK{{}})> smem",
    ),
    "Sm90RowOrScalarBroadcastArray": (
        2,
        f"{VLLM_BROADCAST_ARRAY}: Sm90RowOrScalarBroadcastArray<Stages, CtaTileShapeMNK, Element, ...>::SharedStorage: array_aligned<Element, size<1>(CtaTileShapeMNK{{}})> smem",
    ),
}
"""Row broadcasts: one tile row (CTA N) of the element at this template argument index."""


def _split(text: str) -> tuple[str, tuple[str, ...]]:
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


def _node(spelling: str, tile_n: int, element_bytes: Mapping[str, int]) -> Block | str | None:
    """A node's storage: a Block, None when empty, or why it is not read."""
    name, args = _split(spelling)
    short = name.removeprefix(NS)
    if name in (TREE, EVT):
        if not args:
            return f"`{spelling}`: a tree visitor without nodes"
        return tree(spelling, tile_n, element_bytes)
    if short in EMPTY_NODES and name.startswith(NS):
        return None
    if short in ROW_NODES and name.startswith(NS):
        index, source = ROW_NODES[short]
        if len(args) <= index or args[0] != "0":
            return f"`{short}` with Stages != 0 or without its element: not modeled"
        element = args[index].replace(" ", "")
        if element not in element_bytes:
            return f"`{short}` of `{args[index]}`: element size not known"
        return array("smem", tile_n * element_bytes[element], ARRAY_ALIGNED_DEFAULT, source)
    return f"epilogue visitor node `{short}`: not modeled"


def tree(spelling: str, tile_n: int, element_bytes: Mapping[str, int]) -> Block | str | None:
    """`Sm90TreeVisitor<Node, Children...>::SharedStorage` (None: empty), or why not read."""
    _, args = _split(spelling)
    parts: list[Block] = []
    for i, arg in enumerate((*args[1:], args[0])):  # children first, then the node
        b = _node(arg, tile_n, element_bytes)
        if isinstance(b, str):
            return b
        if b is not None:
            parts.append(b.at(f"get<{i}>"))
    if not parts:
        return None
    # ESO nests `first_` and `rest_`; with every part 16-aligned and a multiple of 16 the
    # nesting changes no offset, so the parts are laid out in order.
    return struct("tuple", parts, f"{CUTE_TUPLE}: cute::tuple (ESO: empty types take no bytes)")


def is_tree(spelling: str) -> bool:
    """An epilogue visitor tree as a builder's fusion argument: `Sm90TreeVisitor<...>` or `Sm90EVT<...>`."""
    return spelling.startswith((TREE + "<", EVT + "<"))


def storage(spelling: str, tile_n: int, element_bytes: Mapping[str, int]) -> Block | str:
    """The `thread` member for the callbacks `spelling` (an `Sm90TreeVisitor<...>`), or why not."""
    t = tree(spelling, tile_n, element_bytes)
    if isinstance(t, str):
        return t
    if t is None:
        return empty(
            "thread",
            f"{SM90_VISITOR_TMA_WARPSPECIALIZED}: Sm90TreeVisitor: every node's SharedStorage is empty",
        )
    for p in t.pieces:
        if p.size % ARRAY_ALIGNED_DEFAULT or p.align != ARRAY_ALIGNED_DEFAULT:
            return "an EVT storage whose ESO nesting would pad: not modeled"
    return Block("thread", t.size, t.align, t.source, t.pieces)


__all__ = ["EMPTY_NODES", "EVT", "ROW_NODES", "TREE", "is_tree", "storage", "tree"]
