"""Just enough C++ reading for FlashInfer's launcher headers: no comments, preprocessor lines
apart, function bodies, the blocks inside them, and if-conditions evaluated for one variable.

This is not a C++ parser. It reads the regular code of `moe_gemm_template_dispatch_tma_ws.h` and
`moe_gemm_tma_ws_launcher.inl` (if / else-if chains, switches of macro cases, `return` of
boolean expressions) and raises DeriveError on anything it does not recognise, so that a release
whose code changed shape is reported instead of misread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


class DeriveError(Exception):
    """A fact could not be read from a release; says which release, file and what was expected."""


@dataclass(frozen=True)
class Directive:
    """One preprocessor line (continuation lines joined, comments removed)."""

    line: int
    kind: str
    """`define`, `undef`, `if`, `ifdef`, `ifndef`, `elif`, `else`, `endif`, ..."""
    text: str
    """What follows the directive name, whitespace collapsed."""


@dataclass(frozen=True)
class Block:
    """A `{ ... }` inside a function body; `header` is the statement head before the brace."""

    index: int
    start: int
    end: int
    header: str
    parent: int | None


def squash(text: str) -> str:
    """Whitespace collapsed, and none just after a name's `<` or `(` (a line broken there)."""
    return re.sub(r"(\w[<(])\s+", r"\1", " ".join(text.split()))


def _blank(text: str) -> str:
    return "".join(c if c == "\n" else " " for c in text)


def strip_comments(text: str) -> str:
    """Comments and the contents of string and character literals become spaces; every offset
    and line number stays where it was."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(_blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(_blank(text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + _blank(text[i + 1 : j]) + (c if j < n and text[j] == c else ""))
            i = j + 1 if j < n and text[j] == c else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class CppSource:
    """One header of a wheel: `code` has no comments and no preprocessor lines (both blanked to
    spaces, so offsets and lines are those of the file); `directives` has the preprocessor."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        lines = strip_comments(text).split("\n")
        directives: list[Directive] = []
        i = 0
        while i < len(lines):
            if lines[i].lstrip().startswith("#"):
                first = i
                parts = [lines[i]]
                while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
                    parts[-1] = parts[-1].rstrip()[:-1]
                    i += 1
                    parts.append(lines[i])
                body = squash(" ".join(parts))[1:].strip()
                kind, _, rest = body.partition(" ")
                directives.append(Directive(first + 1, kind, rest.strip()))
                for k in range(first, i + 1):
                    lines[k] = " " * len(lines[k])
            i += 1
        self.code = "\n".join(lines)
        self.directives = tuple(directives)

    def line_of(self, offset: int) -> int:
        return self.code.count("\n", 0, offset) + 1

    def where(self, offset: int, what: str) -> str:
        return f"{self.path}:{self.line_of(offset)} {what}"

    def guards_at(self, line: int) -> tuple[str, ...]:
        """The `#if` conditions in force at `line`, outermost first (`!(c)` in an `#else`)."""
        stack: list[str] = []
        for d in self.directives:
            if d.line >= line:
                break
            if d.kind == "if":
                stack.append(d.text)
            elif d.kind == "ifdef":
                stack.append(f"defined({d.text})")
            elif d.kind == "ifndef":
                stack.append(f"!defined({d.text})")
            elif d.kind == "elif" and stack:
                stack[-1] = f"!({stack[-1]}) && ({d.text})"
            elif d.kind == "else" and stack:
                stack[-1] = f"!({stack[-1]})"
            elif d.kind == "endif" and stack:
                stack.pop()
        return tuple(stack)

    def define_before(self, name: str, line: int) -> Directive:
        """The last `#define name(...)` above `line`."""
        found = [
            d
            for d in self.directives
            if d.kind == "define" and d.line < line and re.match(rf"{name}\b", d.text)
        ]
        if not found:
            raise DeriveError(f"{self.path}: no #define {name} above line {line}")
        return found[-1]

    def function(self, name: str) -> tuple[int, int]:
        """Offsets of the `{` and `}` of the first definition of function `name`."""
        for m in re.finditer(rf"\b{re.escape(name)}\s*\(", self.code):
            close = matching(self.code, m.end() - 1)
            rest = self.code[close + 1 :]
            head = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", rest)
            if head:
                start = close + head.end()
                return start, matching(self.code, start)
        raise DeriveError(f"{self.path}: no definition of {name}()")

    def blocks(self, start: int, end: int) -> list[Block]:
        """Every `{...}` strictly inside the body `start`..`end` (offsets of its braces)."""
        out: list[Block] = []
        stack: list[int] = []
        mark = start + 1
        parens = 0  # braces inside parentheses are values (`_1{}`, `ClusterShape{}`)
        for i in range(start + 1, end):
            c = self.code[i]
            if c in "()":
                parens += 1 if c == "(" else -1
            elif parens:
                continue
            elif c == "{":
                head = _statement_head(squash(self.code[mark:i]))
                parent = stack[-1] if stack else None
                out.append(Block(len(out), i, -1, head, parent))
                stack.append(len(out) - 1)
                mark = i + 1
            elif c == "}":
                if not stack:
                    raise DeriveError(f"{self.path}:{self.line_of(i)} unbalanced braces")
                b = out[stack.pop()]
                out[b.index] = Block(b.index, b.start, i, b.header, b.parent)
                mark = i + 1
            elif c == ";":
                mark = i + 1
        if stack:
            raise DeriveError(f"{self.path}: unbalanced braces in body at {self.line_of(start)}")
        return out

    def returns(self, start: int, end: int) -> Iterator[tuple[int, str]]:
        """(offset, expression) of each `return expression;` in `start`..`end`."""
        for m in re.finditer(r"\breturn\b([^;]*);", self.code[start:end]):
            yield start + m.start(), squash(m[1])


def matching(text: str, open_at: int) -> int:
    """Offset of the bracket closing the one at `open_at` (`(` or `{`)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    opener = text[open_at]
    closer = pairs[opener]
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
            if depth == 0:
                return i
    raise DeriveError(f"no {closer} for the {opener} at offset {open_at}")


_HEAD = re.compile(r"(?:\belse\s+)?\b(?:if|switch|for|while)\b\s*(?:constexpr\b\s*)?\(")


def _statement_head(text: str) -> str:
    """The statement a `{` opens, without the macro calls (no `;`) that precede it."""
    heads = list(_HEAD.finditer(text))
    for m in reversed(heads):
        if matching(text, m.end() - 1) == len(text) - 1:
            return text[m.start() :]
    if re.search(r"\belse$", text):
        return "else"
    return text


def head_condition(header: str) -> str | None:
    """`else if constexpr (c)` -> `c`; None for a head that is not an if."""
    m = re.match(r"(?:else\s+)?if\s*(?:constexpr\s*)?\(", header)
    if not m:
        return None
    return squash(header[m.end() : matching(header, m.end() - 1)])


def chain(blocks: list[Block], b: Block) -> list[Block]:
    """The if / else-if / else chain `b` ends, first branch first (just `[b]` outside a chain)."""
    siblings = [x for x in blocks if x.parent == b.parent and x.start <= b.start]
    out = [b]
    k = len(siblings) - 1
    while out[0].header.startswith("else") and k > 0:
        k -= 1
        out.insert(0, siblings[k])
    return out


def path_conditions(blocks: list[Block], offset: int) -> list[tuple[list[str], str | None]]:
    """For each if/else block around `offset`, outermost first: the conditions of the branches
    before it in its chain and its own (None for a plain `else`)."""
    out: list[tuple[list[str], str | None]] = []
    for b in blocks:
        if not (b.start < offset < b.end):
            continue
        own = head_condition(b.header)
        if own is None and b.header != "else":
            continue
        earlier = [c for x in chain(blocks, b)[:-1] if (c := head_condition(x.header)) is not None]
        out.append((earlier, own))
    return out


def describe_path(path: list[tuple[list[str], str | None]]) -> list[str]:
    """The conditions of `path_conditions` as text: `c`, and `!(e)` for each earlier branch e."""
    out: list[str] = []
    for earlier, own in path:
        out.extend(f"!({e})" for e in earlier)
        if own is not None:
            out.append(own)
    return out


Tri = bool | None


def split_top(text: str, op: str) -> list[str]:
    """`text` split at each `op` outside parentheses."""
    parts: list[str] = []
    depth, mark, i = 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(op, i):
            parts.append(text[mark:i])
            i += len(op)
            mark = i
            continue
        i += 1
    parts.append(text[mark:])
    return [p.strip() for p in parts]


def evaluate(cond: str, var: str, value: int) -> Tri:
    """`cond` with `var` set to `value`: True, False, or None where it depends on anything else
    (a type trait, a template flag). Handles `||`, `&&`, `!`, parentheses and `var OP number`."""
    s = cond.strip()
    parts = split_top(s, "||")
    if len(parts) > 1:
        values = [evaluate(p, var, value) for p in parts]
        return True if True in values else (False if all(v is False for v in values) else None)
    parts = split_top(s, "&&")
    if len(parts) > 1:
        values = [evaluate(p, var, value) for p in parts]
        return False if False in values else (True if all(v is True for v in values) else None)
    if s.startswith("!") and not s.startswith("!="):
        inner = evaluate(s[1:], var, value)
        return None if inner is None else not inner
    if s.startswith("(") and matching(s, 0) == len(s) - 1:
        return evaluate(s[1:-1], var, value)
    m = re.fullmatch(rf"{re.escape(var)}\s*(==|!=|>=|<=|<|>)\s*(\d+)", s)
    if not m:
        return None
    rhs = int(m[2])
    return {
        "==": value == rhs,
        "!=": value != rhs,
        ">=": value >= rhs,
        "<=": value <= rhs,
        "<": value < rhs,
        ">": value > rhs,
    }[m[1]]


def reachable(path: list[tuple[list[str], str | None]], var: str, value: int) -> bool:
    """Whether code under `path` can run with `var == value`: no earlier branch of a chain
    certainly taken, and its own condition not certainly false."""
    for earlier, own in path:
        if any(evaluate(e, var, value) is True for e in earlier):
            return False
        if own is not None and evaluate(own, var, value) is False:
            return False
    return True
