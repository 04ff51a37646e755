"""`--statistics`: how many findings of each rule, most frequent first, as ruff counts them.

    4  CUT101  error    smem-exceeds-optin
    4  CUT104  warning  stage-budget-undercount

With `--format json`, the same as a JSON list of {rule, name, severity, count}.

A check streams it (report.STREAMED's way): each file's counts are made where the file is judged
(`Parts`) and summed as they come (`Stream`), so no result is held.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from cutlint.records import CheckResult, FileResult, Severity
from cutlint.report import NO_END, Ending
from cutlint.report.style import PLAIN, Style

if TYPE_CHECKING:
    from cutlint.report.style import Shown


@dataclass(frozen=True)
class Rule:
    """A rule as a finding of it names it: what a line of the statistics shows beside the count."""

    rule: str
    name: str
    severity: Severity


def counted(f: FileResult) -> tuple[tuple[Rule, int], ...]:
    """One file's findings, counted by rule, in the order the rules first occur in it."""
    counts: dict[Rule, int] = {}
    for diags in (f.diagnostics, *(r.diagnostics for r in f.instantiations)):
        for d in diags:
            rule = Rule(d.rule, d.name, d.severity)
            counts[rule] = counts.get(rule, 0) + 1
    return tuple(counts.items())


class Parts:
    """Each file's piece of the streamed statistics: its counts (report.pieces' `Parts`)."""

    def __init__(self, shown: Shown) -> None:
        del shown  # the counts are the same however the report is shown

    def part(self, f: FileResult) -> tuple[tuple[Rule, int], ...]:
        return counted(f)


class Stream:
    """The statistics summed file by file; a rule is named as its first finding names it."""

    def __init__(self, fmt: str, style: Style = PLAIN) -> None:
        self.fmt = fmt
        self.style = style
        self.counts: Counter[str] = Counter()
        self.first: dict[str, Rule] = {}

    def add_piece(self, piece: tuple[tuple[Rule, int], ...]) -> None:
        for rule, n in piece:
            self.counts[rule.rule] += n
            self.first.setdefault(rule.rule, rule)

    def rows(self) -> list[tuple[Rule, int]]:
        """(the rule, how many) per rule: by count, then by rule id."""
        ordered = sorted(self.counts.items(), key=lambda x: (-x[1], x[0]))
        return [(self.first[rule], n) for rule, n in ordered]

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        del end  # the files' findings only, as render counts them
        out.write(_rendered(self.rows(), self.fmt, self.style))


def _summed(result: CheckResult, fmt: str = "text", style: Style = PLAIN) -> Stream:
    stream = Stream(fmt, style)
    for f in result.files:
        stream.add_piece(counted(f))
    return stream


def counts(result: CheckResult) -> list[tuple[Rule, int]]:
    """(the rule, how many) per rule of a whole result: by count, then by rule id."""
    return _summed(result).rows()


def render(result: CheckResult, fmt: str = "text", style: Style = PLAIN) -> str:
    out = io.StringIO()
    _summed(result, fmt, style).finish(out)
    return out.getvalue()


def _rendered(rows: list[tuple[Rule, int]], fmt: str, style: Style) -> str:
    if fmt == "json":
        data = [
            {"rule": r.rule, "name": r.name, "severity": r.severity.value, "count": n}
            for r, n in rows
        ]
        return json.dumps(data, indent=2) + "\n"
    if not rows:
        return "no findings\n"
    width = max(len(f"{n:,}") for _, n in rows)
    lines = [
        f"{n:>{width},}  {style.rule(r.severity, r.rule)}  "
        f"{style.severity(r.severity, f'{r.severity.value:<7}')}  {r.name}"
        for r, n in rows
    ]
    return "\n".join(lines) + "\n"
