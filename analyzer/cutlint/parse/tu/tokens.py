"""A function body as statements: which calls it makes, under which branch conditions.

Read from libclang's tokens, not its expression cursors: in a TU whose third-party headers are
stubs, a call taking a `torch::Tensor` is a recovery expression clang does not expose as a call,
but its tokens are the source as written. Only what the dispatch needs is parsed: blocks, `if` /
`else` (with the negation that an earlier `if (...) return ...;` puts on the statements after
it), loops and switches as plain bodies, local `using` aliases and `constexpr` values, calls
written with explicit template arguments (`f<A, B>(...)`) and plain calls (`f(...)`: a
non-template function of the TU's own files is followed too, as SGLang's JIT entry points reach
their dispatch templates).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Token = Any  # clang.cindex.Token: the bindings are untyped

Flow = bool | str
"""How a statement leaves: True, it returns (or throws); a string, it is an `if` on that
condition whose branch returns, so the statements after it run under the negation; False."""

_OPEN = {"(": ")", "[": "]", "{": "}"}
_KEYWORDS_NOT_CALLS = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "sizeof"}
_NOT_PLAIN_CALLS = _KEYWORDS_NOT_CALLS | {
    "if", "for", "while", "switch", "return", "alignof", "decltype", "static_assert", "catch",
    "noexcept", "throw", "typeid", "defined", "operator",
}  # fmt: skip


@dataclass(frozen=True)
class _Kind:
    name: str


@dataclass(frozen=True)
class Punct:
    """A bracket the reader adds around a `constexpr` value's expression, so that it stays one
    operand where its name is replaced (`128 / (...)`); it has no place in the file."""

    spelling: str
    kind: _Kind = _Kind("PUNCTUATION")
    location: None = None


@dataclass(frozen=True)
class Call:
    name: str
    """The callee as written, qualifiers included (`c3x::cutlass_gemm_caller`)."""
    args: tuple[tuple[Token, ...], ...]
    """The explicit template arguments, each as its tokens."""
    token: Token
    """The callee's last name token (its location is the call's)."""
    conditions: tuple[str, ...]
    aliases: dict[str, Alias] = field(default_factory=dict, compare=False, hash=False)
    """The local `using` aliases visible at the call, by name: each block has its own (vLLM's
    blockwise dispatch declares `using Gemm = ...` in three branches)."""
    explicit: bool = True
    """Written with explicit template arguments (`f<A>(...)`); False: a plain call `f(...)`."""
    mentions: frozenset[str] = frozenset()
    """The identifiers of a plain call's arguments (`run_gemm(PingpongGemmKernel{})`)."""
    qualifier: tuple[Token, ...] = ()
    """A plain call's qualifier as its tokens, up to the last `::`: `Kernel_128x64_1x1x1` of
    `Kernel_128x64_1x1x1::mm(...)`, `W4A8GemmKernel<Shape<_128, _64>, ...>` of a call written
    with the class template's arguments (a static member of a class template's
    specialization); empty for a free function."""


@dataclass(frozen=True)
class Alias:
    name: str
    tokens: tuple[Token, ...]
    token: Token
    conditions: tuple[str, ...] = ()
    """The branch conditions where it is declared (`kCanUsePingpong` for an alias in an
    `if constexpr (kCanUsePingpong)` block)."""
    visible: dict[str, Alias] = field(default_factory=dict, compare=False, hash=False)
    """The local aliases visible where it is declared, by name."""


@dataclass
class Body:
    calls: list[Call] = field(default_factory=list)
    aliases: list[Alias] = field(default_factory=list)


_TIGHT_AFTER = {"::", ".", "->", "(", "[", "!", "~", "<"}
_TIGHT_BEFORE = {"::", ".", "->", "(", ")", "[", "]", ",", ";", ">", "<"}


def pretty(words: Sequence[str], angles: bool = True) -> str:
    """Tokens as a person writes them: `cfg<In, 16>::Gemm`, `out.scalar_type() == Half`.

    `angles`: `<` and `>` are template brackets (types); otherwise operators (conditions)."""
    tight_after = _TIGHT_AFTER if angles else _TIGHT_AFTER - {"<"}
    tight_before = _TIGHT_BEFORE if angles else _TIGHT_BEFORE - {"<", ">"}
    out = ""
    prev = ""
    for w in words:
        if out and prev not in tight_after and w not in tight_before:
            out += " "
        out += w
        prev = w
    return out


_PLAIN_NOT = re.compile(r"!\s*([A-Za-z_]\w*)")


def negate(cond: str) -> str:
    """`!(cond)`, without a double negation (`!swap_ab` -> `swap_ab`)."""
    m = _PLAIN_NOT.fullmatch(cond)
    return m.group(1) if m else f"!({cond})"


def _text(tokens: Sequence[Token], angles: bool = True) -> str:
    return pretty([t.spelling for t in tokens], angles)


def _match(toks: Sequence[Token], i: int) -> int:
    """Index just past the bracket group opening at i."""
    close = _OPEN[toks[i].spelling]
    opener = toks[i].spelling
    depth = 0
    for j in range(i, len(toks)):
        s = toks[j].spelling
        if s == opener:
            depth += 1
        elif s == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def _angle(toks: Sequence[Token], i: int) -> int | None:
    """Index just past the `>` closing the template argument list opening at i, or None when
    the `<` is a comparison (a `;` or an unbalanced bracket comes first)."""
    depth = 0
    j = i
    while j < len(toks):
        s = toks[j].spelling
        if s == "<":
            depth += 1
        elif s in (">", ">>"):
            depth -= len(s)
            if depth <= 0:
                return j + 1 if depth == 0 else None
        elif s in _OPEN:
            j = _match(toks, j)
            continue
        elif s in (";", "{", "}", ")", "]", "&&", "||"):
            return None
        j += 1
    return None


def split_args(toks: Sequence[Token]) -> tuple[tuple[Token, ...], ...]:
    out: list[tuple[Token, ...]] = []
    current: list[Token] = []
    depth = 0
    for t in toks:
        s = t.spelling
        if s in ("<", "(", "[", "{"):
            depth += 1
        elif s in (">", ")", "]", "}"):
            depth -= 1
        elif s == ">>":
            depth -= 2
        if s == "," and depth == 0:
            out.append(tuple(current))
            current = []
        else:
            current.append(t)
    if current:
        out.append(tuple(current))
    return tuple(out)


class _Walker:
    def __init__(self, toks: Sequence[Token]) -> None:
        self.toks = toks
        self.body = Body()
        self.scopes: list[dict[str, Alias]] = [{}]

    def stmt(self, i: int, conds: tuple[str, ...]) -> tuple[int, Flow]:
        """Parse one statement at i: (index after it, how it leaves: see Flow)."""
        toks = self.toks
        if i >= len(toks):
            return i, False
        s = toks[i].spelling
        if s == "{":
            return self.block(i, conds)
        if s == "if":
            j = i + 1
            if j < len(toks) and toks[j].spelling == "constexpr":
                j += 1
            if j >= len(toks) or toks[j].spelling != "(":
                return self.simple(i, conds)
            end = _match(toks, j)
            cond = _text(toks[j + 1 : end - 1], angles=False)
            k, returns = self.stmt(end, (*conds, cond))
            if k < len(toks) and toks[k].spelling == "else":
                k, other = self.stmt(k + 1, (*conds, negate(cond)))
                return k, returns is True and other is True
            # An `if` whose branch returns leaves `!(cond)` on what follows: the caller adds it.
            return k, cond if returns is True else False
        if s in ("for", "while", "switch") and i + 1 < len(toks) and toks[i + 1].spelling == "(":
            end = _match(toks, i + 1)
            label = f"{s} ({_text(toks[i + 2 : end - 1], angles=False)})"
            k, _ = self.stmt(end, (*conds, label) if s == "switch" else conds)
            return k, False
        return self.simple(i, conds)

    def block(self, i: int, conds: tuple[str, ...]) -> tuple[int, Flow]:
        toks = self.toks
        j = i + 1
        local = conds
        returns: Flow = False
        self.scopes.append({})
        while j < len(toks) and toks[j].spelling != "}":
            j, returns = self.stmt(j, local)
            if isinstance(returns, str):
                local = (*local, negate(returns))
        self.scopes.pop()
        # A block returns when its last statement does (`{ ...; return f<G>(...); }`).
        return j + 1, returns is True

    def simple(self, i: int, conds: tuple[str, ...]) -> tuple[int, Flow]:
        """A statement up to its `;` (lambdas and initializer braces inside it included)."""
        toks = self.toks
        j = i
        while j < len(toks) and toks[j].spelling not in (";", "}"):
            if toks[j].spelling in _OPEN:
                j = _match(toks, j)
            else:
                j += 1
        span = toks[i:j]
        self.scan(span, conds)
        returns = bool(span) and span[0].spelling in ("return", "throw")
        return (j + 1 if j < len(toks) and toks[j].spelling == ";" else j), returns

    def scan(self, span: Sequence[Token], conds: tuple[str, ...]) -> None:
        visible = {n: a for scope in self.scopes for n, a in scope.items()}
        if len(span) > 3 and span[0].spelling == "using" and span[2].spelling == "=":
            self.declare(Alias(span[1].spelling, tuple(span[3:]), span[1], conds, visible))
        value = _constexpr(span)
        if value is not None:
            name, expr = value
            self.declare(
                Alias(name.spelling, (Punct("("), *expr, Punct(")")), name, conds, visible)
            )
        for k in range(len(span) - 1):
            t = span[k]
            if t.kind.name != "IDENTIFIER":
                continue
            if span[k + 1].spelling == "(":
                self.plain(span, k, conds, visible)
                continue
            if span[k + 1].spelling != "<":
                continue
            if t.spelling in _KEYWORDS_NOT_CALLS:
                continue
            end = _angle(span, k + 1)
            if end is None or end >= len(span) or span[end].spelling != "(":
                continue
            start = k
            while start >= 2 and span[start - 1].spelling == "::":
                start -= 2
            name = _text(span[start : k + 1]).replace(" ", "")
            inner = tuple(span[k + 2 : end - 1])
            if span[end - 1].spelling == ">>":  # `f<A, Shape<_1, _1>>(...)`: one `>` is A's
                inner = (*inner, Punct(">"))
            args = split_args(inner)
            self.body.calls.append(Call(name, args, t, conds, visible))

    def declare(self, alias: Alias) -> None:
        self.body.aliases.append(alias)
        self.scopes[-1][alias.name] = alias

    def plain(
        self, span: Sequence[Token], k: int, conds: tuple[str, ...], visible: dict[str, Alias]
    ) -> None:
        """A call `f(...)` or `ns::f(...)`, not a member's (`x.f(...)`) nor a keyword's."""
        t = span[k]
        if t.spelling in _NOT_PLAIN_CALLS or (k > 0 and span[k - 1].spelling in (".", "->")):
            return
        start = _qualified_start(span, k)
        end = _match(span, k + 1)
        mentions = frozenset(
            a.spelling for a in span[k + 2 : end - 1] if a.kind.name == "IDENTIFIER"
        )
        name = _text(span[start : k + 1]).replace(" ", "")
        qualifier = tuple(span[start : k - 1]) if start < k else ()
        self.body.calls.append(Call(name, (), t, conds, visible, False, mentions, qualifier))


def _qualified_start(span: Sequence[Token], k: int) -> int:
    """Where the qualified name ending at k begins: back over `A::`, `ns::A::` and a class
    template's argument list (`W4A8GemmKernel<Shape<_128, _64>, C>::`)."""
    start = k
    while start >= 2 and span[start - 1].spelling == "::":
        j = start - 2
        if span[j].spelling in (">", ">>"):
            depth = 0
            while j >= 0:
                depth += {">": 1, ">>": 2, "<": -1}.get(span[j].spelling, 0)
                if depth == 0:
                    break
                j -= 1
            j -= 1  # the template's name, before its `<`
        if j < 0 or span[j].kind.name != "IDENTIFIER":
            break
        start = j
    return start


def _constexpr(span: Sequence[Token]) -> tuple[Token, tuple[Token, ...]] | None:
    """(name, expression) of `[static] constexpr TYPE NAME = EXPR`, or None."""
    words = [t.spelling for t in span[:3]]
    if "constexpr" not in words:
        return None
    for k in range(1, len(span) - 1):
        s = span[k].spelling
        if s in ("(", "{", "[", "<", ";"):
            return None
        if s == "=":
            name = span[k - 1]
            return (name, tuple(span[k + 1 :])) if name.kind.name == "IDENTIFIER" else None
    return None


def read_body(toks: Sequence[Token]) -> Body:
    """The calls and aliases of a function body (its tokens from `{` to `}`)."""
    walker = _Walker(toks)
    if toks and toks[0].spelling == "{":
        walker.block(0, ())
    return walker.body


__all__ = ["Alias", "Body", "Call", "pretty", "read_body", "split_args"]
