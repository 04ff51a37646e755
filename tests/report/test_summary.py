"""Issue 25 items 18-19: the text report leads with what to act on, and every count it shows
equals the same count in JSON, SARIF and --statistics: every format renders one shared result, so no
count can drift between them."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from cutlint import api
from cutlint.records import CheckResult, Severity, Verdict
from cutlint.report import concise, sarif, statistics, summary, text
from cutlint.report import json as json_report

VERDICTS = {
    "predicted failure": None,
    "with zero slack": Verdict.ZERO_SLACK,
    "never dispatched": Verdict.UNREACHABLE,
    "not modeled": Verdict.NOT_MODELED,
    "inactive": Verdict.INACTIVE,
}


def _summary_line(out: str) -> str:
    return next(
        line for line in out.splitlines() if "predicted failure" in line and " file" in line
    )


def test_every_count_of_the_summary_is_the_same_in_every_format(
    shared_result: CheckResult,
) -> None:
    out = text.render(shared_result)
    data = json.loads(json_report.render(shared_result))["summary"]
    line = _summary_line(out)
    for words, verdict in VERDICTS.items():
        if verdict is None:
            continue
        shown = int(re.search(rf"([0-9,]+) {words}", line)[1].replace(",", ""))  # type: ignore[index]
        assert shown == data["by_verdict"].get(verdict.value, 0), words
    findings = re.search(r"^findings \(as --statistics counts them\): (.*)$", out, re.M)
    assert findings is not None
    in_text = {
        rule: int(n.replace(",", ""))
        for n, rule in re.findall(r"([0-9,]+) (CUT[0-9]+)", findings[1])
    }
    in_statistics = {d.rule: n for d, n in statistics.counts(shared_result)}
    in_sarif = Counter(
        r["ruleId"] for r in json.loads(sarif.render(shared_result))["runs"][0]["results"]
    )
    assert in_text == in_statistics == data["findings_by_rule"] == dict(in_sarif)


def test_the_report_leads_with_the_findings_by_rule_and_family(shared_result: CheckResult) -> None:
    out = text.render(shared_result)
    assert out.startswith("findings by rule and family (")
    groups = summary.groups(shared_result)
    assert sum(g.count for g in groups) == sum(
        n for rule, n in summary.by_rule(shared_result).items() if rule != "CUT010"
    )
    first_table = out.find("  line  ")
    assert first_table == -1 or all(out.find(f"{g.rule} {g.name}") < first_table for g in groups)


def test_quiet_prints_only_what_fails(shared_result: CheckResult) -> None:
    out = text.render(shared_result, quiet=True)
    assert "  line  " not in out  # no table
    assert "CUT010" not in out.split("\n\n")[0]
    for g in summary.groups(shared_result, quiet=True):
        assert f"{g.rule} {g.name}" in out
    short = concise.render(shared_result, quiet=True)
    severities = {Severity.ERROR.value, Severity.WARNING.value}
    for line in short.splitlines():
        assert line.split(": ", 2)[1].split()[-1] in severities, line


def test_rows_that_differ_only_in_a_hidden_field_are_told_apart(tmp_path: Path) -> None:
    call = (
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm100, SafeFP4, SafeFP4, half, "
        "PtrArrayTmaWarpSpecialized, EpilogueOpDefault, NONE, 128, 256, 256, 2, 1, 1, "
        "false, {dynamic}, false, false);\n"
    )
    source = tmp_path / "x.cu"
    source.write_text(call.format(dynamic="false") + call.format(dynamic="true"))
    options = api.CheckOptions(jobs=0, arch="sm_100", cutlass_version="4.5.0")
    out = text.render(api.check([source], options))
    rows = [line for line in out.splitlines() if re.match(r"\s+[12]\s+128x256x256", line)]
    assert len(rows) == 2 and rows[0] != rows[1].replace(" 2  ", " 1  ", 1)
    assert "dynamic_cga=False" in rows[0] and "dynamic_cga=True" in rows[1]
