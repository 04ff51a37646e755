"""Preprocessor directives: where they are, which `#if` branch encloses an offset, and the
directives-only copy of the file that libclang evaluates.

Which branches are compiled is libclang's call (see `libclang.py`); this module only finds the
directives and names the conditions, so that a `Guard` can say what decided it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cutlint.parse.bytefind import offsets
from cutlint.parse.lexmask import MaskedText, blank

_DIRECTIVE_NAME = re.compile(rb"[ \t\f\v]*([A-Za-z_]\w*)?")
_SPLICE = re.compile(rb"\\[ \t]*\r?\n")
_SPACES = re.compile(r"\s+")
_IDENT = re.compile(r"[A-Za-z_]\w*")

_OPENERS = frozenset({"if", "ifdef", "ifndef"})
_ALTERNATIVES = frozenset({"elif", "elifdef", "elifndef"})
# Header inclusions are blanked out of what libclang sees: cutlint parses without the headers
# (they are CUTLASS and TensorRT-LLM, megabytes each, and not needed to read an instantiation).
_INCLUSIONS = frozenset({"include", "include_next", "import", "embed"})


@dataclass(frozen=True)
class Directive:
    kind: str
    """The directive name (`if`, `endif`, `define`, ...); empty for a null directive."""
    start: int
    """Offset of the `#`."""
    end: int
    """Offset of the newline that ends it (or of the end of the file)."""
    condition: str
    """The condition of an `#if`-family directive, comment-free and whitespace-normalized."""


@dataclass(frozen=True)
class Branch:
    """The text between one conditional directive and the next of the same `#if` group."""

    start: int
    end: int
    text: str
    """The condition under which this branch is compiled, e.g. `!defined(A) && B` for an
    `#elif B` after `#if defined(A)`."""


def _line_is_spliced(code: bytes, line_start: int) -> bool:
    """Whether the newline before `line_start` is escaped by a backslash (a line splice)."""
    i = line_start - 2
    if i >= 0 and code[i] == 0x0D:  # \r\n
        i -= 1
    return i >= 0 and code[i] == 0x5C


def _directive_end(masked: MaskedText, start: int) -> int:
    """A directive runs to the first newline that is neither spliced nor inside a comment."""
    code = masked.code
    pos = start
    while True:
        nl = code.find(b"\n", pos)
        if nl < 0:
            return len(code)
        before = code[nl - 1] if nl else 0
        if before == 0x0D and nl > 1:  # \r\n
            before = code[nl - 2]
        if before == 0x5C or (masked.comment_spans and masked.newline_in_comment(nl)):
            pos = nl + 1
            continue
        return nl


def _condition(masked: MaskedText, kind: str, begin: int, end: int) -> str:
    raw = _SPLICE.sub(b" ", masked.uncommented[begin:end]).decode("utf-8", "replace")
    text = _SPACES.sub(" ", raw).strip()
    if kind in ("ifdef", "ifndef", "elifdef", "elifndef"):
        name = _IDENT.match(text)
        text = f"defined({name.group() if name else text})"
        if kind.endswith("ndef"):
            text = "!" + text
    return text


_LINE_SPACE = frozenset(b" \t\f\v\r")


def _line_first_hashes(code: bytes) -> list[tuple[int, int]]:
    """(start of the line, offset of the `#`) of each `#` that is the first token on its line:
    a directive (C++ [cpp.pre]/1). Searched on the masked code, so a `#` inside a comment or
    string is never one. Found from the `#`s, a few a file (bytes.find), and not by trying a
    pattern at each of the file's newlines (`\\n[ \\t\\f\\v\\r]*#`, three times slower)."""
    out: list[tuple[int, int]] = []
    for at in offsets(code, b"#"):
        k = at
        while k > 0 and code[k - 1] in _LINE_SPACE:
            k -= 1
        if k == 0 or code[k - 1] == 0x0A:
            out.append((k, at))
    return out


def scan(masked: MaskedText) -> list[Directive]:
    code = masked.code
    found: list[Directive] = []
    end = -1  # where the previous directive ends
    for line_start, hash_at in _line_first_hashes(code):
        if line_start < end:
            continue  # inside the continuation lines of the previous directive
        if line_start > 0 and _line_is_spliced(code, line_start):
            continue
        name = _DIRECTIVE_NAME.match(code, hash_at + 1)
        assert name is not None  # the pattern matches the empty string
        word = name.group(1)
        kind = (_KINDS.get(word) or word.decode("ascii")) if word else ""
        end = _directive_end(masked, hash_at)
        cond = _condition(masked, kind, name.end(), end) if kind in _CONDITIONAL else ""
        found.append(Directive(kind, hash_at, end, cond))
    return found


_CONDITIONAL = _OPENERS | _ALTERNATIVES
_KINDS = {k.encode(): k for k in (*_CONDITIONAL, "else", "endif", "define", "undef", "include")}
"""The common directive names, decoded once."""


_DEFINED_NAME = re.compile(rb"[ \t]*(\w+)")


def file_defines(masked: MaskedText, directives: Sequence[Directive]) -> tuple[str, ...]:
    """The macros the file itself defines outside every conditional (`#define NAME ...`, less
    those it `#undef`s again), in order: what the headers it includes afterwards see, e.g. the
    FlashInfer SM103 generic FP4 files' `#define FLASHINFER_SM103_GENERIC_NOSMEM_EPILOGUE 1`."""
    depth = 0
    names: dict[str, None] = {}
    for d in directives:
        if d.kind in _OPENERS:
            depth += 1
        elif d.kind == "endif":
            depth = max(0, depth - 1)
        elif depth == 0 and d.kind in ("define", "undef"):
            at = masked.code.find(d.kind.encode(), d.start) + len(d.kind)
            m = _DEFINED_NAME.match(masked.code, at)
            if m is None:
                continue
            name = m.group(1).decode("ascii", "replace")
            if d.kind == "define":
                names[name] = None
            else:
                names.pop(name, None)
    return tuple(names)


def has_conditionals(directives: Sequence[Directive]) -> bool:
    return any(d.kind in _OPENERS for d in directives)


def conditional_errors(directives: Sequence[Directive]) -> list[tuple[Directive, str]]:
    """The `#if` groups the preprocessor rejects ([cpp.cond]): an `#elif`, `#else` or `#endif`
    without its `#if`, an `#elif` or `#else` after the group's `#else`, an `#if` never closed.
    Skipped groups count too: the preprocessor tracks their nesting."""
    out: list[tuple[Directive, str]] = []
    stack: list[tuple[Directive, bool]] = []  # (opener, whether its #else was seen)
    for d in directives:
        if d.kind in _OPENERS:
            stack.append((d, False))
        elif d.kind in _ALTERNATIVES or d.kind == "else":
            if not stack:
                out.append((d, f"`#{d.kind}` without `#if`"))
            elif stack[-1][1]:
                out.append((d, f"`#{d.kind}` after `#else`"))
            elif d.kind == "else":
                stack[-1] = (stack[-1][0], True)
        elif d.kind == "endif":
            if stack:
                stack.pop()
            else:
                out.append((d, "`#endif` without `#if`"))
    out.extend((opener, f"`#{opener.kind}` without `#endif`") for opener, _ in stack)
    out.sort(key=lambda e: e[0].start)
    return out


def _negate(condition: str) -> str:
    """`!A`, `!defined(A)`, `defined(A)` for `!defined(A)`, and `!(A && B)`."""
    if re.fullmatch(r"!?(?:defined\s*\(\s*\w+\s*\)|\w+)", condition):
        return condition[1:] if condition.startswith("!") else f"!{condition}"
    return f"!({condition})"


def branches(directives: Sequence[Directive], length: int) -> list[Branch]:
    """Every branch of every `#if` group. An `#endif` without `#if` is ignored; a group left
    open runs to the end of the file (clang reports both; the guard only needs the extent)."""
    out: list[Branch] = []
    # Per open group: the conditions seen so far, and where and under what the current branch began.
    stack: list[tuple[list[str], int, str]] = []
    for d in directives:
        if d.kind in _OPENERS:
            stack.append(([d.condition], d.end, d.condition))
        elif d.kind in _ALTERNATIVES | {"else", "endif"} and stack:
            conds, begin, text = stack.pop()
            out.append(Branch(begin, d.start, text))
            if d.kind == "endif":
                continue
            negated = " && ".join(_negate(c) for c in conds)
            if d.kind == "else":
                stack.append((conds, d.end, negated))
            else:
                stack.append(([*conds, d.condition], d.end, f"{negated} && {d.condition}"))
    out.extend(Branch(begin, length, text) for _, begin, text in stack)
    out.sort(key=lambda b: (b.start, -b.end))
    return out


def innermost(branch_list: Sequence[Branch], offsets: Sequence[int]) -> list[Branch | None]:
    """For each offset (in any order), the innermost branch that contains it.

    Branches nest, so one sweep with a stack of open branches answers all offsets at once.
    """
    order = sorted(range(len(offsets)), key=lambda i: offsets[i])
    answer: list[Branch | None] = [None] * len(offsets)
    stack: list[Branch] = []
    nxt = 0
    for i in order:
        off = offsets[i]
        while nxt < len(branch_list) and branch_list[nxt].start <= off:
            b = branch_list[nxt]
            while stack and stack[-1].end <= b.start:
                stack.pop()
            stack.append(b)
            nxt += 1
        while stack and stack[-1].end <= off:
            stack.pop()
        answer[i] = stack[-1] if stack else None
    return answer


def skeleton(masked: MaskedText, directives: Sequence[Directive]) -> bytes:
    """The file with everything but its directives blanked, byte for byte the same length.

    libclang then evaluates exactly the conditionals cutlint found, at the same offsets, and its
    parser sees no C++ at all: without the headers that C++ is unresolvable anyway, and it is
    where libclang's recursion crashes on pathological input and spends its time. Newlines and
    line splices are kept so that each directive starts a line where it did in the file;
    comments inside a directive are blanked whole (a newline in them does not end it).
    """
    out = bytearray(blank(masked.code))
    for m in _SPLICE.finditer(masked.code):
        out[m.start()] = 0x5C
    for d in directives:
        if d.kind in _INCLUSIONS:
            continue
        out[d.start : d.end] = masked.uncommented[d.start : d.end]
        for cs, ce in masked.comments_within(d.start, d.end):
            out[cs:ce] = b" " * (ce - cs)
    return bytes(out)


# `count` reads the raw text, where a directive may still be spelled `%:` (lexmask's digraphs).
_RAW_DIRECTIVE_START = re.compile(rb"\n[ \t\f\v\r]*(?:#|%:)")
_RAW_FIRST_LINE_DIRECTIVE = re.compile(rb"[ \t\f\v\r]*(?:#|%:)")


def count(text: bytes) -> int:
    """How many lines of `text` start with `#` or `%:` (an upper bound on its directives:
    comments are not masked), without building the directives."""
    first = 1 if _RAW_FIRST_LINE_DIRECTIVE.match(text) else 0
    return first + sum(1 for _ in _RAW_DIRECTIVE_START.finditer(text))
