"""`--statistics`: how many findings of each rule, most frequent first, as ruff counts them.

    4  CUT101  error    smem-exceeds-optin
    4  CUT104  warning  stage-budget-undercount

With `--format json`, the same as a JSON list of {rule, name, severity, count}.
"""

from __future__ import annotations

import json
from collections import Counter

from cutlint.records import CheckResult, Diagnostic
from cutlint.report.style import PLAIN, Style


def counts(result: CheckResult) -> list[tuple[Diagnostic, int]]:
    """(a finding of the rule, how many) per rule: by count, then by rule id."""
    diags = result.all_diagnostics()
    by_rule = Counter(d.rule for d in diags)
    first = {d.rule: d for d in reversed(diags)}
    return [(first[rule], n) for rule, n in sorted(by_rule.items(), key=lambda x: (-x[1], x[0]))]


def render(result: CheckResult, fmt: str = "text", style: Style = PLAIN) -> str:
    rows = counts(result)
    if fmt == "json":
        data = [
            {"rule": d.rule, "name": d.name, "severity": d.severity.value, "count": n}
            for d, n in rows
        ]
        return json.dumps(data, indent=2) + "\n"
    if not rows:
        return "no findings\n"
    width = max(len(f"{n:,}") for _, n in rows)
    lines = [
        f"{n:>{width},}  {style.rule(d.severity, d.rule)}  "
        f"{style.severity(d.severity, f'{d.severity.value:<7}')}  {d.name}"
        for d, n in rows
    ]
    return "\n".join(lines) + "\n"
