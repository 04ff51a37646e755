"""Where a few given bytes are in a file, found by `bytes.find`.

A character-class pattern (`re.compile(rb"[{}]")`) steps through every byte of the text in the
regex engine, about 8 ns a byte: 33 us for a 4 KB cutlass_library kernel file, for its ten
braces. `bytes.find` skips to the next occurrence in C, so a scan for bytes that are rare in the
file costs in proportion to how many there are, not to the file's length. The scanners use this
where they look for a few kinds of bytes over the whole file (braces, brackets, `#`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator


def offsets(text: bytes, chars: bytes, start: int = 0, end: int | None = None) -> Iterator[int]:
    """The offsets in `text[start:end]` of every byte that is one of `chars`, ascending.

    Yielded one at a time, as `finditer` does: a file of ten million braces costs no list of
    them (the parser worker's memory is limited)."""
    stop = len(text) if end is None else end
    if len(chars) == 1:
        at = text.find(chars, start, stop)
        while at >= 0:
            yield at
            at = text.find(chars, at + 1, stop)
        return
    # The next occurrence of each byte, merged: one `find` per offset yielded.
    heads: list[tuple[int, bytes]] = []
    for c in chars:
        byte = bytes((c,))
        at = text.find(byte, start, stop)
        if at >= 0:
            heads.append((at, byte))
    heapq.heapify(heads)
    while heads:
        at, byte = heads[0]
        yield at
        following = text.find(byte, at + 1, stop)
        if following >= 0:
            heapq.heapreplace(heads, (following, byte))
        else:
            heapq.heappop(heads)
