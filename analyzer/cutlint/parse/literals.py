"""C++ numbers and tokens as the compiler reads them ([lex.icon], [lex.pptoken]).

An argument is text; before cutlint treats it as a number it asks what the compiler would: is it
an integer literal, what is it worth, and can the type it is converted to hold it. A value is
never computed from more digits than 64 bits need, so no input can make a conversion slow or
raise (Python refuses to convert more than 4,300 decimal digits).

`tokens` splits text into preprocessing tokens and says which character is none: what is left
of a template argument after that is for the compiler's parser, which cutlint does not imitate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

INT_MAX = 2**31 - 1
"""`int` is 32 bits on every host and device CUDA compiles for (LP64 and LLP64 alike)."""
ULLONG_MAX = 2**64 - 1
"""The largest value of any standard integer type (`unsigned long long`, 64 bits)."""

# [lex.icon]: an integer literal, digit separators allowed, with its suffix.
_INTEGER = re.compile(
    r"(?:0[xX](?P<hex>[0-9a-fA-F](?:'?[0-9a-fA-F])*)"
    r"|0[bB](?P<bin>[01](?:'?[01])*)"
    r"|(?P<oct>0(?:'?[0-7])*)"
    r"|(?P<dec>[1-9](?:'?[0-9])*))"
    r"(?P<suffix>[uU](?:ll|LL|l|L|z|Z)?|(?:ll|LL|l|L|z|Z)[uU]?)?"
)
# [lex.fcon]: a floating literal (decimal or hexadecimal), for telling a pp-number that is a
# number from one that is not.
_FLOAT = re.compile(
    r"(?:(?:[0-9](?:'?[0-9])*)?\.[0-9](?:'?[0-9])*(?:[eE][+-]?[0-9](?:'?[0-9])*)?|[0-9](?:'?[0-9])*\.?(?:[eE][+-]?[0-9](?:'?[0-9])*)"
    r"|[0-9](?:'?[0-9])*\.(?:[eE][+-]?[0-9](?:'?[0-9])*)?"
    r"|0[xX](?:[0-9a-fA-F](?:'?[0-9a-fA-F])*)?\.?[0-9a-fA-F]*(?:'?[0-9a-fA-F])*[pP][+-]?[0-9](?:'?[0-9])*)"
    r"(?:[fFlL]|f16|f32|f64|f128|bf16|F16|F32|F64|F128|BF16)?"
)
_BITS_PER_DIGIT = {"hex": 4, "bin": 1, "oct": 3}
_BASE = {"hex": 16, "bin": 2, "oct": 8, "dec": 10}


@dataclass(frozen=True)
class Integer:
    """An integer literal: its value, or None when no integer type holds it."""

    spelled: str
    value: int | None
    """None when the literal needs more than 64 bits: "integer literal is too large to be
    represented in any integer type" (an error in clang, gcc and EDG alike)."""

    def fits(self, maximum: int) -> bool:
        return self.value is not None and self.value <= maximum


def integer(spelled: str) -> Integer | None:
    """`spelled` as an integer literal, or None when it is not one."""
    text = spelled.strip()
    if len(text) > _LONGEST_PLAIN:
        return _long_integer(text)
    m = _INTEGER.fullmatch(text)
    if m is None:
        return None
    for group, base in _BASE.items():
        digits = m.group(group)
        if digits is None:
            continue
        digits = digits.replace("'", "")
        significant = digits.lstrip("0") or "0"
        if group == "dec":
            too_long = len(significant) > 20  # ULLONG_MAX has 20 decimal digits
        else:
            too_long = len(significant) * _BITS_PER_DIGIT[group] > 64 + _BITS_PER_DIGIT[group]
        if too_long:
            return Integer(text, None)
        value = int(significant, base)
        return Integer(text, value if value <= ULLONG_MAX else None)
    return None  # unreachable: one group always matches


_LONGEST_PLAIN = 256
"""Longer than any integer literal that fits 64 bits needs to be (0b, 64 digits, 63 digit
separators, a suffix), leading zeros aside. `_INTEGER`'s repeated group keeps a backtracking
mark per character: 200 bytes each, 2.4 GB for a 10 MB argument (issue 25, item 11)."""
_LONG_SHAPE = re.compile(r"(0[xXbB])?([0-9a-fA-F']+?)([uUlLzZ]{0,3})")


def _long_integer(text: str) -> Integer | None:
    """`integer` for a long spelling, read without the backtracking regex: the digits without
    separators and leading zeros decide (more than 64 of them fit no type in any base)."""
    m = _LONG_SHAPE.fullmatch(text)
    if m is None:
        return None
    prefix, digits, suffix = m.group(1) or "", m.group(2).replace("'", ""), m.group(3)
    significant = digits.lstrip("0")
    if len(significant) > 64:
        return Integer(text, None) if _digits_of_base(prefix, significant) else None
    short = prefix + ("0" if digits.startswith("0") and not prefix else "") + significant
    found = integer((short or "0") + suffix)
    return None if found is None else Integer(text, found.value)


def _digits_of_base(prefix: str, digits: str) -> bool:
    allowed = {"0x": "0123456789abcdefABCDEF", "0b": "01"}.get(prefix.lower(), "0123456789")
    return not digits.strip(allowed)


QUOTED = 60
"""The most characters of an input text a message quotes."""


def quoted(text: str, limit: int = QUOTED) -> str:
    """`text` for a message: whole when short, else its head and tail and its length (a 10 MB
    number quoted whole made a 4 MB report, issue 25 item 11)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}...{text[-8:]} ({len(text):,} characters)"


def is_number(spelled: str) -> bool:
    """Whether `spelled` is an integer or floating literal."""
    text = spelled.strip()
    return bool(_INTEGER.fullmatch(text) or _FLOAT.fullmatch(text))


# [lex.pptoken]: what a preprocessing token may be. Identifiers take `$` (a gcc/clang/EDG
# extension every CUDA host compiler accepts) and any non-ASCII character (C++23 XID). Their
# classes are written as the ASCII characters they exclude: the same sets as
# [A-Za-z_$\u0080-\U0010ffff] and [\w$\u0080-\U0010ffff] (a test holds them equal), which cost
# 7 ms to compile at every start-up; these 0.2 ms, and they match as fast.
_IDENT_START = r"[^\x00-\x23\x25-\x40\x5b-\x5e\x60\x7b-\x7f]"
_IDENT_CONTINUE = r"[^\x00-\x23\x25-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"
_TOKEN = re.compile(
    rf"(?P<ident>{_IDENT_START}{_IDENT_CONTINUE}*)"
    r"""
    | (?P<number>\.?[0-9](?:[eEpP][+-]|'[\w]|[\w.])*)
    | (?P<literal>(?:u8|[uUL])?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)+'))
    | (?P<punct>\.\.\.|->\*|<=>|<<=|>>=|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\.\*|[-+*/%^&|~!=<>?:;,.()\[\]{}])
    | (?P<space>\s+)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str
    """"ident", "number", "literal" or "punct"."""
    text: str


def tokens(text: str) -> list[Token] | str:
    """The preprocessing tokens of `text`, or why it has none there: "`@` is not a C++ token".

    `#` and `##` are left out of the punctuators on purpose: outside a directive they are
    tokens the compiler's parser rejects."""
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            c = text[pos]
            if c in "\"'":
                return f"a {'string' if c == chr(34) else 'character'} literal is not closed"
            shown = c if c.isprintable() and not c.isspace() else f"\\x{ord(c):02x}"
            return f"`{shown}` is not a C++ token"
        kind = m.lastgroup
        assert kind is not None
        if kind != "space":
            out.append(Token(kind, m.group()))
        pos = m.end()
    return out


def number_problem(spelled: str) -> str | None:
    """Why a pp-number is no number the compiler accepts (`08`, `1x`, `0x`), or None."""
    if is_number(spelled):
        return None
    return f"`{quoted(spelled)}` is not a valid C++ number"


def template_argument_problems(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """(problem code, message) for each template argument of an explicit instantiation that no
    template can take, whatever its parameters: an empty one, a number that is none ([lex.icon],
    [lex.fcon]) or that no integer type holds. (A character that is part of no token is
    reported for the whole file, by parse/wellformed.py.) What is left
    (is it a type? does it fit the parameter?) is the compiler's, or a family's, to say."""
    out: list[tuple[str, str]] = []
    for i, arg in enumerate(args, start=1):
        if not arg.strip():
            out.append(("CUT009", f"template argument {i} is empty"))
            continue
        found = _number_problem_in(arg)
        if found is not None:
            code, why = found
            out.append((code, f"template argument {i} `{quoted(arg)}`: {why}"))
    return out


@lru_cache(maxsize=4096)
def _number_problem_in(arg: str) -> tuple[str, str] | None:
    """The first number in `arg` that is none or too large, as (code, why). Memoized: a cache's
    explicit instantiations repeat their type and tile arguments (4,578 arguments, a few hundred
    distinct, in FlashInfer 0.7.2.post1's SM120 cache)."""
    found = tokens(arg)
    if isinstance(found, str):
        return None  # a character no token has: the file-level check (wellformed) reports it
    for t in found:
        if t.kind != "number":
            continue
        bad = number_problem(t.text)
        if bad is not None:
            return "CUT009", bad
        value = integer(t.text)
        if value is not None and value.value is None:
            return "CUT011", f"`{quoted(t.text)}` is too large for any C++ integer type"
    return None
