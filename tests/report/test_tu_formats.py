"""`check -p BUILD_DIR --tu`: the kernels the TU front end reads appear in every output format,
each renderer's own (report/tu.py holds what they share). On the recorded vLLM 0.34.0 kernels
(tests/data/nvcc_tu_vllm_truth.json: the builders clang resolved, nvcc's numbers), so neither
libclang nor a compiler runs: the 16 kernels of `scaled_mm_sm120_fp8.cu` on sm_120a, modeled by
sm120-dense-gemm, and one SM90 kernel of `scaled_mm_sm90_fp8.cu` judged against sm_120's limit,
which fails (CUT211)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.engine.tu_judge import judge, judge_kernel
from cutlint.records import CheckResult
from cutlint.report import write
from cutlint.report.located import findings
from cutlint.tu_records import CallSite, TuJudged, TuRead, TuSection
from tests.tools.tu_truth import entry_for, truth_read

SM120 = "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8_dispatch.cuh"


def _placed(read: TuRead, root: Path, line: int) -> TuRead:
    """The kernels chosen at `root/SM120:line+i`, under a recorded-looking dispatch condition."""
    kernels = []
    for i, k in enumerate(read.kernels):
        site = CallSite(
            path=str(root / SM120),
            line=line + i,
            call="cutlass_gemm_caller<Gemm>(...)",
            conditions=(f"m <= {16 << (i % 4)}", "bias"),
        )
        kernels.append(k.model_copy(update={"paths": ((site,),)}))
    return read.model_copy(update={"kernels": tuple(kernels)})


def section(root: Path, line: int = 150) -> TuSection:
    sm120 = _placed(truth_read(entry_for("scaled_mm_sm120_fp8.cu"), root / "inc"), root, line)
    sm90 = _placed(truth_read(entry_for("scaled_mm_sm90_fp8.cu"), root / "inc"), root, line + 40)
    big = sm90.kernels[0]
    failing = sm90.model_copy(update={"kernels": (big,), "arch": "sm_120a"})
    units = (
        TuJudged(read=sm120, verdicts=judge(sm120)),
        TuJudged(read=failing, verdicts=(judge_kernel(big, "sm_120a"),)),
    )
    return TuSection(database=str(root / "build"), found=3, read=True, gpu="sm_120", units=units)


def _render(fmt: str, root: Path, tus: TuSection, quiet: bool = False) -> str:
    out = io.StringIO()
    write(fmt, CheckResult(files=(), root=str(root)), out, quiet=quiet, tus=tus)
    return out.getvalue()


@pytest.fixture
def tus(tmp_path: Path) -> TuSection:
    return section(tmp_path)


def test_json_lists_every_kernel_with_dispatch_numbers_verdict_and_model(
    tmp_path: Path, tus: TuSection
) -> None:
    data = json.loads(_render("json", tmp_path, tus))
    section_: dict[str, Any] = data["translation_units"]
    assert section_["read"] is True and section_["found"] == 3 and section_["gpu"] == "sm_120"
    assert section_["kernels"] == 17
    assert section_["by_verdict"] == {"fails initialize()": 1, "fits": 16}
    assert section_["modeled"] == 16
    sm120, sm90 = section_["units"]
    assert sm120["arch"] == "sm_120a" and len(sm120["kernels"]) == 16
    k = sm120["kernels"][0]
    assert k["path"] == str(tmp_path / SM120) and k["line"] == 150
    assert k["type_expr"].startswith("typename ::vllm::sm120_fp8_config_")
    assert k["dispatch"] == ["m <= 16 && bias"]
    assert k["smem_bytes"] == k["model"]["shared_storage"] and k["smem_limit"] == 101376
    assert k["smem_slack"] == 101376 - k["smem_bytes"]
    assert k["verdict"] == "fits" and k["explained_by"] == "sm120-dense-gemm"
    assert k["model"]["equals_measured"] is True and k["model"]["breakdown"]
    assert k["stages"] == k["model"]["stages"] and k["findings"] == []
    [bad] = sm90["kernels"]
    assert bad["verdict"] == "fails initialize()" and bad["explained_by"] == "measured"
    assert [f["rule"] for f in bad["findings"]] == ["CUT211"]


def test_json_without_a_database_has_no_translation_units(tmp_path: Path) -> None:
    out = io.StringIO()
    write("json", CheckResult(files=(), root=str(tmp_path)), out)
    assert json.loads(out.getvalue())["translation_units"] is None


def test_json_of_tus_counted_not_read(tmp_path: Path) -> None:
    counted = TuSection(database="build", found=10, read=False)
    data = json.loads(_render("json", tmp_path, counted))["translation_units"]
    assert (data["found"], data["read"], data["kernels"], data["units"]) == (10, False, 0, [])


def test_sarif_results_are_the_findings_and_every_kernel_is_a_run_property(
    tmp_path: Path, tus: TuSection
) -> None:
    run = json.loads(_render("sarif", tmp_path, tus))["runs"][0]
    [result] = run["results"]  # a fitting kernel is no result, as a fitting instantiation
    assert result["ruleId"] == "CUT211" and result["level"] == "error"
    rules = run["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["id"] == "CUT211"
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": SM120, "uriBaseId": "SRCROOT"}
    assert where["region"] == {"startLine": 190}
    assert "scaled_mm_sm90_fp8" not in result["message"]["text"]
    assert "sm90_fp8_config" in result["message"]["text"]
    assert result["partialFingerprints"]["primaryLocationLineHash"].endswith(":1")
    props = run["properties"]["translationUnits"]
    assert props["kernels"] == 17 and len(props["units"][0]["kernels"]) == 16


def test_sarif_with_tu_kernels_validates_against_the_schema(tmp_path: Path, tus: TuSection) -> None:
    from tests.report.test_sarif import schema_errors

    assert schema_errors(json.loads(_render("sarif", tmp_path, tus))) == []


def test_sarif_is_the_indented_dump_of_its_whole_run(
    tmp_path: Path, tus: TuSection, shared_result: CheckResult
) -> None:
    """report/sarif.py `Stream` writes the files' results, each made apart (in the worker that
    judged the file), into the document around them: byte for byte `json.dumps(..., indent=2)`
    of the whole run, which is what the held report wrote, with the files' results, the TUs',
    both, or none."""
    from cutlint.report import sarif

    empty = CheckResult(files=(), root=str(tmp_path))
    for result, section_, results in (
        (shared_result, tus, len(list(findings(shared_result))) + 1),
        (shared_result, None, len(list(findings(shared_result)))),
        (empty, tus, 1),
        (empty, None, 0),
    ):
        out = sarif.render(result, section_)
        assert out == json.dumps(json.loads(out), indent=2) + "\n"
        assert len(json.loads(out)["runs"][0]["results"]) == results


def test_a_tu_finding_keeps_its_fingerprint_when_lines_move(tmp_path: Path) -> None:
    def fingerprint(line: int) -> str:
        run = json.loads(_render("sarif", tmp_path, section(tmp_path, line)))["runs"][0]
        return str(run["results"][0]["partialFingerprints"]["primaryLocationLineHash"])

    assert fingerprint(150) == fingerprint(170)


def test_concise_has_one_line_per_kernel_and_quiet_keeps_the_failure(
    tmp_path: Path, tus: TuSection
) -> None:
    lines = _render("concise", tmp_path, tus).splitlines()
    kernels = [x for x in lines if ": kernel: " in x]
    assert len(kernels) == 16
    assert kernels[0].startswith(f"{tmp_path / SM120}:150:1: kernel: typename ::vllm::")
    assert "fits on sm_120a" in kernels[0] and "(modeled by sm120-dense-gemm)" in kernels[0]
    assert kernels[0].endswith("when m <= 16 && bias")
    [fail] = [x for x in lines if " CUT211 error: " in x]
    assert fail.startswith(f"{tmp_path / SM120}:190:1: CUT211 error: needs ")
    assert "(measured, not explained)" in fail
    assert lines[-1].startswith("17 kernel(s) in 2 translation unit(s) read by the TU front end")
    assert "1 fails initialize(), 16 fits" in lines[-1]
    quiet = _render("concise", tmp_path, tus, quiet=True).splitlines()
    assert quiet == [fail]


def test_github_annotates_the_failing_kernel(tmp_path: Path, tus: TuSection) -> None:
    out = _render("github", tmp_path, tus)
    errors = [x for x in out.splitlines() if x.startswith("::error ")]
    assert len(errors) == 1 and f"file={SM120},line=190" in errors[0]
    assert "title=CUT211 " in errors[0]
    assert "17 kernel(s) in 2 translation unit(s)" in out


def test_text_prints_the_reads_as_cutlint_tu(tmp_path: Path, tus: TuSection) -> None:
    out = _render("text", tmp_path, tus)
    assert "16 CUTLASS kernel(s)" in out
    assert "modeled by sm120-dense-gemm" in out and "equals the measured layout" in out
    assert "when m <= 16 && bias" in out
    assert "fails initialize()" in out
