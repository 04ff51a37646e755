"""`--write-baseline` / `--baseline FILE`: CI reports only the findings that are new."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api, baseline
from cutlint.cli import main
from cutlint.report import sarif

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.6.3.cu"
NEW_FAILURE = """
#if defined(ENABLE_FP4)
INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, EpilogueOpDefault,
        FINALIZE, 256, 128, 128, 1, 1, 1, false, false, false, false);
#endif
"""
"""The 0.6.3 headline tile again, with a half output: a failure the baseline has not seen."""


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one generated file, as the current directory."""
    (tmp_path / "gen").mkdir()
    shutil.copy(HEADLINE, tmp_path / "gen" / "kernels.cu")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*extra: str) -> Any:
    return invoke("check", "gen", "--arch", "sm_120", "--cutlass-version", "4.2.1", *extra)


def test_write_then_check_reports_nothing_new(project: Path) -> None:
    assert check().exit_code == 1
    out = check("--baseline", "cutlint-baseline.json", "--write-baseline")
    assert out.exit_code == 0 and out.stdout == ""
    assert "wrote 4 finding(s) to cutlint-baseline.json" in out.stderr
    data = json.loads((project / "cutlint-baseline.json").read_text())
    assert data["version"] == baseline.BASELINE_VERSION and data["tool"] == "cutlint"
    assert [(e["rule"], e["path"], e["line"]) for e in data["findings"]] == [
        ("CUT101", "gen/kernels.cu", 19),
        ("CUT104", "gen/kernels.cu", 19),
        ("CUT101", "gen/kernels.cu", 41),
        ("CUT104", "gen/kernels.cu", 41),
    ]
    out = check("--baseline", "cutlint-baseline.json")
    assert out.exit_code == 0
    assert "; 4 in baseline" in out.output
    assert "line 19" not in out.output and "line 41" not in out.output


def test_a_new_finding_is_reported_and_old_ones_survive_line_shifts(project: Path) -> None:
    check("--baseline", "b.json", "--write-baseline")
    source = project / "gen" / "kernels.cu"
    text = source.read_text()
    head, tail = text.split("} // namespace cutlass_kernels_oss")
    source.write_text(
        "// regenerated\n// with a longer header\n"
        + head
        + NEW_FAILURE
        + "} // namespace cutlass_kernels_oss"
        + tail
    )
    out = check("--baseline", "b.json", "--format", "json")
    assert out.exit_code == 1
    data = json.loads(out.output)
    found = [(f["rule"], f["line"]) for i in data["instantiations"] for f in i["findings"]]
    assert [r for r, _ in found] == ["CUT101", "CUT104"]
    assert data["summary"]["baselined"] == 4
    assert found[0][1] > 60  # the new instantiation, after the shifted old ones


def test_baseline_fingerprints_are_sarifs(project: Path) -> None:
    check("--baseline", "b.json", "--write-baseline")
    written = {e["fingerprint"] for e in json.loads((project / "b.json").read_text())["findings"]}
    log = json.loads(check("--format", "sarif").output)
    in_sarif = {r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in log["runs"][0]["results"]}
    assert written == in_sarif
    assert (
        json.loads(check("--format", "sarif", "--baseline", "b.json").output)["runs"][0]["results"]
        == []
    )


def test_unreadable_input_is_never_baselined(project: Path) -> None:
    out = invoke("check", "gen", "missing.cu", "--baseline", "b.json", "--write-baseline")
    assert out.exit_code == 0
    rules = {e["rule"] for e in json.loads((project / "b.json").read_text())["findings"]}
    assert "CUT001" not in rules
    assert (
        CliRunner().invoke(main, ["check", "gen", "missing.cu", "--baseline", "b.json"]).exit_code
        == 2
    )


def test_select_and_ignore_apply_before_the_baseline(project: Path) -> None:
    check("--baseline", "b.json", "--write-baseline", "--select", "CUT104")
    out = check("--baseline", "b.json")
    assert out.exit_code == 1 and "; 2 in baseline" in out.output and "CUT101" in out.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        ("not json", "cannot be read"),
        ('{"version": 2, "findings": []}', "version 2"),
        ('{"version": 1, "findings": [{"fingerprint": 1}]}', "not a cutlint baseline"),
    ],
)
def test_bad_baseline_is_a_usage_error(project: Path, content: str | None, message: str) -> None:
    path = project / "b.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(baseline.BaselineError, match=message):
        baseline.load(path)
    out = CliRunner().invoke(main, ["check", "gen", "--baseline", "b.json"])
    assert out.exit_code == 2 and message in out.output


def test_write_baseline_needs_a_file(project: Path) -> None:
    out = CliRunner().invoke(main, ["check", "gen", "--write-baseline"])
    assert out.exit_code == 2 and "--baseline" in out.output


def test_apply_moves_accepted_findings_aside(tmp_path: Path) -> None:
    result = api.check([HEADLINE], api.CheckOptions(arch="sm_120", cutlass_version="4.2.1"))
    everything = baseline.from_result(result)
    filtered = baseline.apply(result, everything)
    assert filtered.all_diagnostics() == []
    assert len(filtered.baselined) == len(result.all_diagnostics()) == 4
    assert [r.verdict for f in filtered.files for r in f.instantiations] == [
        r.verdict for f in result.files for r in f.instantiations
    ]
    baseline.write(everything, tmp_path / "b.json")
    assert baseline.load(tmp_path / "b.json") == everything
