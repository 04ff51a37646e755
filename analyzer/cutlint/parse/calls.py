"""Find instantiations in the masked text and split their arguments.

Two forms (docs/architecture.md, "Parse"):

- `INSTANTIATE_<NAME>(...)`, a call of any function-like macro whose name starts with
  `INSTANTIATE_` (`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`, FlashInfer's JIT-rendered
  `INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER`, `INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC`, ...)
  or `INSTANCE_` (FlashInfer's SM100 `INSTANCE_FP8_GEMM_TEMPLATE_SM100`,
  `INSTANCE_BF16_GEMM_TEMPLATE_SM100`, whose expansion is an explicit instantiation):
  arguments split the way the preprocessor splits macro arguments, on commas outside parentheses
  only (C++ [cpp.replace]/11: `<>`, `{}` and `[]` do not protect a comma), so the count is the one
  the compiler sees. The arguments stay as written; which macro means what is the families'.
- `template <decl-specifiers> NAME<targs>(params);`: an explicit instantiation of a function
  template, whatever it returns (`template void f<...>(...);`, `template cudaError_t g<...>(...);`);
  template arguments split on commas outside (), [], {} and <>.

A call that does not close before the next directive, the next instantiation or the end of the
file is reported as truncated and nothing after it is lost: every instantiation is scanned from
its own start, and a scan never runs past the next one.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cutlint.parse import near_miss, template_args
from cutlint.parse.lexmask import MaskedText
from cutlint.records import FormKind, TypeAlias

MOE_MACRO = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"
MACRO_PREFIX = "INSTANTIATE_"
MACRO_PREFIXES = ("INSTANTIATE_", "INSTANCE_")
"""The names of the instantiation macros read (see above)."""

# Plain literals, with the word boundaries checked by hand: a pattern that starts with `\b`
# defeats the regex engine's literal search and costs 30x more (0.08 s on 10 MB).
_MACRO = re.compile(rb"INSTAN(?:TIATE|CE)_[A-Za-z0-9_]*")
_SPLICE_PATTERN = rb"\\[ \t]*\r?\n"
_SPLICE_BYTES = re.compile(_SPLICE_PATTERN)
_ANY_SPLICE = re.compile(rb"\\[ \t]*\r?\n(?=[A-Za-z0-9_])")
_SPLICED_MACRO = re.compile(
    b"".join(re.escape(bytes([c])) + b"(?:" + _SPLICE_PATTERN + b")*" for c in b"INSTAN")
    + rb"(?:T(?:"
    + _SPLICE_PATTERN
    + rb")*I(?:"
    + _SPLICE_PATTERN
    + rb")*A(?:"
    + _SPLICE_PATTERN
    + rb")*T(?:"
    + _SPLICE_PATTERN
    + rb")*E|C(?:"
    + _SPLICE_PATTERN
    + rb")*E)(?:"
    + _SPLICE_PATTERN
    + rb")*_(?:[A-Za-z0-9_]|"
    + _SPLICE_PATTERN
    + rb")*"
)
"""`_MACRO` with a line splice allowed between any two characters of the name."""
_TEMPLATE = re.compile(rb"template")
_PARENS = re.compile(rb"[(),]")
_DECL_BRACKETS = re.compile(rb"[()\[\]{};]")
_ARG_BRACKETS = re.compile(rb"[()\[\]{}<>,]")
# A `(` after one of these opens a specifier's operand, not the parameter list.
_NOT_A_DECLARATOR = frozenset({"decltype", "__attribute__", "alignas", "__declspec", "noexcept"})
_SPLICE = re.compile(r"\\[ \t]*\r?\n")
_EXPLICIT = "explicit instantiation"
_OPEN_FOR = {ord(")"): ord("("), ord("]"): ord("["), ord("}"): ord("{")}


@dataclass(frozen=True)
class Call:
    form: FormKind
    name: str
    start: int
    """Offset of the first token: the macro name, or the `template` keyword."""
    close: int
    """Offset of the closing parenthesis (of the macro call, or of the parameter list)."""
    args: tuple[str, ...]
    chain: tuple[TypeAlias, ...] = ()
    """For a kernel defined by aliases (`aliases.find`): its alias and those it refers to."""


@dataclass(frozen=True)
class Malformed:
    """An explicit instantiation whose template brackets do not pair up (CUT013): named, not
    read, since where its template arguments end cannot be known."""

    start: int
    reason: str


@dataclass(frozen=True)
class Truncated:
    what: str
    """What was cut short, for the message: "`INSTANTIATE_...(`", "explicit instantiation"."""
    start: int
    reason: str
    barrier: int
    """Offset of what it ran into (a directive, the next instantiation, the end of the file)."""


@dataclass(frozen=True)
class ClassInstantiation:
    """`template class X<...>;` and the like: explicit, but of no launcher. Not a record; counted
    so that a file holding only these is not reported as if it held nothing."""

    start: int


Found = Call | Truncated | Malformed | ClassInstantiation


@dataclass(frozen=True)
class _Barrier:
    offset: int
    what: str


def normalize(text: bytes) -> str:
    """An argument as written: comment-free, line splices removed, whitespace runs collapsed."""
    spelled = text.decode("utf-8", "replace")
    if "\\" in spelled:
        spelled = _SPLICE.sub(" ", spelled)
    return " ".join(spelled.split())


def arguments(
    masked: MaskedText, start: int, end: int, spans: Sequence[tuple[int, int]]
) -> tuple[str, ...]:
    """`normalize(masked.spelled(a, b))` for each `(a, b)` of `spans`, all within [start, end).

    The text from `start` to `end` is decoded once and sliced when that gives the same strings
    (ASCII: the offsets are the characters'; no backslash, so no line splice; no digraph's
    padding to leave out), as it does in nearly every file: an alias's or a call's arguments
    cost one decode, not one each."""
    region = masked.uncommented[start:end]
    if not masked.padding and region.isascii() and b"\\" not in region:
        text = region.decode("ascii")
        return tuple(" ".join(text[a - start : b - start].split()) for a, b in spans)
    return tuple(normalize(masked.spelled(a, b)) for a, b in spans)


def is_word(text: bytes, m: re.Match[bytes]) -> bool:
    before = text[m.start() - 1 : m.start()]
    after = text[m.end() : m.end() + 1]
    return not (before and (before.isalnum() or before == b"_")) and not (
        after and (after.isalnum() or after == b"_")
    )


def _is_explicit_instantiation(code: bytes, at: int) -> bool:
    """`template` not followed by `<` (a template declaration) nor preceded by `::`, `.` or `->`
    (a dependent-name disambiguator), nor by `extern` (a declaration, which instantiates
    nothing)."""
    after = code[at + 8 : at + 8 + 64].lstrip()
    if after.startswith(b"<"):
        return False
    before = code[max(0, at - 64) : at].rstrip()
    return not (before.endswith((b"::", b".", b"->")) or re.search(rb"\bextern$", before))


def find(masked: MaskedText, body: bytes, directive_starts: Sequence[int]) -> list[Found]:
    """Every instantiation in `body` (the code with directives blanked), in file order."""
    # A line splice inside the name (`INSTANTIATE_TMA_\\<newline>WARP_...`) is removed in
    # translation phase 2, before the name is a token: the same call. The spliced pattern is
    # slower, so it runs only on a file that has a splice at all.
    pattern = _SPLICED_MACRO if _ANY_SPLICE.search(body) else _MACRO
    starts = [
        (m.start(), _SPLICE_BYTES.sub(b"", m.group()).decode(), m.end())
        for m in pattern.finditer(body)
        if is_word(body, m)
    ]
    # A producer macro's name one character off, the prefix included: a call nvcc rejects,
    # which the prefix search above cannot see (near_miss.py; named by CUT018).
    starts += near_miss.find(body, [(start, end) for start, _, end in starts])
    starts += [
        (m.start(), "", m.end())
        for m in _TEMPLATE.finditer(body)
        if is_word(body, m) and _is_explicit_instantiation(body, m.start())
    ]
    if not starts:
        return []  # most cutlass_library files: their kernel is an alias chain (aliases.py)
    starts.sort()
    barriers = sorted(
        [_Barrier(s, "the next instantiation") for s, _, _ in starts]
        + [_Barrier(d, "the next preprocessor directive") for d in directive_starts],
        key=lambda b: b.offset,
    )
    offsets = [b.offset for b in barriers]
    found: list[Found] = []
    for start, macro, name_end in starts:
        i = bisect.bisect_right(offsets, start)
        limit = barriers[i] if i < len(barriers) else _Barrier(len(body), "the end of the file")
        result = (
            _macro_call(masked, body, start, limit, macro, name_end)
            if macro
            else _explicit_instantiation(masked, body, start, limit)
        )
        if result is not None:
            found.append(result)
    return found


def _macro_call(
    masked: MaskedText, body: bytes, start: int, limit: _Barrier, name: str, name_end: int
) -> Found | None:
    open_at = name_end
    while open_at < limit.offset and body[open_at] in b" \t\r\n\f\v":
        open_at += 1
    if open_at >= limit.offset or body[open_at] != ord("("):
        return None  # the name without a call: not an instantiation
    depth, cuts = 0, [open_at]
    for m in _PARENS.finditer(body, open_at, limit.offset):
        c = body[m.start()]
        if c == ord("("):
            depth += 1
        elif c == ord(")"):
            depth -= 1
            if depth == 0:
                cuts.append(m.start())
                spans = [(a + 1, b) for a, b in itertools.pairwise(cuts)]
                args = arguments(masked, open_at, m.start(), spans)
                return Call(FormKind.MACRO_CALL, name, start, m.start(), args)
        elif depth == 1:
            cuts.append(m.start())
    return Truncated(
        f"`{name}(`", start, f"its `(` is not closed before {limit.what}", limit.offset
    )


def _explicit_instantiation(
    masked: MaskedText, body: bytes, start: int, limit: _Barrier
) -> Found | None:
    head = start + len("template")
    stack: list[int] = []
    for m in _DECL_BRACKETS.finditer(body, head, limit.offset):
        c = body[m.start()]
        if c == ord(";"):
            if not stack:
                return _declaration(masked, body, start, head, m.start())
        elif c in b"([{":
            stack.append(c)
        elif not stack or stack.pop() != _OPEN_FOR[c]:
            return Truncated(_EXPLICIT, start, f"it has an unmatched `{chr(c)}`", m.start())
    return Truncated(_EXPLICIT, start, f"its `;` is missing before {limit.what}", limit.offset)


def _declaration(masked: MaskedText, body: bytes, start: int, head: int, semi: int) -> Found | None:
    """`void NAME<targs>(params)` between `template` and `;`."""
    decl = body[head:semi]
    unbalanced = template_args.bracket_problem(masked.code[head:semi])
    if unbalanced is not None:
        return Malformed(start, unbalanced)
    brackets = Brackets(decl)
    params = next(
        (
            o
            for o in brackets.top_level
            if decl[o] == ord("(") and _name_before(decl, o) not in _NOT_A_DECLARATOR
        ),
        None,
    )
    if params is None:
        return ClassInstantiation(start)
    prefix = decl[:params].rstrip()
    targs: tuple[str, ...] = ()
    name_end = len(prefix)
    opener = brackets.opener_of.get(len(prefix) - 1)
    if opener is not None and decl[opener] == ord("<"):
        spans = [(head + a, head + b) for a, b in brackets.args(opener)]
        targs = arguments(masked, head, semi, spans)
        name_end = opener
        if targs == ("",):
            targs = ()  # `f< >(...)`: no template arguments
    name = _name_before(decl, name_end)
    if not name:
        return None
    return Call(FormKind.EXPLICIT_INSTANTIATION, name, start, head + brackets.pairs[params], targs)


def _is_ident(c: int) -> bool:
    return c == 0x5F or (0x30 <= c <= 0x39) or (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


def _name_before(text: bytes, end: int) -> str:
    """The (possibly qualified) name that ends just before `end`, spaces removed: `ns::f`.

    Scanned backwards by hand, so that it costs the length of the name, whatever precedes it.
    """
    parts: list[bytes] = []
    i = end
    while True:
        while i > 0 and text[i - 1] in b" \t\r\n":
            i -= 1
        j = i
        while j > 0 and _is_ident(text[j - 1]):
            j -= 1
        if j == i or (0x30 <= text[j] <= 0x39):
            break  # no identifier here (or a number)
        parts.append(text[j:i])
        k = j
        while k > 0 and text[k - 1] in b" \t\r\n":
            k -= 1
        if text[max(0, k - 2) : k] != b"::":
            break
        i = k - 2
    return "::".join(p.decode("ascii") for p in reversed(parts))


def _opens_template(text: bytes, pos: int) -> bool:
    """A `<` opens template arguments when it follows a name (not a number) and is not `<<` or
    `<=`. A heuristic, as in every tool that reads C++ without a symbol table; it is exact for
    the generated sources, whose only `<` are template brackets."""
    if text[pos + 1 : pos + 2] in (b"<", b"=") or (pos > 0 and text[pos - 1] == ord("<")):
        return False
    i = pos
    if i > 0 and text[i - 1] in _SPACE_BYTES:
        while i > 0 and text[i - 1] in _SPACE_BYTES:
            i -= 1
    # The name's first byte, found by C code (rstrip) a window at a time rather than a byte at
    # a time: this runs for every `<` of every declaration and alias.
    j = i
    while j > 0:
        lo = max(0, j - 64)
        kept = len(text[lo:j].rstrip(_NAME_BYTES))
        j = lo + kept
        if kept:
            break
    return j < i and not _DIGIT[text[j]]


# Bytes a name is made of, as `chr(b).isalnum() or b == "_"` says, and those `chr(b).isdigit()`
# says begin a number (a table: this runs for every `<` of every declaration).
_NAME_BYTES = bytes(b for b in range(256) if chr(b).isalnum() or b == 0x5F)
_DIGIT = bytes(chr(b).isdigit() for b in range(256))
_SPACE_BYTES = frozenset(b" \t\r\n")
_LT, _GT, _COMMA, _MINUS = b"<>,-"
_OPENERS = frozenset(b"([{")


class Brackets:
    """The (), [], {} and template <> of a declaration, matched in one pass.

    A `>` closes only a `<` on top of the stack (so `->` and `a > b` inside parentheses are left
    alone); a closer drops any `<` still open inside it, which was a comparison after all, and
    hands that `<`'s commas to the bracket around it.
    """

    def __init__(self, text: bytes) -> None:
        self.pairs: dict[int, int] = {}
        self.opener_of: dict[int, int] = {}
        self.top_level: list[int] = []
        self._commas: dict[int, list[int]] = {}
        # One pass, the common steps inline (this runs for every alias and declaration): the
        # open brackets' offsets, and beside them the bytes they are (`kinds`).
        pairs, opener_of, commas = self.pairs, self.opener_of, self._commas
        stack: list[int] = []
        kinds: list[int] = []
        for m in _ARG_BRACKETS.finditer(text):
            p = m.start()
            c = text[p]
            if c == _COMMA:
                if stack:
                    got = commas.get(stack[-1])
                    if got is None:
                        commas[stack[-1]] = [p]
                    else:
                        got.append(p)
            elif c == _GT:
                if kinds and kinds[-1] == _LT and text[p - 1] != _MINUS:
                    kinds.pop()
                    opener = stack.pop()
                    pairs[opener] = p
                    opener_of[p] = opener
            elif c == _LT or c in _OPENERS:
                if c == _LT and not _opens_template(text, p):
                    continue
                if not stack:
                    self.top_level.append(p)
                stack.append(p)
                kinds.append(c)
            else:
                while kinds and kinds[-1] == _LT:
                    kinds.pop()
                    self._drop(stack)
                if kinds and kinds[-1] == _OPEN_FOR[c]:
                    kinds.pop()
                    opener = stack.pop()
                    pairs[opener] = p
                    opener_of[p] = opener
        while stack:
            self._drop(stack)

    def _drop(self, stack: list[int]) -> None:
        dropped = stack.pop()
        moved = self._commas.pop(dropped, [])
        if stack:
            self._commas.setdefault(stack[-1], []).extend(moved)
            self._commas[stack[-1]].sort()
        if not stack and dropped in self.top_level:
            self.top_level.remove(dropped)

    def args(self, opener: int) -> list[tuple[int, int]]:
        """(start, end) of each comma-separated argument directly inside the bracket at `opener`;
        none for an empty `<>`."""
        cuts = [opener, *self._commas.get(opener, []), self.pairs[opener]]
        spans = [(a + 1, b) for a, b in itertools.pairwise(cuts)]
        return [] if len(spans) == 1 and spans[0][0] == spans[0][1] else spans


_SHAPE = re.compile(rb"(?<![\w$])(?:" + MOE_MACRO.encode() + rb"(?![\w$])|template\s*(?!<)(?=\w))")


def count(text: bytes) -> int:
    """How many instantiations `text` may hold, at most: its macro names and its `template`
    keywords not followed by `<`, comments included (cheap, without masking)."""
    return sum(1 for _ in _SHAPE.finditer(text))
