"""Evaluate rules on one instantiation's facts, and render their message templates."""

from __future__ import annotations

import re
from collections.abc import Iterable

from cutlint.engine.schema import All, Any_, Compare, Condition, MetricRef, Not, Operand, Rule
from cutlint.families.base import Facts
from cutlint.records import Diagnostic

_OPS = {
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
}


def _value(operand: Operand, facts: Facts) -> int | bool | str:
    return facts[operand.metric] if isinstance(operand, MetricRef) else operand


def metrics_named(cond: Condition) -> list[str]:
    """Every metric a condition reads, in order (the loader checks them, explain draws them)."""
    if isinstance(cond, Compare):
        extra = [cond.operand.metric] if isinstance(cond.operand, MetricRef) else []
        return [cond.metric, *extra]
    if isinstance(cond, All):
        return [m for c in cond.all for m in metrics_named(c)]
    if isinstance(cond, Any_):
        return [m for c in cond.any for m in metrics_named(c)]
    assert isinstance(cond, Not)
    return metrics_named(cond.not_)


def holds(cond: Condition, facts: Facts) -> bool:
    if isinstance(cond, Compare):
        left, right = facts[cond.metric], _value(cond.operand, facts)
        return bool(_OPS[cond.op](left, right))
    if isinstance(cond, All):
        return all(holds(c, facts) for c in cond.all)
    if isinstance(cond, Any_):
        return any(holds(c, facts) for c in cond.any)
    assert isinstance(cond, Not)
    return not holds(cond.not_, facts)


TEMPLATE_FIELD = re.compile(r"\{([a-z_][a-z0-9_.]*)(?::([^}]*))?\}")


def render(template: str, facts: Facts) -> str:
    """`{smem.total:,}` -> `102,400`. Names are metrics; the spec is a format spec."""

    def one(m: re.Match[str]) -> str:
        value = facts[m[1]]
        return format(value, m[2] or "")

    return TEMPLATE_FIELD.sub(one, template)


def diagnose(rules: Iterable[Rule], facts: Facts, path: str, line: int | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for rule in rules:
        if rule.when is None or not holds(rule.when, facts):
            continue
        out.append(
            Diagnostic(
                rule=rule.id,
                name=rule.name,
                severity=rule.severity,
                path=path,
                line=line,
                message=render(rule.message, facts),
                why=render(rule.why, facts) if rule.why else None,
                fix=render(rule.fix, facts) if rule.fix else None,
            )
        )
    return out
