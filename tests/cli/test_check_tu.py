"""`check -p BUILD_DIR [--tu]`: the TUs whose kernels only the TU front end finds are counted,
or, with --tu, read as `cutlint tu` reads them (engine/tu_check.py). The TU is fixtures/tu's
vLLM-shaped dispatch with its stand-in kernel shell, so the parse takes seconds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.engine.tu_check import candidates, holds_builder_code

pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tu"


def _build(tmp: Path) -> Path:
    src, inc = tmp / "src", tmp / "include"
    src.mkdir()
    inc.mkdir()
    shutil.copy(FIXTURES / "dispatch_on_m.cu", src / "dispatch_on_m.cu")
    header = (FIXTURES / "include" / "fake_kernel.hpp").read_text()
    # what makes it a builder TU: CUTLASS 3.x kernels come from the CollectiveBuilder
    header += "\nnamespace fake { template <class... T> struct CollectiveBuilder {}; }\n"
    (inc / "fake_kernel.hpp").write_text(header)
    (src / "plain.cu").write_text("int plain() { return 0; }\n")
    command = f"nvcc -I{inc} -gencode arch=compute_120a,code=sm_120a -c {{}}"
    entries = [
        {"directory": str(tmp), "file": str(src / n), "command": command.format(src / n)}
        for n in ("dispatch_on_m.cu", "plain.cu")
    ]
    (tmp / "compile_commands.json").write_text(json.dumps(entries))
    return src


def test_only_the_builder_tus_are_candidates(tmp_path: Path) -> None:
    src = _build(tmp_path)
    assert holds_builder_code(src / "dispatch_on_m.cu", [tmp_path / "include"])
    assert not holds_builder_code(src / "plain.cu", [tmp_path / "include"])
    found = candidates([str(src / "dispatch_on_m.cu"), str(src / "plain.cu")], str(tmp_path))
    assert [Path(c.path).name for c in found] == ["dispatch_on_m.cu"]


def test_check_counts_them_and_tu_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    src = _build(tmp_path)
    args = ["check", str(src), "-p", str(tmp_path), "--no-config", "--no-cache"]
    counted = CliRunner().invoke(main, args)
    assert "1 translation unit of" in counted.output, counted.output
    assert "--tu reads them" in counted.output
    read = CliRunner().invoke(main, [*args, "--tu"])
    assert "--tu reads them" not in read.output
    assert "fails initialize()" in read.output, read.output  # the fixture's 131,200 B kernel
    assert read.exit_code == 1
    assert counted.exit_code == 0


def test_a_tu_built_for_another_gpu_is_not_judged_by_its_limits() -> None:
    """vLLM compiles scaled_mm_sm90_fp8.cu for 9.0a only: on sm_120 its kernels never run, so
    they are not read against sm_120's 101,376 B (every one would "fail")."""
    from cutlint.engine.tu_check import target_for
    from cutlint.tu_records import CompileCommand

    def cmd(*arches: str) -> CompileCommand:
        return CompileCommand(file="/x.cu", args=(), arches=arches, origin="test")

    assert target_for(cmd("sm_90a"), 120) is None
    assert target_for(cmd("sm_90a", "sm_100a", "sm_120a"), 120) == "sm_120a"
    assert target_for(cmd("sm_120f"), 121) == "sm_120f"
    assert target_for(cmd("sm_90a", "sm_120a"), None) == "sm_90a"
    assert target_for(cmd(), 120) == "sm_120a"


def test_tu_kernels_are_in_every_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One renderer per format: JSON's `translation_units`, SARIF's result (the failing kernel)
    and run property, concise's line (the TU cache answers after the first read)."""
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    src = _build(tmp_path)
    root = ["--root", str(tmp_path)]
    args = ["check", str(src), "-p", str(tmp_path), "--no-config", "--tu", *root]
    as_json = CliRunner().invoke(main, [*args, "--format", "json"])
    assert as_json.exit_code == 1, as_json.output
    tus = json.loads(as_json.stdout)["translation_units"]
    [unit] = tus["units"]
    assert unit["file"].endswith("dispatch_on_m.cu") and unit["arch"] == "sm_120a"
    verdicts = {k["verdict"] for k in unit["kernels"]}
    assert "fails initialize()" in verdicts
    failing = [k for k in unit["kernels"] if k["verdict"] == "fails initialize()"]
    assert all(k["dispatch"] and k["smem_bytes"] for k in failing)
    assert all(k["explained_by"] == "measured" for k in unit["kernels"])  # a stand-in shell
    sarif = CliRunner().invoke(main, [*args, "--format", "sarif"])
    run = json.loads(sarif.stdout)["runs"][0]
    tu_results = [r for r in run["results"] if r["ruleId"] in ("CUT211", "CUT212")]
    findings = [f["rule"] for k in unit["kernels"] for f in k["findings"]]
    assert sorted(r["ruleId"] for r in tu_results) == sorted(findings)
    assert sum(r["ruleId"] == "CUT211" for r in tu_results) == len(failing)
    assert run["properties"]["translationUnits"]["kernels"] == len(unit["kernels"])
    concise = CliRunner().invoke(main, [*args, "--format", "concise"])
    assert concise.stdout.count(" CUT211 error: ") == len(failing), concise.stdout
    assert "translation unit(s) read by the TU front end" in concise.stdout


@pytest.mark.parametrize("fmt", ["json", "text", "concise", "github", "sarif"])
def test_a_check_with_a_build_dir_streams_the_held_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """`-p` does not hold the result: the TUs are found from the checked paths once the files
    are done, and the streamed report ends with them as the whole result's report does (the
    check cache on: its entries answer the parent, which makes their pieces)."""
    import io

    from cutlint import api
    from cutlint.engine import tu_check
    from cutlint.engine.options import CheckOptions
    from cutlint.report import write

    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    src = _build(tmp_path)
    args = ["check", str(src), "-p", str(tmp_path), "--no-config", "--tu"]
    args += ["--root", str(tmp_path), "--format", fmt]
    CliRunner().invoke(main, args)  # fills the TU cache, which the held report's section reads
    streamed = CliRunner().invoke(main, args)
    assert streamed.exit_code == 1, streamed.output
    result = api.check(src, CheckOptions(build_dir=str(tmp_path), root=tmp_path))
    found = tu_check.candidates([f.path for f in result.files], str(tmp_path))
    # answered by the TU cache, as the check was (the report holds the front end's time)
    section = tu_check.section(found, str(tmp_path), True, None, None, use_cache=True)
    held = io.StringIO()
    write(fmt, result, held, tus=section)
    assert streamed.stdout == held.getvalue()


def test_a_tu_whose_kernels_the_scanner_read_is_not_counted(tmp_path: Path) -> None:
    """A cutlass_library kernel file holds CollectiveBuilder code at namespace scope, which the
    scanner reads and judges: it is no TU "only the TU front end instantiates" (a 90a build's
    5,900 kernel files were counted as such)."""
    from tests.engine.test_recipe_memo import KERNEL

    src = _build(tmp_path)
    kernel = src / "cutlass3x_sm100_kernel.cu"
    kernel.write_text(KERNEL % {"k": "k0", "n": 128, "a": "RowMajor", "gap": "", "carveout": ""})
    entries = json.loads((tmp_path / "compile_commands.json").read_text())
    command = entries[0]["command"].replace(entries[0]["file"], str(kernel))
    entries.append({"directory": str(tmp_path), "file": str(kernel), "command": command})
    (tmp_path / "compile_commands.json").write_text(json.dumps(entries))
    assert len(candidates([str(kernel), str(src / "dispatch_on_m.cu")], str(tmp_path))) == 2
    args = ["check", str(src), "-p", str(tmp_path), "--no-config", "--no-cache"]
    counted = CliRunner().invoke(main, [*args, "--format", "json"])
    found = json.loads(counted.stdout)
    assert any(r["path"] == str(kernel) for r in found["instantiations"])
    assert found["translation_units"]["found"] == 1, found["translation_units"]
