"""Every output format, rendered from the one shared result, reports the same findings."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, get_args
from urllib.parse import unquote, urlparse

from cutlint import baseline
from cutlint.config import Format
from cutlint.records import CheckResult, Severity, Verdict
from cutlint.report import REPORTERS, github, sarif, text
from cutlint.report import json as json_report
from cutlint.report.tally import unjudged_only

Finding = tuple[str, str, int | None]
"""(rule, absolute path, line)"""


def _abs(path: str, base: Path) -> str:
    p = Path(path)
    return str((p if p.is_absolute() else base / p).resolve())


def from_result(result: CheckResult) -> Counter[Finding]:
    return Counter((d.rule, _abs(d.path, Path.cwd()), d.line) for d in result.all_diagnostics())


def from_json(out: str) -> Counter[Finding]:
    data = json.loads(out)
    rows = [d for f in data["files"] for d in f["diagnostics"]]
    rows += [d for i in data["instantiations"] for d in i["findings"]]
    return Counter((d["rule"], _abs(d["path"], Path.cwd()), d["line"]) for d in rows)


def _sarif_path(location: dict[str, Any], root: Path) -> str:
    artifact = location["physicalLocation"]["artifactLocation"]
    if "uriBaseId" in artifact:
        assert artifact["uriBaseId"] == sarif.SRCROOT
        return _abs(unquote(artifact["uri"]), root)
    return unquote(urlparse(artifact["uri"]).path)


def from_sarif(out: str, root: Path) -> Counter[Finding]:
    run = json.loads(out)["runs"][0]
    found: Counter[Finding] = Counter()
    for r in run["results"]:
        region = r["locations"][0]["physicalLocation"].get("region")
        found[
            (r["ruleId"], _sarif_path(r["locations"][0], root), region and region["startLine"])
        ] += 1
    return found


ANNOTATION = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def _unescape(value: str) -> str:
    for escaped, char in (("%2C", ","), ("%3A", ":"), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%")):
        value = value.replace(escaped, char)
    return value


def parse_annotations(out: str) -> list[tuple[str, dict[str, str], str]]:
    parsed = []
    for line in out.splitlines():
        m = ANNOTATION.match(line)
        if m:
            props = dict(kv.split("=", 1) for kv in m[2].split(","))
            parsed.append((m[1], {k: _unescape(v) for k, v in props.items()}, _unescape(m[3])))
    return parsed


def from_github(out: str, root: Path) -> Counter[Finding]:
    found: Counter[Finding] = Counter()
    for _, props, _ in parse_annotations(out):
        line = int(props["line"]) if "line" in props else None
        found[(props["title"].split()[0], _abs(props["file"], root), line)] += 1
    return found


TEXT_FINDING = re.compile(r"^  (?:line (\d+)|file): (\w+) (CUT\d{3}) ")
TEXT_COLLAPSED = re.compile(r"^  (\d+) instantiations? not modeled \(CUT010, lines ([\d, ]+)\)")


def from_text(out: str) -> Counter[Finding]:
    found: Counter[Finding] = Counter()
    for block in out.split("\n\n")[:-1]:  # the last block is the summary
        head, *lines = block.splitlines()
        path = _abs(head, Path.cwd())
        for line in lines:
            if m := TEXT_FINDING.match(line):
                found[(m[3], path, int(m[1]) if m[1] else None)] += 1
            elif m := TEXT_COLLAPSED.match(line):
                for n in m[2].split(", "):
                    found[("CUT010", path, int(n))] += 1
    return found


def test_every_format_reports_the_same_findings(shared_result: CheckResult) -> None:
    root = Path(shared_result.root or ".")
    expected = from_result(shared_result)
    assert len(expected) > 10
    assert from_json(json_report.render(shared_result)) == expected
    assert from_sarif(sarif.render(shared_result), root) == expected
    assert from_github(github.render(shared_result), root) == expected
    assert from_text(text.render(shared_result, show_unjudged=True)) == expected


def test_text_collapses_unjudged_files_into_one_line_per_reason(shared_result: CheckResult) -> None:
    """By default the files with nothing judged are one line per reason, and their findings are
    counted there; every other file keeps its block."""
    folded = text.render(shared_result)
    full = text.render(shared_result, show_unjudged=True)
    assert "--show-unjudged" in folded and "--show-unjudged" not in full
    counted = sum(
        int(m[1].replace(",", ""))
        for m in re.finditer(r"^(\d[\d,]*) instantiations? not modeled \(CUT010\)", folded, re.M)
    )
    unjudged = [f for f in shared_result.files if unjudged_only(f)]
    assert counted == sum(
        1 for f in unjudged for r in f.instantiations if r.verdict is Verdict.NOT_MODELED
    )


def test_the_shared_result_covers_what_the_formats_must_handle(shared_result: CheckResult) -> None:
    diags = shared_result.all_diagnostics()
    assert {d.severity for d in diags} == set(Severity)
    assert any(d.line is None for d in diags), "a file-level finding without a line"
    assert any(r.not_modeled for f in shared_result.files for r in f.instantiations)
    assert any(d.rule == "CUT001" for d in diags), "a path outside the project root"
    assert all(d.fingerprint for d in diags)


def test_levels_agree_with_severities(shared_result: CheckResult) -> None:
    diags = [d for d in shared_result.all_diagnostics()]
    results = json.loads(sarif.render(shared_result))["runs"][0]["results"]
    annotations = parse_annotations(github.render(shared_result))
    assert [r["level"] for r in results] == [
        sarif.LEVEL[d.severity] for d in _in_order(shared_result)
    ]
    assert [a[0] for a in annotations] == [
        github.LEVEL[d.severity] for d in _in_order(shared_result)
    ]
    assert sorted(sarif.LEVEL[d.severity] for d in diags) == sorted(r["level"] for r in results)
    assert {sarif.LEVEL[s] for s in Severity} == {"error", "warning", "note"}
    assert {github.LEVEL[s] for s in Severity} == {"error", "warning", "notice"}


def _in_order(result: CheckResult) -> list[Any]:
    """Report order: file by file, each file's findings by line (file-level ones first)."""
    out: list[Any] = []
    for f in result.files:
        found = list(f.diagnostics) + [d for r in f.instantiations for d in r.diagnostics]
        out.extend(sorted(found, key=lambda d: d.line or 0))
    return out


def test_fingerprints_are_the_same_in_json_sarif_and_the_baseline(
    shared_result: CheckResult,
) -> None:
    in_json = sorted(
        d["fingerprint"]
        for d in [
            *(
                d
                for f in json.loads(json_report.render(shared_result))["files"]
                for d in f["diagnostics"]
            ),
            *(
                d
                for i in json.loads(json_report.render(shared_result))["instantiations"]
                for d in i["findings"]
            ),
        ]
    )
    results = json.loads(sarif.render(shared_result))["runs"][0]["results"]
    in_sarif = sorted(r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in results)
    assert in_json == in_sarif
    assert all(
        r["partialFingerprints"]["primaryLocationLineHash"]
        == r["partialFingerprints"][sarif.FINGERPRINT_KEY]
        for r in results
    )
    in_baseline = {e.fingerprint for e in baseline.from_result(shared_result).findings}
    assert in_baseline == set(in_json) - {
        d.fingerprint for d in shared_result.all_diagnostics() if d.rule == "CUT001"
    }
    assert len(set(in_json)) == len(in_json), "fingerprints are unique within a run"


def test_baselined_findings_are_counted_in_every_summary(shared_result: CheckResult) -> None:
    accepted = baseline.Baseline(
        findings=tuple(
            e for e in baseline.from_result(shared_result).findings if e.rule == "CUT101"
        )
    )
    filtered = baseline.apply(shared_result, accepted)
    n = len(accepted.findings)
    assert n == 3
    assert f"; {n} in baseline" in text.render(filtered)
    assert f"; {n} in baseline" in github.render(filtered)
    assert json.loads(json_report.render(filtered))["summary"]["baselined"] == n
    assert json.loads(sarif.render(filtered))["runs"][0]["properties"]["baselined"] == n
    assert "CUT101" not in {d.rule for d in filtered.all_diagnostics()}
    assert from_result(filtered) == from_result(shared_result) - Counter(
        (d.rule, _abs(d.path, Path.cwd()), d.line)
        for d in shared_result.all_diagnostics()
        if d.rule == "CUT101"
    )


def test_the_config_names_every_format() -> None:
    assert set(get_args(Format)) == set(REPORTERS)
