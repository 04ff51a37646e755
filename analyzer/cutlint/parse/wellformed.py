r"""Would the compiler accept this file at all? CUT009, one problem per reason it would not.

The instantiation scanner (`calls`) reads what it can and keeps going where the compiler stops, so
a file cut short after a complete instantiation, or one with a stray `#endif`, would otherwise be
judged as if it compiled. What is checked, each at its first occurrence:

- the `#if` groups ([cpp.cond]): an `#elif`, `#else` or `#endif` without its `#if`, an `#if`
  without its `#endif`, an `#else` after `#else` (`directives.conditional_errors`);
- an `#error` in compiled code (outside every branch libclang skipped);
- a block comment left open (anywhere), a string or character literal left open in compiled
  code outside a directive (clang lexes an unterminated one as an invalid token there);
- a character of compiled code that belongs to no token: a control character, `@`, a backtick,
  a stray `#` or `\` (when one is found the brackets are not checked: they mean little then);
- the brackets of compiled code outside directives: a `}`, `)` or `]` that closes nothing or the
  wrong opener, or a `{`, `(` or `[` never closed (a file that ends inside its namespace). Not
  checked when a `#define` body opens or closes brackets of its own, since expanding it might
  balance them, nor when an instantiation is already reported cut short (CUT003);
- the errors libclang's preprocessor reports that do not depend on the headers it is not given
  (an unknown directive in compiled code, a `#define` without a name, ...).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from cutlint.parse.bytefind import offsets
from cutlint.parse.directives import Branch, Directive, branches, conditional_errors
from cutlint.parse.lexmask import MaskedText
from cutlint.parse.problems import ILL_FORMED_SOURCE, problem
from cutlint.records import InputProblem

if TYPE_CHECKING:
    from cutlint.parse.libclang import Preprocessed

# What no C++ token is made of, outside literals, comments and directives: control characters,
# `@`, a backtick, a `#` or `\` not in a directive or a line splice. (`$` is an identifier
# character for every CUDA host compiler; a non-ASCII letter may be one, C++23 XID.)
_SPLICE = re.compile(rb"\\[ \t]*\r?\n")
_STRAY = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f@`#\\]")
_NOT_STRAY = bytes(b for b in range(256) if not _STRAY.match(bytes((b,))))
_CLOSER = {ord(")"): ord("("), ord("]"): ord("["), ord("}"): ord("{")}


def _inside(ranges: Sequence[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(ranges, (offset, 1 << 62)) - 1
    return i >= 0 and ranges[i][0] <= offset < ranges[i][1]


def candidates(masked: MaskedText, found_directives: Sequence[Directive]) -> bool:
    """Whether anything here might make the file ill-formed in compiled code only: then which
    branches are compiled must be known (libclang is asked even without an instantiation)."""
    return bool(masked.unterminated) or any(d.kind == "error" for d in found_directives)


def problems(
    path: str,
    masked: MaskedText,
    found_directives: Sequence[Directive],
    body: bytes,
    preprocessed: Preprocessed,
    line_of: Callable[[int], int],
    truncated: bool = False,
    has_instantiations: bool = True,
) -> list[InputProblem]:
    """`preprocessed`: the branches libclang's preprocessor skipped and the errors it reported.
    `truncated`: an instantiation was reported cut short (CUT003), which already says why its
    brackets do not pair up; they are not checked then. `has_instantiations`: the brackets and
    characters of the code are checked only in a file that has instantiations to judge, where
    libclang has said which branches are compiled (code in a skipped `#if` need not be C++)."""
    skipped, clang_errors = preprocessed.skipped, preprocessed.errors
    found: list[tuple[int, str]] = []  # (offset, message)
    guards: dict[int, str] = {}  # offset of an `#error` -> the conditions it stands under
    for d, why in conditional_errors(found_directives):
        found.append((d.start, why))
    groups: list[Branch] | None = None
    for d in found_directives:
        if d.kind == "error" and not _inside(skipped, d.start):
            text = masked.uncommented[d.start : d.end].decode("utf-8", "replace").strip()
            found.append((d.start, f"`{' '.join(text.split())[:200]}` is in compiled code"))
            if groups is None:
                groups = branches(found_directives, len(body))
            guard = enclosing(groups, d.start)
            if guard:
                guards[d.start] = guard
    directive_spans = [(d.start, d.end) for d in found_directives]
    for u in masked.unterminated:
        if u.what == "block comment":
            found.append(
                (u.start, "a block comment `/*` is not closed: it runs to the end of the file")
            )
        elif not _inside(skipped, u.start) and not _inside(directive_spans, u.start):
            found.append((u.start, f"a {u.what} is not closed on its line"))
    stray = _stray(body, skipped) if has_instantiations else None
    if stray is not None:
        found.append(stray)
    if (
        stray is None
        and has_instantiations
        and not truncated
        and not masked.unterminated
        and not _defines_brackets(masked, found_directives)
    ):
        unbalanced = _brackets(body, skipped, line_of)
        if unbalanced is not None:
            found.append(unbalanced)
    lines_reported = {line_of(offset) for offset, _ in found}
    conditions = {
        line_of(d.start): d for d in found_directives if d.kind in ("if", "elif") and d.condition
    }
    for offset, message in clang_errors:
        line = line_of(offset)
        if line in lines_reported:
            continue
        if _header_independent(message):
            found.append((offset, f"the preprocessor reports: {message}"))
            lines_reported.add(line)
        elif line in conditions and (bad := _not_in_a_condition(conditions[line].condition)):
            # The error could come from a macro a header defines, but this character cannot:
            # no macro expands from it, so the condition is ill-formed whatever the headers say.
            found.append(
                (offset, f"the #if condition holds `{bad}`, which no preprocessor expression "
                 f"takes: {message}")
            )  # fmt: skip
            lines_reported.add(line)
    found.sort()
    return [
        problem(
            ILL_FORMED_SOURCE,
            path,
            f"nvcc would reject this file: {why} (line {line_of(at)})",
            line_of(at),
            guard=guards.get(at),
        )
        for at, why in found
    ]


def enclosing(groups: Sequence[Branch], offset: int) -> str:
    """The conditions of every `#if` branch around `offset`, outermost first, joined by `&&`:
    what must hold for the line to be compiled (empty: it always is)."""
    conds = [b.text for b in groups if b.start <= offset < b.end and b.text]
    if len(conds) == 1:
        return conds[0]
    return " && ".join(f"({c})" for c in conds)


# The errors of libclang's preprocessor that hold whatever the headers define. libclang sees the
# file without its #include'd headers (parse/extract.py), so an `#if` on a macro a header defines
# ("function-like macro 'X' is not defined") is its blindness, not the file's fault: only these
# are reported. (`#error` and the `#if` structure are checked above, without libclang.)
_HEADER_INDEPENDENT = re.compile(
    r"invalid preprocessing directive|macro name must be an identifier|macro name (?:is )?missing"
    r"|is not followed by a macro parameter|cannot appear at (?:either|the start|the end)"
    r"|with no expression|in macro parameter list|missing terminating"
)


_CONDITION_STRAY = re.compile(r"[\"{}\[\];@`\\]|(?<![0-9A-Fa-f])'|'(?![0-9A-Fa-f])")


def _not_in_a_condition(condition: str) -> str | None:
    """A character no `#if` expression holds ([cpp.cond]: integral constant expressions of
    identifiers, numbers and operators; a `'` only as a digit separator), or an unmatched `)`."""
    m = _CONDITION_STRAY.search(condition)
    if m is not None:
        return m.group()
    depth = 0
    for c in condition:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return ")"
    return None


def _header_independent(message: str) -> bool:
    return bool(_HEADER_INDEPENDENT.search(message))


def _stray(body: bytes, skipped: Sequence[tuple[int, int]]) -> tuple[int, str] | None:
    """The first character of compiled code that is part of no C++ token."""
    # Most files have none of these bytes: deleting every other byte (C code) says so without
    # stepping the pattern's character class through the file.
    if body.translate(None, _NOT_STRAY):
        return _first_stray(body, skipped)
    return _non_ascii(body, skipped)


def _first_stray(body: bytes, skipped: Sequence[tuple[int, int]]) -> tuple[int, str] | None:
    for m in _STRAY.finditer(body):
        at = m.start()
        c = body[at]
        if c == 0x5C and _SPLICE.match(body, at):
            continue  # a line splice
        if skipped and _inside(skipped, at):
            continue
        shown = chr(c) if 0x20 < c < 0x7F else f"\\x{c:02x}"
        return at, f"`{shown}` is not part of any C++ token"
    return _non_ascii(body, skipped)


_NON_ASCII = re.compile(rb"[\x80-\xff]+")
_IDENTIFIER_BYTE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")


def _non_ascii(body: bytes, skipped: Sequence[tuple[int, int]]) -> tuple[int, str] | None:
    """The first non-ASCII character of compiled code that C++ takes for no token.

    Outside literals and comments a non-ASCII character can only be part of an identifier
    ([lex.name]: XID_Start first, XID_Continue after, C++23 / P1949), which Python's
    `str.isidentifier` implements. So a no-break or zero-width space is no token (it does not
    separate tokens as a space does), and a non-ASCII digit (`६४`, `６４`, `𝟏𝟐𝟖`, `⁸`) can neither
    start an identifier nor be a digit of a number: none of them is read as the number it looks
    like (item 12 of issue 25)."""
    if body.isascii():
        return None
    for m in _NON_ASCII.finditer(body):
        at = m.start()
        if skipped and _inside(skipped, at):
            continue
        text = m.group().decode("utf-8", "replace")
        before = body[at - 1] if at else 0x20
        starts = before not in _IDENTIFIER_BYTE and not (0x30 <= before <= 0x39)
        offset = at
        for i, c in enumerate(text):
            code = f"U+{ord(c):04X}"
            if not ("a" + c).isidentifier():
                return offset, f"the character {code} is not part of any C++ token"
            if i == 0 and 0x30 <= before <= 0x39:
                return offset, f"the character {code} after a digit makes no C++ number"
            if i == 0 and starts and not c.isidentifier():
                return offset, f"the character {code} cannot start a C++ identifier or number"
            offset += len(c.encode("utf-8", "replace"))
    return None


def _defines_brackets(masked: MaskedText, found_directives: Sequence[Directive]) -> bool:
    """Whether some `#define` body has brackets that do not balance on their own."""
    for d in found_directives:
        if d.kind != "define":
            continue
        text = masked.code[d.start : d.end]
        for opener, closer in (b"(", b")"), (b"[", b"]"), (b"{", b"}"):
            if text.count(opener) != text.count(closer):
                return True
    return False


def _brackets(
    body: bytes, skipped: Sequence[tuple[int, int]], line_of: Callable[[int], int]
) -> tuple[int, str] | None:
    """The first bracket of compiled code that does not pair up, and why."""
    if not skipped and _balanced(body):
        return None  # the common case, decided without walking the brackets one by one
    stack: list[int] = []
    for at in offsets(body, b"(){}[]"):
        if skipped and _inside(skipped, at):
            continue
        c = body[at]
        if c in b"({[":
            stack.append(at)
            continue
        if not stack:
            return at, f"`{chr(c)}` closes nothing"
        opener = stack.pop()
        if body[opener] != _CLOSER[c]:
            return at, f"`{chr(c)}` closes the `{chr(body[opener])}` of line {line_of(opener)}"
    if stack:
        at = stack[-1]
        return at, (
            f"the file ends inside the `{chr(body[at])}` opened here (a namespace, block or call "
            "never closed: the file may have been cut short)"
        )
    return None


_NOT_BRACKET = bytes(b for b in range(256) if b not in b"(){}[]")


def _balanced(body: bytes) -> bool:
    """Whether every bracket of `body` pairs up: its brackets alone (translate), innermost pairs
    removed a nesting level a pass (replace), leave nothing. C code all of it; a file nested
    deeper than the passes allowed is left to the walk in `_brackets`."""
    rest = body.translate(None, _NOT_BRACKET)
    for _ in range(32):
        if not rest:
            return True
        shorter = rest.replace(b"()", b"").replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(rest):
            return False
        rest = shorter
    return not rest
