"""What to act on: the findings grouped by rule and family, with counts, for the top of the text
report, and the counts the summary shows.

Every count here is made from `CheckResult.all_diagnostics()` (the findings) or from the
instantiations' verdicts, as the JSON summary (`findings_by_rule`, `by_verdict`), the SARIF
results and `--statistics` make theirs, so that no two outputs of one run disagree. A finding
counts once per instantiation it is on; a verdict once per instantiation: an instantiation that
is never dispatched and also has 0 B slack counts under "never dispatched" among the verdicts
and under CUT102 among the findings, which is why the summary says both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from cutlint.records import CheckResult, Diagnostic, Severity
from cutlint.report.escape import display_path, printable
from cutlint.report.style import PLAIN, Style

NOT_MODELED_RULE = "CUT010"
"""The not-modeled note: said under "not judged", with its reason, not among what to act on."""
ACT_ON = (Severity.ERROR, Severity.WARNING)
"""What `-q` keeps: the failures and the warnings."""
MESSAGE_WIDTH = 160
"""A group shows its first message cut to this: the full one is in the table's lines below."""


@dataclass
class Group:
    """The findings of one rule on one family's instantiations."""

    rule: str
    name: str
    severity: Severity
    family: str
    """The claiming family's name; "input" for a finding about a whole file."""
    count: int = 0
    first: tuple[str, int | None] = ("", None)
    """(path, line) of the first finding, to jump to."""
    messages: set[str] = field(default_factory=set)


def located(result: CheckResult) -> Iterator[tuple[Diagnostic, str]]:
    """Every finding with the family it is about, in the order all_diagnostics gives them."""
    for f in result.files:
        for d in f.diagnostics:
            yield d, "input"
        for r in f.instantiations:
            family = r.recipe.family if r.recipe is not None else "unclaimed"
            for d in r.diagnostics:
                yield d, family


def groups(result: CheckResult, severities: tuple[Severity, ...] | None = None) -> list[Group]:
    """The findings (but the not-modeled notes) by rule and family: most severe first, then
    the most frequent."""
    found: dict[tuple[str, str], Group] = {}
    for d, family in located(result):
        if d.rule == NOT_MODELED_RULE or (severities is not None and d.severity not in severities):
            continue
        g = found.get((d.rule, family))
        if g is None:
            g = found[(d.rule, family)] = Group(d.rule, d.name, d.severity, family)
            g.first = (d.path, d.line)
        g.count += 1
        if len(g.messages) < 2:
            g.messages.add(d.message)
    return sorted(found.values(), key=lambda g: (-g.severity.rank, -g.count, g.rule, g.family))


def act_on(result: CheckResult, style: Style = PLAIN, quiet: bool = False) -> str | None:
    """The block that leads the text report: one line per rule and family, with its count and
    where the first one is. `quiet`: the failures and warnings only."""

    rows = groups(result, ACT_ON if quiet else None)
    if not rows:
        return None
    total = sum(g.count for g in rows)
    lines = [f"findings by rule and family ({total:,}):"]
    width = max(len(f"{g.count:,}") for g in rows)
    rule_width = max(len(f"{g.rule} {g.name}") for g in rows)
    for g in rows:
        rule = f"{g.rule} {g.name}"
        path, line = g.first
        where = display_path(path) + (f":{line}" if line else "")
        lines.append(
            f"  {g.count:>{width},}  {style.severity(g.severity, f'{g.severity.value:<7}')}  "
            f"{style.rule(g.severity, rule)}{' ' * (rule_width - len(rule))}  {printable(g.family)}"
        )
        lines.append(style.dim(f"  {' ' * width}  first at {where}"))
        sample = printable(min(g.messages))
        sample = sample if len(sample) <= MESSAGE_WIDTH else sample[: MESSAGE_WIDTH - 3] + "..."
        lines.append(style.dim(f"  {' ' * width}  {sample}"))
    return "\n".join(lines)


def by_rule(result: CheckResult) -> dict[str, int]:
    """Findings per rule id: what --statistics, JSON's findings_by_rule and SARIF count."""
    counts: dict[str, int] = {}
    for d in result.all_diagnostics():
        counts[d.rule] = counts.get(d.rule, 0) + 1
    return counts


def findings_line(result: CheckResult) -> str | None:
    """`findings: 288 CUT203, 48 CUT102` (most first): the summary's second line."""
    counts = by_rule(result)
    if not counts:
        return None
    ordered = sorted(counts.items(), key=lambda x: (-x[1], x[0]))
    return "findings (as --statistics counts them): " + ", ".join(
        f"{n:,} {rule}" for rule, n in ordered
    )
