"""Two oracles beyond hostile.py's four (issue 25): each takes a real source (a fixture that
cutlint reads with no input problem) and changes it one way.

- **unnamed bad input**: a change nvcc rejects (an extra `<`, a dropped `>`, `Int<128.0>`,
  `Int<0x80000000>`, an arch tag CUTLASS does not declare, a space inside a name, an `@` in an
  argument, a byte changed, dropped or a space added in a producer macro's `INSTANTIATE_`
  prefix) must be named by an input rule (CUT001-CUT019 but the notes CUT010, CUT020, CUT021);
- **broken equivalence**: a change C++ reads the same (a line splice inside a macro name, a
  number in hex or with digit separators, digraphs for braces, brackets and directives (`%:if`,
  `%:define`, `%:%:`), CRLF line ends, a comment between arguments) must leave every instantiation's name, verdict and rules as they were.

Run in-process (`api.check`, no worker pool): a few hundred a minute.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from cutlint import api
from cutlint.sources.macro_names import PRODUCER_MACROS

FIXTURES = Path(__file__).parent.parent.parent / "fixtures"
_NOTES = {"CUT010", "CUT020", "CUT021"}
_INT = re.compile(rb"Int<([1-9][0-9]*)>")
_MACRO = re.compile(rb"INSTAN(?:TIATE|CE)_[A-Za-z0-9_]+(?=\s*\()")
_SCHEDULE = re.compile(rb"cutlass::(?:gemm|epilogue)::([A-Za-z][A-Za-z0-9]{5,})")
_ARCH = re.compile(rb"\((Sm1[02][01])\s*,")
_PRODUCER_MACRO = re.compile(
    rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in PRODUCER_MACROS) + rb")(?=\s*\()"
)
_DIRECTIVE = re.compile(rb"(?m)^([ \t]*)#")

Row = tuple[int, str, str, tuple[str, ...]]


def _is_input(rule: str) -> bool:
    return rule.startswith("CUT0") and rule not in _NOTES


def rows(path: Path) -> tuple[list[Row], list[str]]:
    """(line, name, verdict, rules) per instantiation, and the input rules of the file."""
    result = api.check([path], api.CheckOptions(jobs=0, arch="sm_120"))
    out: list[Row] = []
    inputs: list[str] = []
    for f in result.files:
        inputs += [d.rule for d in f.diagnostics if _is_input(d.rule)]
        for r in f.instantiations:
            rules = tuple(sorted(d.rule for d in r.diagnostics))
            inputs += [x for x in rules if _is_input(x)]
            out.append((r.instantiation.span.line, r.instantiation.name, r.verdict.value, rules))
    return out, inputs


@lru_cache(maxsize=1)
def seeds() -> tuple[Path, ...]:
    """The fixtures with an instantiation that is judged and no input problem at all."""
    found = []
    for path in sorted(FIXTURES.rglob("*.cu")):
        if path.parts[-2] in ("input", "bad") or (
            "parse" in path.parts[:-1] and "bad" in path.parts
        ):
            continue
        got, inputs = rows(path)
        if got and not inputs and any(v not in ("not modeled", "inactive") for _, _, v, _ in got):
            found.append(path)
    return tuple(found)


def _sub_all(
    pattern: re.Pattern[bytes], repl: Callable[[re.Match[bytes]], bytes], text: bytes
) -> bytes:
    return pattern.sub(repl, text)


BAD: dict[str, Callable[[bytes], bytes]] = {
    "extra <": lambda t: _sub_all(_INT, lambda m: b"Int<<" + m[1] + b">", t),
    "dropped >": lambda t: _sub_all(_INT, lambda m: b"Int<" + m[1], t),
    "floating extent": lambda t: _sub_all(_INT, lambda m: b"Int<" + m[1] + b".0>", t),
    "extent over INT_MAX": lambda t: _sub_all(_INT, lambda m: b"Int<0x80000000>", t),
    "unknown arch tag": lambda t: _sub_all(_ARCH, lambda m: b"(Sm999,", t),
    "space inside a name": lambda t: _sub_all(
        _SCHEDULE, lambda m: m[0][: len(m[0]) - 3] + b" " + m[0][len(m[0]) - 3 :], t
    ),
    "@ in an argument": lambda t: _sub_all(_INT, lambda m: b"Int<" + m[1] + b"@>", t),
    # A flipped byte in the prefix the parser finds macro calls by (CUT018 names it).
    "prefix byte changed": lambda t: _sub_all(
        _PRODUCER_MACRO, lambda m: m[0].replace(b"TIATE_", b"TIATF_").replace(b"CE_", b"CF_"), t
    ),
    "prefix byte dropped": lambda t: _sub_all(_PRODUCER_MACRO, lambda m: m[0][1:], t),
    "space in the prefix": lambda t: _sub_all(_PRODUCER_MACRO, lambda m: b"IN " + m[0][2:], t),
}

EQUIVALENT: dict[str, Callable[[bytes], bytes]] = {
    "splice in a macro name": lambda t: _sub_all(
        _MACRO, lambda m: m[0][:7] + b"\\\n" + m[0][7:], t
    ),
    "hex extent": lambda t: _sub_all(_INT, lambda m: b"Int<" + hex(int(m[1])).encode() + b">", t),
    "digit separators": lambda t: _sub_all(
        _INT, lambda m: b"Int<" + (m[1][:1] + b"'" + m[1][1:] if len(m[1]) > 1 else m[1]) + b">", t
    ),
    "digraph braces": lambda t: t.replace(b"{\n", b"<%\n").replace(b"\n}", b"\n%>"),
    "digraph directives": lambda t: _DIRECTIVE.sub(rb"\1%:", t).replace(b"##", b"%:%:"),
    "digraph brackets": lambda t: t.replace(b"[", b"<:").replace(b"]", b":>"),
    "CRLF": lambda t: t.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
    "comment before a comma": lambda t: _sub_all(_INT, lambda m: m[0] + b" /* , ) > */", t),
}


def one(rng: random.Random, work: Path) -> tuple[str, str | None]:
    """One change to one seed: (`kind: change on seed`, a failure or None)."""
    seed = rng.choice(seeds())
    text = seed.read_bytes()
    bad = rng.random() < 0.5
    table = BAD if bad else EQUIVALENT
    name = rng.choice(sorted(table))
    changed = table[name](text)
    what = f"{'bad' if bad else 'equivalent'}: {name} on {seed.relative_to(FIXTURES)}"
    if changed == text:
        return f"unchanged: {what}", None  # nothing to change in this seed
    path = work / "x.cu"
    # The seed as it reads in the same place: a file's context includes what lies beside it
    # (the headers it includes, whose macros say what its arguments mean).
    path.write_bytes(text)
    expected, _ = rows(path)
    path.write_bytes(changed)
    got, inputs = rows(path)
    if bad and not inputs:
        return what, f"unnamed bad input: {what}: {got[:3]}"
    if not bad and [r[1:] for r in got] != [r[1:] for r in expected]:
        return what, f"broken equivalence: {what}: {got[:3]} != {expected[:3]}"
    return what, None
