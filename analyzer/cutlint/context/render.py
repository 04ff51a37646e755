"""A resolved context as data and as one line, for the reports (which only place them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cutlint.build_context import BuildContext, Sourced, Target

_LABEL = {
    "targets": "targets",
    "gpu": "GPU",
    "cutlass_version": "CUTLASS",
    "producer": "producer",
    "release": "release",
    "jit_module": "module",
}
"""The fields the one-line form shows (the include path and defines are in JSON and SARIF)."""


def _value(v: object) -> Any:
    if isinstance(v, tuple):
        return [_value(x) for x in v]
    if isinstance(v, Target):
        return v.name
    return v


def _shown(name: str, f: Sourced[object]) -> str:
    v = f.value
    if name == "gpu" and isinstance(v, int):
        return f"sm_{v}"
    if isinstance(v, tuple):
        return ",".join(str(_value(x)) for x in v)
    return str(v)


def to_data(ctx: BuildContext) -> dict[str, dict[str, Any]]:
    """field -> {value, origin, where}: the JSON `context` object of a file."""
    return {
        name: {"value": _value(f.value), "origin": f.origin.value, "where": f.where}
        for name, f in ctx.fields().items()
    }


def line(ctx: BuildContext) -> str:
    """`GPU sm_120 (compile command), CUTLASS 4.5.0 (header), ...`: each field with its origin."""
    parts = [
        f"{_LABEL[name]} {_shown(name, f)} ({f.origin.value})"
        for name, f in ctx.fields().items()
        if name in _LABEL
    ]
    return ", ".join(parts)


def groups(contexts: Iterable[BuildContext | None]) -> list[tuple[str, int]]:
    """(line, files) per distinct one-line context, most files first."""
    counts: dict[str, int] = {}
    said: dict[int, tuple[BuildContext, str]] = {}
    """id -> (context, its line): the files of one build share their context record (the tree
    pack makes them share it), and a tree of 27,000 files has a handful of distinct ones."""
    for c in contexts:
        if c is not None:
            held = said.get(id(c))
            if held is None:
                held = said[id(c)] = (c, line(c))
            counts[held[1]] = counts.get(held[1], 0) + 1
    return ranked(counts)


def ranked(counts: dict[str, int]) -> list[tuple[str, int]]:
    """(line, files) of counted one-line contexts, most files first."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
