"""CUT213: a compute capability that a source's dispatch leaves without a kernel (class B).

The parser records each function that dispatches on the device's compute capability and fails
when no branch takes it (parse/dispatch.py, records.CapabilityDispatch). For the target GPU,
the branch taken is the first whose capability range holds the GPU's and whose `#if` the build
compiles; with none, the call fails on that GPU with the function's own message. A branch's
`#if` is compiled when the run's define set holds it (the parse's verdict, `--arch`'s macros
and `-D` included) or, for a plain build switch (`defined X && X`, `defined(X)`), when the
file's compile command defines X.

Only for a GPU someone named: with cutlint's default GPU (no `--arch`, no compile command, no
path that says it) nothing is said, since the GPU the code runs on is a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import Kind, Rule
from cutlint.engine.selection import Selection
from cutlint.model.context import ModelContext
from cutlint.records import CapabilityBranch, CapabilityDispatch, Diagnostic

_SWITCH = re.compile(r"\s*defined\s*\(?\s*(\w+)\s*\)?\s*(?:&&\s*(\w+)\s*)?")


def _switch(guard: str) -> str | None:
    """The macro of a plain build switch (`defined X && X`, `defined(X)`), else None."""
    m = _SWITCH.fullmatch(guard)
    if m is None or (m[2] is not None and m[2] != m[1]):
        return None
    return m[1]


def _compiled(b: CapabilityBranch, ctx: ModelContext) -> bool:
    if b.guard is None or b.guard.active:
        return True
    switch = _switch(b.guard.text)
    return switch is not None and switch in ctx.defines


def _covers(b: CapabilityBranch, sm: int) -> bool:
    return (b.low is None or b.low <= sm) and (b.high is None or sm < b.high)


def _span(b: CapabilityBranch) -> str:
    if b.low is not None and b.high is not None:
        return f"{b.low}" if b.high == b.low + 1 else f"{b.low}-{b.high - 1}"
    if b.low is not None:
        return f">= {b.low}"
    return f"< {b.high}"


def _what(d: CapabilityDispatch, sm: int) -> str:
    """`cutlass_scaled_mm` fails at line 291 ("No compiled ... capability: 120"): the message
    with the capability where the source prints a value (the capability, in vLLM's)."""
    text = d.message.replace("{}", str(sm)).strip()
    said = f' ("{text}")' if text else ""
    return f"`{d.function or 'the dispatch'}` fails at line {d.line}{said}"


def _gap(d: CapabilityDispatch, sm: int, ctx: ModelContext) -> str | None:
    """Why capability `sm` gets no kernel from `d`, or None when a compiled branch takes it."""
    covering = [b for b in d.branches if _covers(b, sm)]
    if any(_compiled(b, ctx) for b in covering):
        return None
    if not covering:
        spans = ", ".join(sorted({_span(b) for b in d.branches}))
        return f"no branch takes capability {sm} (its branches take {spans}): {_what(d, sm)}"
    known = ctx.build is not None and ctx.build.defines is not None
    out = [_compiled_out(b, known) for b in covering]
    one = len(out) == 1
    said = out[0] if one else "; ".join(out)
    head = "the branch that takes" if one else f"the {len(out)} branches that take"
    return (
        f"{head} capability {sm} {'is' if one else 'are'} compiled out: {said}; so {_what(d, sm)}"
    )


def _compiled_out(b: CapabilityBranch, build_known: bool) -> str:
    """`if (version_num >= 120)` (`cutlass_scaled_mm_sm120`, line 246) under `#if defined X
    && X`, which this build does not define (`-DX=1` would compile it). Without a compile
    command the build's defines are not known, and the message says whose define set it is."""
    assert b.guard is not None
    switch = _switch(b.guard.text)
    enable = f" (`-D{switch}=1` would compile it)" if switch else ""
    call = f"`{b.call}`, " if b.call else ""
    whose = (
        "which this build does not define"
        if build_known
        else "which the define set does not hold (no compile command says the build's: "
        "`-p BUILD_DIR` or `-D` settles it)"
    )
    return f"`if ({b.condition})` ({call}line {b.line}) under `#if {b.guard.text}`, {whose}{enable}"


def _rule() -> Rule:
    return next(r for r in rules_by_id().values() if r.kind is Kind.DISPATCH)


def dispatch_findings(
    dispatches: tuple[CapabilityDispatch, ...], ctx: ModelContext, selection: Selection
) -> Iterator[Diagnostic]:
    """One CUT213 per dispatch that leaves the named GPU without a kernel."""
    if ctx.arch_assumed or not dispatches:
        return
    rule = _rule()
    if not selection.wants(rule.id):
        return
    for d in dispatches:
        why = _gap(d, ctx.arch.sm, ctx)
        if why is None:
            continue
        yield Diagnostic(
            rule=rule.id,
            name=rule.name,
            severity=rule.severity,
            path=d.path,
            line=d.line,
            message=f"{rule.message} ({ctx.arch.name}): {why}",
        )


__all__ = ["dispatch_findings"]
