"""What to act on: the findings grouped by rule and family, with counts, for the top of the text
report, and the counts the summary shows.

Every count here is made from a `Tally` (report/tally.py) of the findings and the
instantiations' verdicts, as the JSON summary (`findings_by_rule`, `by_verdict`), the SARIF
results and `--statistics` make theirs, so that no two outputs of one run disagree. A finding
counts once per instantiation it is on; a verdict once per instantiation: an instantiation that
is never dispatched and also has 0 B slack counts under "never dispatched" among the verdicts
and under CUT102 among the findings, which is why the summary says both.
"""

from __future__ import annotations

from cutlint.records import CheckResult
from cutlint.report.escape import display_path, printable
from cutlint.report.style import PLAIN, Style
from cutlint.report.tally import Group, Tally

MESSAGE_WIDTH = 160
"""A group shows its first message cut to this: the full one is in the table's lines below."""


def tally_of(result: CheckResult, quiet: bool = False) -> Tally:
    """The counts of a whole result, file by file (no file folded, no context lines)."""
    tally = Tally(quiet=quiet)
    for f in result.files:
        tally.add(f, folded=False, context=None)
    return tally


def ranked(tally: Tally) -> list[Group]:
    """The findings (but the not-modeled notes) by rule and family: most severe first, then
    the most frequent."""
    return sorted(
        tally.groups.values(), key=lambda g: (-g.severity.rank, -g.count, g.rule, g.family)
    )


def groups(result: CheckResult, quiet: bool = False) -> list[Group]:
    """`ranked` of a whole result; `quiet`: the failures and warnings only."""
    return ranked(tally_of(result, quiet))


def act_on(tally: Tally, style: Style = PLAIN) -> str | None:
    """The block that leads the text report: one line per rule and family, with its count and
    where the first one is (a `quiet` tally: the failures and warnings only)."""
    rows = ranked(tally)
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
    return tally_of(result).rules


def findings_line(rules: dict[str, int]) -> str | None:
    """`findings: 288 CUT203, 48 CUT102` (most first): the summary's second line."""
    if not rules:
        return None
    ordered = sorted(rules.items(), key=lambda x: (-x[1], x[0]))
    return "findings (as --statistics counts them): " + ", ".join(
        f"{n:,} {rule}" for rule, n in ordered
    )
