"""Where a few given bytes are in a file, found by `bytes.find`.

A character-class pattern (`re.compile(rb"[{}]")`) steps through every byte of the text in the
regex engine, about 8 ns a byte: 33 us for a 4 KB cutlass_library kernel file, for its ten
braces. `bytes.find` skips to the next occurrence in C, so a scan for bytes that are rare in the
file costs in proportion to how many there are, not to the file's length. The scanners use this
where they look for a few kinds of bytes over the whole file (braces, brackets, `#`).
"""

from __future__ import annotations


def offsets(text: bytes, chars: bytes, start: int = 0, end: int | None = None) -> list[int]:
    """The offsets in `text[start:end]` of every byte that is one of `chars`, ascending."""
    stop = len(text) if end is None else end
    out: list[int] = []
    for c in chars:
        byte = bytes((c,))
        at = text.find(byte, start, stop)
        while at >= 0:
            out.append(at)
            at = text.find(byte, at + 1, stop)
    if len(chars) > 1:
        out.sort()
    return out
