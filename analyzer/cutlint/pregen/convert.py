"""A generator's operation -> the Instantiation record `check` would read from the written file.

The operation is converted through the generator's own text for it (instantiate_operation), so
every argument is spelled exactly as in the file, and then takes the path the parser's record
takes (the family registry types it): the result cannot differ from `check`'s for the same call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from cutlint.parse import calls
from cutlint.parse.lexmask import mask
from cutlint.producers.flashinfer.enumerate import GeneratedOp
from cutlint.records import FormKind, Guard, Instantiation, SourceSpan

_MACRO = re.compile(r"(INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM)\s*\((?P<args>.*?)\)\s*;", re.S)
_GUARD = re.compile(r"^\s*#if\s+(?P<cond>.+?)\s*$", re.M)
# The guards the generator writes: `defined(ENABLE_FP4) && defined(ENABLE_FP8)`, or `1`.
_TERM = re.compile(r"defined\s*\(\s*(?P<name>\w+)\s*\)|(?P<number>\d+)")


class ConvertError(Exception):
    """An operation's text is not a form cutlint reads; says which."""


def _guard(text: str, defines: Mapping[str, str]) -> Guard | None:
    """The `#if` the generator wraps a macro call in, evaluated for `defines`.

    Only the conjunction of `defined(X)` and integer literals the generator writes is read; any
    other condition is refused rather than guessed.
    """
    m = _GUARD.search(text)
    if m is None:
        return None
    cond = m["cond"]
    value = True
    for term in (t.strip() for t in cond.split("&&")):
        t = _TERM.fullmatch(term)
        if t is None:
            raise ConvertError(f"guard `#if {cond}` is not a conjunction of defined(...) terms")
        value = value and (t["name"] in defines if t["name"] else int(t["number"]) != 0)
    return Guard(text=cond, active=value)


def _args(raw: str) -> tuple[str, ...]:
    return tuple(re.sub(r"\s+", " ", a).strip() for a in raw.split(","))


def instantiation(g: GeneratedOp, path: str, defines: Mapping[str, str]) -> Instantiation:
    """The record for one generated operation; `path` is where the file would be written."""
    macro = _MACRO.search(g.text)
    if macro is not None:
        return Instantiation(
            span=SourceSpan(path=path, line=g.line, column=g.column, end_line=g.end_line),
            form=FormKind.MACRO_CALL,
            name=macro.group(1),
            args=_args(macro["args"]),
            guard=_guard(g.text, defines),
        )
    launcher = _explicit(g.text)
    if launcher is None:
        raise ConvertError(f"{path}:{g.line}: neither a macro call nor a launcher instantiation")
    return Instantiation(
        span=SourceSpan(path=path, line=g.line, column=g.column, end_line=g.end_line),
        form=FormKind.EXPLICIT_INSTANTIATION,
        name=launcher.name,
        args=launcher.args,
    )


def _explicit(text: str) -> calls.Call | None:
    """The explicit instantiation in the generator's text, read by the parser's own scan (its
    template arguments split as `check` splits them)."""
    masked = mask(text.encode())
    found = calls.find(masked, masked.code, [])
    return next(
        (
            f
            for f in found
            if isinstance(f, calls.Call) and f.form is FormKind.EXPLICIT_INSTANTIATION
        ),
        None,
    )
