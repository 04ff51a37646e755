"""Template arguments of an explicit instantiation that nvcc rejects, or that cutlint will not
read as numbers, each named by an input rule (issue 25, item 14):

- CUT013 unbalanced-template-brackets: the `<` and `>` before the parameter list do not pair up
  (an extra `<`, a dropped `>`);
- CUT014 non-integer-template-argument: `cute::Int<256.0>`: a floating literal where
  `template <int v>` takes an integer constant ([temp.arg.nontype], [expr.const]: a converted
  constant expression allows no floating-integral conversion);
- CUT011 integer-out-of-range: `cute::Int<0x80000000>`, a value no `int` holds (narrowing);
- CUT015 unevaluated-template-argument: `cute::Int<-0>`, `cute::Int<sizeof(int)>`: C++ takes
  them, cutlint evaluates no constant expression, so the instantiation is named, not judged;
- CUT016 split-identifier: two names side by side where one is expected (`vo id`), which no
  declaration or type-id spells;
- CUT017 unknown-arch-tag: `cutlass::arch::Sm999`, a tag include/cutlass/arch/arch.h does not
  declare.

Syntax only, as the rest of the parse stage: no family and no arch model is consulted.
"""

from __future__ import annotations

import itertools
import re

from cutlint.parse import literals

ARCH_TAGS = frozenset(
    {"Sm50", "Sm60", "Sm61", "Sm70", "Sm72", "Sm75", "Sm80", "Sm86", "Sm89", "Sm90", "Sm100",
     "Sm101", "Sm103", "Sm110", "Sm120", "Sm121"}
)  # fmt: skip
"""The `cutlass::arch::SmNN` structs of include/cutlass/arch/arch.h (CUTLASS 4.x)."""

# Words that may stand beside another name in one type-id or expression.
_KEYWORDS = frozenset(
    "alignas alignof auto bool char char8_t char16_t char32_t class const constexpr decltype "
    "double enum float int long noexcept short signed sizeof struct typename union unsigned "
    "void volatile wchar_t __int128 template operator".split()
)
_INT = re.compile(r"(?<![\w$])(?:cute::)?Int\s*<([^<>]*)>")
_ARCH = re.compile(r"(?<![\w$])cutlass\s*::\s*arch\s*::\s*(Sm\w*)")
_FLOAT = re.compile(r"^(?:[0-9]*\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)[fFlL]?$")


def bracket_problem(decl: bytes) -> str | None:
    """Why the `<`/`>` of the declaration between `template` and `;` do not pair up before its
    parameter list, or None. Counted outside parentheses: in a generated declaration every `<`
    and `>` there is a template bracket (a `<<` or `<=` is no bracket, and is reported too)."""
    opener = _parameter_list(decl)
    if opener is None:
        return None
    head = decl[:opener]
    depth, opened, closed = 0, 0, 0
    for i, c in enumerate(head):
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth = max(0, depth - 1)
        elif depth == 0 and c == 0x3C:
            opened += 1
        elif depth == 0 and c == 0x3E and (i == 0 or head[i - 1] != 0x2D):
            closed += 1
    if opened == closed:
        return None
    if opened > closed:
        return f"{opened} `<` but {closed} `>` before its parameter list: a `>` is missing"
    return f"{opened} `<` but {closed} `>` before its parameter list: a `<` is missing"


def _parameter_list(decl: bytes) -> int | None:
    """The last `(` at parenthesis depth 0: where the parameter list opens."""
    depth, last = 0, None
    for i, c in enumerate(decl):
        if c == 0x28:
            if depth == 0:
                last = i
            depth += 1
        elif c == 0x29:
            depth = max(0, depth - 1)
    return last


def argument_problems(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """(rule code, message) for each template argument below that nvcc rejects or cutlint
    does not evaluate (module docstring). One problem per argument, the first found."""
    out: list[tuple[str, str]] = []
    for i, arg in enumerate(args, start=1):
        found = _argument_problem(arg)
        if found is not None:
            code, why = found
            out.append((code, f"template argument {i} `{literals.quoted(arg)}`: {why}"))
    return out


def _argument_problem(arg: str) -> tuple[str, str] | None:
    for m in _ARCH.finditer(arg):
        if m.group(1) not in ARCH_TAGS:
            return "CUT017", f"`cutlass::arch::{m.group(1)}` is no arch tag CUTLASS declares"
    for m in _INT.finditer(arg):
        found = int_problem(m.group(1))
        if found is not None:
            return found
    return split_identifier(arg)


def int_problem(inner: str) -> tuple[str, str] | None:
    """What is wrong with the `N` of `cute::Int<N>` (`template <int v>`), or None."""
    text = inner.strip()
    spelled = literals.quoted(text)
    if _FLOAT.match(text):
        return "CUT014", (
            f"`Int<{spelled}>` takes an `int`, and `{spelled}` is a floating literal: "
            "no template argument converts it"
        )
    number = literals.integer(text)
    if number is not None and number.value is not None:
        if number.value > literals.INT_MAX:
            return "CUT011", (
                f"`{spelled}` does not fit `int` (at most {literals.INT_MAX:,}): "
                "cute::Int<int> takes it as a template argument"
            )
        return None
    if number is not None:
        return None  # too large for any type: literals.template_argument_problems says so
    return "CUT015", (
        f"`Int<{spelled}>` is a constant expression cutlint does not evaluate: "
        "the instantiation is not judged"
    )


def split_identifier(arg: str) -> tuple[str, str] | None:
    """Two names side by side, neither a keyword (`vo id`): no type-id or expression."""
    found = literals.tokens(arg)
    if isinstance(found, str):
        return None
    for a, b in itertools.pairwise(found):
        if (
            a.kind == "ident"
            and b.kind == "ident"
            and a.text not in _KEYWORDS
            and b.text not in _KEYWORDS
        ):
            return "CUT016", (
                f"`{literals.quoted(a.text)}` and `{literals.quoted(b.text)}` are two names where "
                "one is expected (a space inside a name?)"
            )
    return None
