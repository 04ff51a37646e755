"""C++ record layout, as the Itanium C++ ABI (gcc, clang, nvcc's host pass) lays out the plain
structs and unions CUTLASS uses for shared storage.

The rules are the ones that matter for `SharedStorage`: a member starts at the next multiple of
its alignment; a struct's alignment is the largest of its members', bases' and its own `alignas`;
its size is rounded up to that alignment; an empty struct has size 1; an empty base takes no
space (cute's `aligned_struct<N, Child>` is such a base: it only contributes its alignment).
A union is as large as its largest member, rounded up to its alignment.

Each block keeps the regions it was built from, so that every byte of the final size can be
traced to a member, to padding, or to the final round-up; and each leaf can name the quantities
its size is derived from (`derived_from`: "builder.stages", "builder.term.A", "epilogue.tile",
"input.tile", ...), which `cutlint explain` draws as the derivation graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

TAIL_PADDING_FROM = ("layout.align",)
"""What a round-up to alignof is derived from: the alignment of the type laid out."""


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


# cute/container/alignment.hpp: aligned_struct<N, Child> is specialized CUTE_ALIGNAS(N) for N = 1,
# 2, 4, ..., 256; the primary template (any other N, e.g. a 512 or 1024 swizzle alignment) is a
# plain empty struct
ALIGNED_STRUCT_MAX = 256


def aligned_struct_alignment(n: int) -> int:
    """The alignment `cute::aligned_struct<n>` gives a struct that derives from it."""
    return n if n <= ALIGNED_STRUCT_MAX and n & (n - 1) == 0 else 1


@dataclass(frozen=True)
class Piece:
    """A region inside a block, relative to the block's start."""

    name: str
    offset: int
    size: int
    align: int
    source: str
    derived_from: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """A laid-out type: its size, its alignment, and what it is made of."""

    name: str
    size: int
    align: int
    source: str
    pieces: tuple[Piece, ...] = field(default=())
    derived_from: tuple[str, ...] = ()

    def at(self, name: str, align: int | None = None) -> Block:
        """This block as a member called `name`, optionally with an `alignas` of its own."""
        return Block(
            name,
            self.size,
            max(self.align, align or 1),
            self.source,
            self.pieces,
            self.derived_from,
        )

    def flat(self, prefix: str = "", base: int = 0) -> list[Piece]:
        """Leaf regions with absolute offsets and dotted names."""
        path = f"{prefix}.{self.name}" if prefix else self.name
        if not self.pieces:
            return [Piece(path, base, self.size, self.align, self.source, self.derived_from)]
        out: list[Piece] = []
        for p in self.pieces:
            out.append(
                Piece(
                    f"{path}.{p.name}",
                    base + p.offset,
                    p.size,
                    p.align,
                    p.source,
                    p.derived_from,
                )
            )
        return out


def array(name: str, size: int, align: int, source: str, derived_from: Sequence[str] = ()) -> Block:
    """A leaf: an array or scalar of `size` bytes with natural (or `alignas`) alignment, whose
    size is derived from the quantities `derived_from` names."""
    return Block(name, size, align, source, derived_from=tuple(derived_from))


def empty(name: str, source: str, derived_from: Sequence[str] = ()) -> Block:
    """An empty struct used as a member: C++ gives it size 1 so that it has an address."""
    return Block(name, 1, 1, source, derived_from=tuple(derived_from))


def struct(
    name: str,
    members: Sequence[Block],
    source: str,
    base_align: int = 1,
) -> Block:
    """Lay out `members` in order. `base_align` is the alignment of empty bases or `alignas`."""
    offset = 0
    align = base_align
    pieces: list[Piece] = []
    for m in members:
        start = round_up(offset, m.align)
        if start > offset:
            pieces.append(
                Piece("(padding)", offset, start - offset, 1, f"alignas({m.align}) of {m.name}")
            )
        pieces.extend(m.flat(base=start))
        offset = start + m.size
        align = max(align, m.align)
    if not members:
        return empty(name, source)
    size = round_up(offset, align)
    if size > offset:
        pieces.append(
            Piece(
                "(tail padding)",
                offset,
                size - offset,
                1,
                f"sizeof rounded up to alignof = {align}",
                TAIL_PADDING_FROM,
            )
        )
    return Block(name, size, align, source, tuple(pieces))


def member_offsets(members: Sequence[Block]) -> dict[str, tuple[int, int]]:
    """name -> (offset, size) of each member of a struct laid out from `members` (as `struct`
    places them): for comparing a layout with a compiler's offsetof/sizeof of its members."""
    out: dict[str, tuple[int, int]] = {}
    offset = 0
    for m in members:
        start = round_up(offset, m.align)
        out[m.name] = (start, m.size)
        offset = start + m.size
    return out


def union(name: str, members: Sequence[Block], source: str) -> Block:
    """All members at offset 0; size of the largest, rounded up to the union's alignment."""
    align = max(m.align for m in members)
    largest = max(m.size for m in members)
    size = round_up(largest, align)
    pieces = [p for m in members for p in m.flat()]
    if size > largest:
        pieces.append(
            Piece(
                "(tail padding)",
                largest,
                size - largest,
                1,
                f"sizeof rounded up to alignof = {align}",
                TAIL_PADDING_FROM,
            )
        )
    return Block(name, size, align, source, tuple(pieces))
