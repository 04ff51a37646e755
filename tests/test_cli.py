"""The command line: flags, exit codes, formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from cutlint.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.6.3.cu"


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_errors_exit_1_and_fail_on_never_exits_0() -> None:
    assert (
        invoke("check", str(HEADLINE), "--cutlass-version", "4.2.1", "--arch", "sm_120").exit_code
        == 1
    )
    assert (
        invoke(
            "check",
            str(HEADLINE),
            "--cutlass-version",
            "4.2.1",
            "--arch",
            "sm_120",
            "--fail-on",
            "never",
        ).exit_code
        == 0
    )


def test_ignore_and_select() -> None:
    known = ("--arch", "sm_120", "--cutlass-version", "4.2.1")  # a context that is not guessed
    assert invoke("check", str(HEADLINE), "--ignore", "CUT101", *known).exit_code == 0
    out = invoke(
        "check",
        str(HEADLINE),
        "--select",
        "CUT104",
        "--format",
        "json",
        "--fail-on",
        "warning",
        *known,
    )
    assert out.exit_code == 1
    rules = {f["rule"] for i in json.loads(out.output)["instantiations"] for f in i["findings"]}
    assert rules == {"CUT104"}


def test_unknown_release_keeps_the_dispatch_rule_quiet() -> None:
    """The path does not name the FlashInfer release, so its dispatch table is unknown: CUT202
    says nothing rather than guess (no false positives)."""
    dispatched = FIXTURES / "sm120-blockscaled-grouped" / "CUT202-tile-not-dispatched.cu"
    assert invoke("check", str(dispatched)).exit_code == 0
    data = json.loads(invoke("check", str(dispatched), "--format", "json").output)
    assert data["summary"]["findings_by_rule"] == {}


def test_fail_on_warning_counts_warnings(tmp_path: Path) -> None:
    """The same file in a FlashInfer 0.6.3 cache: CUT202 is a warning, so only --fail-on
    warning turns it into exit 1. The dispatch table is the release's: read only off the path,
    the finding is a CUT020 note (exit 0 even then); --flashinfer-version settles it."""
    cache = (
        tmp_path / "flashinfer" / "0.6.3" / "120a" / "generated" / "cutlass_instantiations" / "120"
    )
    target = (
        cache
        / "gemm_grouped"
        / "120"
        / "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"
    )
    target.parent.mkdir(parents=True)
    target.write_text(
        (FIXTURES / "sm120-blockscaled-grouped" / "CUT202-tile-not-dispatched.cu").read_text()
    )
    guessed = ("--arch", "sm_120", "--cutlass-version", "4.2.1")  # the path says the release only
    assert invoke("check", str(target), "--fail-on", "warning", *guessed).exit_code == 0
    known = (*guessed, "--flashinfer-version", "0.6.3")
    assert invoke("check", str(target), *known).exit_code == 0
    assert invoke("check", str(target), "--fail-on", "warning", *known).exit_code == 1


def test_json_has_schema_and_required_fields() -> None:
    out = invoke(
        "check", str(HEADLINE), "--format", "json", "--cutlass-version", "4.2.1", "--arch", "sm_120"
    )
    data = json.loads(out.output)
    assert data["schema_version"] == 2
    first = data["instantiations"][0]
    for key in (
        "path",
        "line",
        "family",
        "recipe",
        "stages",
        "smem_bytes",
        "breakdown",
        "findings",
    ):
        assert key in first
    assert first["family"] == "sm120-blockscaled-grouped"
    assert set(first["recipe"]["args"]["cta_tile"]) == {"m", "n", "k"}
    assert (
        first["stage_count"]["stage_budget"]
        + first["stage_count"]["reserved"]
        + first["stage_count"]["carveout"]
        == first["stage_count"]["capacity"]
    )
    assert first["smem_bytes"] == 102400 and first["stages"] == 3
    assert sum(r["size"] for r in first["breakdown"]) == first["smem_bytes"]
    assert [f["rule"] for f in first["findings"]] == ["CUT101", "CUT104"]


def test_usage_errors_exit_2() -> None:
    assert CliRunner().invoke(main, ["check", str(HEADLINE), "--arch", "sm_99"]).exit_code == 2
    assert (
        CliRunner().invoke(main, ["check", str(HEADLINE), "--cutlass-version", "four"]).exit_code
        == 2
    )
    assert CliRunner().invoke(main, ["check"]).exit_code == 2


def test_unreadable_input_exits_2_and_keeps_other_results(tmp_path: Path) -> None:
    out = invoke("check", str(HEADLINE), str(tmp_path / "missing.cu"), "--format", "json")
    assert out.exit_code == 2
    data = json.loads(out.output)
    assert any(d["rule"] == "CUT001" for f in data["files"] for d in f["diagnostics"])
    assert len(data["instantiations"]) == 4


def test_explain_and_rules() -> None:
    assert "GemmUniversalAdapter::initialize()" in invoke("explain", "CUT101").output
    assert "CUT101" in invoke("explain", "smem-exceeds-optin").output
    assert CliRunner().invoke(main, ["explain", "CUT999"]).exit_code == 2
    listing = invoke("rules").output
    assert "CUT101" in listing and "smem-exceeds-optin" in listing


def test_an_sm120_kernel_on_another_arch_is_not_for_that_gpu() -> None:
    """sm_90's 232,448 B is not the point for an SM120 kernel: an sm_90 GPU never dispatches it
    (CUT021, never a failure), unless the build says the GPU loads its binary."""
    out = invoke("check", str(HEADLINE), "--arch", "h200", "--format", "json")
    data = json.loads(out.output)
    assert out.exit_code == 0
    assert {i["verdict"] for i in data["instantiations"]} == {"not for this GPU"}


def test_an_sm120_kernel_in_a_binary_the_gpu_loads_cannot_run() -> None:
    """Built for sm_90a (the GPU loads the binary), the SM120 kernel in it cannot run: class E."""
    command = "nvcc -gencode arch=compute_90a,code=sm_90a"
    out = invoke(
        "check", str(HEADLINE), "--arch", "sm_90", "--compile-command", command, "--format", "json"
    )
    data = json.loads(out.output)
    assert {i["verdict"] for i in data["instantiations"]} == {"fails at run time"}
