"""Calls of a producer's instantiation macro spelled one character off, the `INSTANTIATE_`
prefix included (`INSTANTIATF_TMA_...(`, `INSTANTIAT_...(`, `IN STANTIATE_...(`).

The search for macro calls (calls.py) finds names by their prefix, so a flipped byte in the
prefix hid the call: the file read as if it held nothing, while nvcc rejects it. Here a call is
looked for by the end of each producer macro's name instead (`macro_names.TAIL` characters: one
edit leaves either them or the prefix intact), with plain byte searches, and only a name one
edit from the whole macro name, at the start of a namespace-scope statement, is kept. Which
calls are misspellings and which are a user's own macros (a `#define` in sight) is said later
(producers/forms.py, CUT018); this only finds them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from cutlint.parse.bytefind import offsets
from cutlint.sources.macro_names import TAIL, TAILS, misspelled

_IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_SPACE = b" \t\r\n\f\v"
_STATEMENT_BEFORE = frozenset(b";{})")
"""What may precede a namespace-scope statement (after white space): the end of the previous
one, or a macro call written without its `;`, as generated files do."""
_BRACE = re.compile(rb"[{}]")
_OPENS_NAMESPACE = re.compile(rb"(?:\bnamespace\b[\w:\s]*|\bextern\s*)$")


def find(body: bytes, prefixed: Iterable[tuple[int, int]]) -> list[tuple[int, str, int]]:
    """(start, name as written, end of the name) of each near miss in `body` (the code with
    comments, literals and directives blanked), in file order. `prefixed`: (start, end) of
    each name the prefix search matched; one followed by `(` is its call, not a near miss."""
    found: dict[int, tuple[str, int]] = {}
    call_ends = set()
    for start, end in prefixed:
        if _call_follows(body, end):
            call_ends.add(end)
        else:  # a character that is no identifier's after the prefix: `INSTANTIATE_TMA-WARP_`
            after = _ident_end(body, end + 1)
            if _call_follows(body, after):
                name = _name(body, start, after)
                if name is not None:
                    found[start] = (name, after)
    for _, end in _tails_called(body):
        # Most hits end a call the prefix search found (the name right, or wrong after its
        # prefix): nothing more to look at.
        if end in call_ends:
            continue
        names = TAILS[body[end - TAIL : end]]
        for length in {len(n) + d for n in names for d in (-1, 0, 1)}:
            start = end - length
            if start >= 0 and start not in found:
                name = _name(body, start, end)
                if name is not None:
                    found[start] = (name, end)
    if not found:
        return []
    scopes = _Scopes(body)
    return [
        (start, name, end)
        for start, (name, end) in sorted(found.items())
        if _statement_start(body, start) and scopes.namespace_scope(start)
    ]


_TAIL_ORDER = {tail: i for i, tail in enumerate(TAILS)}


def _tails_called(body: bytes) -> list[tuple[int, int]]:
    """(the tail's place in TAILS, the end of the name) of each name that ends in a producer
    macro's tail and is followed by `(`, in the order a search for each tail in turn finds them.

    Read back from each `(` (a few a file, bytes.find): eleven searches of the whole file for an
    8-byte tail cost more than the rest of the instantiation scan (44 us of a 4 KB file)."""
    hits: list[tuple[int, int]] = []
    for paren in offsets(body, b"("):
        end = paren
        while end > 0 and body[end - 1] in _SPACE:
            end -= 1
        order = _TAIL_ORDER.get(body[end - TAIL : end]) if end >= TAIL else None
        if order is not None:
            hits.append((order, end))
    hits.sort()
    return hits


def _name(body: bytes, start: int, end: int) -> str | None:
    """The name `body[start:end]` spells, when it starts a token and is one edit from a
    producer macro."""
    if body[start] not in _IDENT or (start > 0 and body[start - 1] in _IDENT):
        return None
    name = body[start:end].decode("utf-8", "replace")
    return name if misspelled(name) is not None else None


def _ident_end(body: bytes, at: int) -> int:
    while at < len(body) and body[at] in _IDENT:
        at += 1
    return min(at, len(body))


def _call_follows(body: bytes, at: int) -> bool:
    while at < len(body) and body[at] in _SPACE:
        at += 1
    return at < len(body) and body[at] == ord("(")


def _statement_start(body: bytes, start: int) -> bool:
    at = start - 1
    while at >= 0 and body[at] in _SPACE:
        at -= 1
    return at < 0 or body[at] in _STATEMENT_BEFORE


class _Scopes:
    """Whether an offset is at namespace scope: every brace around it opens a namespace (or an
    `extern "C"` block), none a function, class or initializer. One pass over the braces,
    made only for a file that has a near miss."""

    def __init__(self, body: bytes) -> None:
        self.offsets: list[int] = []
        self.namespace: list[bool] = []
        stack: list[bool] = []
        for m in _BRACE.finditer(body):
            if body[m.start()] == ord("{"):
                before = body[max(0, m.start() - 200) : m.start()].rstrip()
                stack.append((not stack or stack[-1]) and bool(_OPENS_NAMESPACE.search(before)))
            elif stack:
                stack.pop()
            self.offsets.append(m.start())
            self.namespace.append(not stack or stack[-1])

    def namespace_scope(self, offset: int) -> bool:
        i = bisect.bisect_right(self.offsets, offset) - 1
        return i < 0 or self.namespace[i]
