"""Count what looks like an instantiation, independently of the scanner, and say what was not read
(CUT008).

The scanner (`calls`) reads instantiations from comment- and literal-masked code; whatever hides
text from it (a stray `"` that opens a string running to the end of the line, an unclosed `/*`,
a `#define` that wraps the call) makes an instantiation vanish from the report without a word.
So every file's instantiation-shaped text is counted a second way, from the raw bytes: the macro
name followed by `(`, and `template` followed by a name (an explicit instantiation). Each such
text must be an instantiation the scanner found (or reported as truncated), or lie in a comment
or literal that is properly closed. Anything else is reported, with where it is.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence

from cutlint.parse.calls import MOE_MACRO
from cutlint.parse.directives import Directive
from cutlint.parse.lexmask import MaskedText, Unterminated
from cutlint.parse.problems import UNREAD_INSTANTIATION, problem
from cutlint.records import InputProblem

_MACRO_WORD = MOE_MACRO.encode()
_MACRO_CALL = re.compile(rb"(?<![\w$])" + MOE_MACRO.encode() + rb"(?![\w$])\s*\(")
_TEMPLATE = re.compile(rb"(?<![\w$])template\s+(?=[A-Za-z_:])")
_DEFINE_OF = re.compile(rb"#\s*define\s+" + MOE_MACRO.encode() + rb"\b")
MAX_REPORTED = 20
"""Unread texts reported one by one; the rest are counted in one more problem."""


def _spans_hit(spans: Sequence[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def _open_ended(items: Sequence[Unterminated], offset: int) -> Unterminated | None:
    """The unterminated comment or literal around `offset` (they do not overlap: sorted)."""
    i = bisect.bisect_right([u.start for u in items], offset) - 1
    return items[i] if i >= 0 and offset < items[i].end else None


def _explicit(text: bytes, at: int) -> bool:
    """Not a dependent-name disambiguator (`::template`, `.template`, `->template`) nor
    `extern template` (a declaration that instantiates nothing)."""
    before = text[max(0, at - 64) : at].rstrip()
    return not (before.endswith((b"::", b".", b"->")) or re.search(rb"\bextern$", before))


_DEFINED_NAME = re.compile(rb"#\s*define\s+([A-Za-z_$][\w$]*)")


def _expanded(masked: MaskedText, body: bytes, start: int) -> bool:
    """Whether the macro the directive at `start` defines is used in the file's code (a
    directive other than `#define` counts as used)."""
    m = _DEFINED_NAME.match(masked.uncommented, start)
    if m is None:
        return True
    return re.search(rb"(?<![\w$])" + re.escape(m.group(1)) + rb"(?![\w$])", body) is not None


def shapes(masked: MaskedText) -> Iterable[int]:
    """Offsets of the instantiation-shaped texts of the file (comments included)."""
    text = masked.uncommented
    # each scan only where its word is in the file: a pattern that begins with a look-behind is
    # tried at every offset (a tenth of a millisecond a cutlass_library file, which has neither)
    if _MACRO_WORD in masked.original:
        for m in _MACRO_CALL.finditer(masked.original):
            yield m.start()
    if b"template" in masked.original:
        for m in _TEMPLATE.finditer(masked.original):
            if _explicit(text, m.start()):
                yield m.start()


def unread(
    path: str,
    masked: MaskedText,
    found_directives: Sequence[Directive],
    read: Iterable[int],
    line_of: Callable[[int], int],
    body: bytes,
) -> list[InputProblem]:
    """A CUT008 problem for each instantiation-shaped text that is neither read nor inside a
    closed comment or literal. `body`: the code with comments, literals and directives blanked."""
    seen = set(read)
    open_ended = list(masked.unterminated)
    directive_spans = [(d.start, d.end) for d in found_directives]
    out: list[tuple[int, str]] = []
    for at in sorted(shapes(masked)):
        if at in seen:
            continue
        left_open = _open_ended(open_ended, at)
        if left_open is not None:
            where = line_of(left_open.start)
            out.append((at, f"it is inside a {left_open.what} left open at line {where}"))
            continue
        if _spans_hit(masked.comment_spans, at) or _spans_hit(masked.literal_spans, at):
            continue  # commented out, or text in a string: not an instantiation
        if _spans_hit(directive_spans, at):
            i = bisect.bisect_right(directive_spans, (at, 1 << 62)) - 1
            start = directive_spans[i][0]
            if _DEFINE_OF.match(masked.uncommented, start):
                continue  # the macro's own definition
            if not _expanded(masked, body, start):
                continue  # a macro the file never uses instantiates nothing
            out.append(
                (at, f"it is in the `#define` at line {line_of(start)}, which the file expands: "
                 "cutlint does not expand macros")
            )  # fmt: skip
            continue
        out.append((at, "cutlint's scanner did not read it (a bug in cutlint: please report it)"))
    problems = [
        problem(
            UNREAD_INSTANTIATION,
            path,
            f"instantiation-shaped text at line {line_of(at)} could not be read: {why}",
            line_of(at),
        )
        for at, why in out[:MAX_REPORTED]
    ]
    if len(out) > MAX_REPORTED:
        rest = len(out) - MAX_REPORTED
        problems.append(
            problem(
                UNREAD_INSTANTIATION,
                path,
                f"{rest:,} more instantiation-shaped texts could not be read",
            )
        )
    return problems
