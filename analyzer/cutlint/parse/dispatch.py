"""Dispatch on the device's compute capability, as hand-written CUTLASS entry points write it.

vLLM's `cutlass_scaled_mm` (csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu) is the shape:

    int32_t version_num = get_sm_version_num();
    #if defined ENABLE_SCALED_MM_SM120 && ENABLE_SCALED_MM_SM120
      if (version_num >= 120) { ...; cutlass_scaled_mm_sm120(...); return; }
    #endif
    #if defined ENABLE_SCALED_MM_SM100 && ENABLE_SCALED_MM_SM100
      if (version_num >= 100 && version_num < 120) { ... }
    #endif
    ...
    STD_TORCH_CHECK_NOT_IMPLEMENTED(false, "No compiled cutlass_scaled_mm for ...", version_num);

A dispatch is a function body that ends in such a failure (a check on `false` or a `throw` with
a message) and holds `if`s comparing one variable with capabilities written `XY` (`>= 120`,
`< 110`, `== 89`). Each branch keeps its capability range and the `#if` it sits in; which
capability a build leaves without a kernel is the engine's question (engine/dispatch_gaps.py),
since the parser knows no arch. Syntax only: a condition of another shape (`!=`, `||`, a call
in it) makes no branch, and a body with no branch makes no dispatch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_IF = re.compile(rb"\bif\s*\(")
_CLAUSE = re.compile(rb"\s*([A-Za-z_]\w*(?:\s*\(\s*\))?)\s*(>=|<=|==|>|<)\s*(\d+)\s*")
_FALSE_ARG = re.compile(rb"\(\s*false\s*,")
_THROW = re.compile(rb"\bthrow\b")
_CHECKER = re.compile(rb"([A-Za-z_]\w{0,80})\s*$")
_CHECKER_WORDS = (b"CHECK", b"THROW", b"ASSERT", b"check", b"throw")
LOWEST, HIGHEST = 20, 200
"""Capabilities written XY: sm_20 to sm_200. A number outside is not a capability (a size)."""


@dataclass(frozen=True)
class Branch:
    start: int
    """Byte offset of the `if`."""
    condition: str
    low: int | None
    """Lowest capability the branch takes (inclusive); None: no lower bound."""
    high: int | None
    """First capability above it (exclusive); None: no upper bound."""
    call: str
    """The first function the branch calls (`cutlass_scaled_mm_sm120`), or empty."""


@dataclass(frozen=True)
class Dispatch:
    function: str
    failure: int
    """Byte offset of the failure statement."""
    message: str
    """The failure's string literals, joined."""
    branches: tuple[Branch, ...]


def _matching(code: bytes, open_at: int, opener: int, closer: int) -> int:
    """Offset of the bracket that closes the one at `open_at`, or -1."""
    depth = 0
    for i in range(open_at, len(code)):
        c = code[i]
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _range(cond: bytes) -> tuple[str, int | None, int | None] | None:
    """`version_num >= 100 && version_num < 120` -> ("version_num", 100, 120); None for any
    other shape."""
    name: str | None = None
    low: int | None = None
    high: int | None = None
    for clause in cond.split(b"&&"):
        m = _CLAUSE.fullmatch(clause)
        if m is None:
            return None
        var = re.sub(r"\s+", "", m[1].decode())
        value = int(m[3])
        if (name is not None and var != name) or not LOWEST <= value <= HIGHEST:
            return None
        name = var
        op = m[2]
        lo, hi = {
            b">=": (value, None),
            b">": (value + 1, None),
            b"<": (None, value),
            b"<=": (None, value + 1),
            b"==": (value, value + 1),
        }[op]
        if lo is not None:
            low = lo if low is None else max(low, lo)
        if hi is not None:
            high = hi if high is None else min(high, hi)
    assert name is not None
    return name, low, high


_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^;{}]*?>)?\s*\(")
_NOT_A_CALL = {b"if", b"for", b"while", b"switch", b"return", b"sizeof", b"static_cast"}


def _first_call(code: bytes, start: int, end: int) -> str:
    for m in _CALL.finditer(code, start, end):
        name = m[1]
        if name not in _NOT_A_CALL and b"check" not in name.lower():
            return name.decode()
    return ""


def _function_name(code: bytes, body_open: int) -> str:
    """The name before the parameter list that precedes a function body's `{`."""
    i = body_open - 1
    while i >= 0 and code[i] in b" \t\r\n":
        i -= 1
    # trailing qualifiers (`const`, `noexcept`, `override`) between `)` and `{`
    while i >= 0 and code[i] != ord(")") and code[i] not in b";}{":
        i -= 1
    if i < 0 or code[i] != ord(")"):
        return ""
    depth = 0
    while i >= 0:
        if code[i] == ord(")"):
            depth += 1
        elif code[i] == ord("("):
            depth -= 1
            if depth == 0:
                break
        i -= 1
    m = re.search(rb"([A-Za-z_][\w:]*)\s*$", code[max(0, i - 200) : i])
    if m is None or m[1] in _NOT_A_CALL or m[1] in (b"catch", b"else"):
        return ""  # a block of the body (`if (...) {`), not the function
    return m[1].decode()


def _enclosing_open(code: bytes, offset: int) -> int:
    """Offset of the innermost unmatched `{` before `offset`, or -1."""
    depth = 0
    for i in range(offset - 1, -1, -1):
        c = code[i]
        if c == ord("}"):
            depth += 1
        elif c == ord("{"):
            if depth == 0:
                return i
            depth -= 1
    return -1


def _failures(code: bytes) -> list[tuple[int, int]]:
    """(start, end of match) of each failure statement: `SOME_CHECK(false, ...` or `throw`."""
    out = [(m.start(), m.end()) for m in _THROW.finditer(code)]
    for m in _FALSE_ARG.finditer(code):
        name = _CHECKER.search(code, max(0, m.start() - 81), m.start())
        if name is not None and any(w in name[1] for w in _CHECKER_WORDS):
            out.append((name.start(1), m.end()))
    return sorted(out)


def find(code: bytes, text: bytes, literal_at: Callable[[int, int], str]) -> list[Dispatch]:
    """Every capability dispatch in a file. `code`: the comment- and literal-masked text with
    directives blanked (parse/lexmask.py); `text`: the file; `literal_at(start, end)`: the string
    literals of text[start:end], joined."""
    out: list[Dispatch] = []
    seen: set[int] = set()
    failures = _failures(code)
    for fail_start, fail_end in failures:
        body_open = _enclosing_open(code, fail_start)
        while body_open >= 0 and not _function_name(code, body_open):
            body_open = _enclosing_open(code, body_open)  # an `if`/loop block inside the body
        if body_open < 0 or body_open in seen:
            continue
        body_close = _matching(code, body_open, ord("{"), ord("}"))
        if body_close < 0:
            continue
        branches: list[Branch] = []
        inside = False
        for m in _IF.finditer(code, body_open, fail_start):
            close = _matching(code, m.end() - 1, ord("("), ord(")"))
            if close < 0:
                continue
            got = _range(code[m.end() : close])
            if got is None:
                continue
            _, low, high = got
            block_open = code.find(b"{", close, body_close)
            block_close = _matching(code, block_open, ord("{"), ord("}")) if block_open >= 0 else -1
            if block_open >= 0 and block_open < fail_start < block_close:
                # the failure is the branch's own (vLLM's "SM120 NVFP4 MOE only supports
                # bfloat16 output"): a rejection on that capability, not the dispatch's end
                inside = True
                break
            if block_close > 0 and any(block_open < f < block_close for f, _ in failures):
                continue  # a branch that rejects (fails itself) selects no kernel
            call = _first_call(code, block_open, block_close) if block_close > 0 else ""
            condition = re.sub(rb"\s+", b" ", text[m.end() : close].strip()).decode()
            branches.append(Branch(m.start(), condition, low, high, call))
        if inside or not branches:
            continue
        seen.add(body_open)
        end = code.find(b";", fail_end)
        out.append(
            Dispatch(
                function=_function_name(code, body_open),
                failure=fail_start,
                message=literal_at(fail_start, end if end > 0 else fail_end),
                branches=tuple(branches),
            )
        )
    return out


_CAPABILITY_IF = re.compile(rb"\bif\s*\(\s*[A-Za-z_]\w*(?:\s*\(\s*\))?\s*[<>=]=?\s*\d{2,3}\b")


def has_candidates(code: bytes) -> bool:
    """Cheap: whether `find` may find anything (a failure statement and an `if` comparing with a
    capability). Most files have neither, and are then not preprocessed for their sake."""
    return (
        _FALSE_TEXT.search(code) is not None or _THROW_TEXT.search(code) is not None
    ) and _CAPABILITY_IF.search(code) is not None


# `re`'s literal search: two to three times faster than `in` over C++ (measured on a 4 KB file).
_FALSE_TEXT = re.compile(rb"false")
_THROW_TEXT = re.compile(rb"throw")


__all__ = ["HIGHEST", "LOWEST", "Branch", "Dispatch", "find", "has_candidates"]
