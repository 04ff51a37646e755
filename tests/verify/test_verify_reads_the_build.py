"""verify reads every file through check's pipeline and resolved context (issue 19): a macro
call whose `#define` is reachable only through the build's include path is read by it in both,
and the probe builds it by the same definition. The compiler is replaced (no nvcc run); the
inputs are FlashInfer 0.5.2's own generator output and launcher (its 14-parameter macro), laid
out so that only the compile command's -I reaches the launcher."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.producers.flashinfer.wheel import load_generator
from cutlint.records import CheckResult
from cutlint.verify import run as verify_run
from cutlint.verify.nvcc_probe import LAUNCHER_REL, ProbeRow, ProbeRun, moe_macro_calls
from cutlint.verify.run import VerifyOptions, verify

NV_INTERNAL = Path("flashinfer/data/csrc/nv_internal")


@pytest.fixture
def build(flashinfer_root: Callable[[str], Path], tmp_path: Path) -> tuple[Path, str, Path]:
    """(a 0.5.2 SM120 file in a flat directory, the command whose -I alone reaches 0.5.2's
    launcher, that launcher)."""
    wheel = flashinfer_root("0.5.2")
    load_generator(wheel).generate_gemm_operations(str(tmp_path / "gen"), "120;120-real")
    src = tmp_path / "src"
    src.mkdir()
    f = src / "k.cu"
    shutil.copy(next((tmp_path / "gen/gemm_grouped/120").glob("*M128_BS_group0*")), f)
    launcher = tmp_path / "inc" / LAUNCHER_REL  # no FlashInfer version file above it
    launcher.parent.mkdir(parents=True)
    shutil.copy(wheel / NV_INTERNAL / LAUNCHER_REL, launcher)
    command = f"nvcc -I{tmp_path / 'inc'} -gencode=arch=compute_120a,code=sm_120a -c {f}"
    return f, command, launcher


def _records(result: CheckResult) -> list[Any]:
    return [r.instantiation for f in result.files for r in f.instantiations]


def _fake(calls: list[dict[str, Any]]) -> Callable[..., ProbeRun]:
    def run_probe(path: Path, *args: Any, **kwargs: Any) -> ProbeRun:
        calls.append(kwargs)
        rows = tuple(
            ProbeRow(str(path), c.line, c.args, 3, 1, 1, 1, 1024, 384)
            for c in moe_macro_calls(path.read_text())
        )
        return ProbeRun(rows, None, 0.1)

    return run_probe


def test_check_and_verify_read_the_calls_by_the_same_define(
    build: tuple[Path, str, Path],
    flashinfer_root: Callable[[str], Path],
    fake_nvcc: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    f, command, launcher = build
    checked = api.check([f], api.CheckOptions(compile_command=command))
    options = VerifyOptions(
        headers=(flashinfer_root("0.6.3"),),  # a 17-parameter launcher: not the build's
        nvcc=str(fake_nvcc),
        cache_dir=tmp_path / "cache",
        compile_command=command,
    )
    # the same records: check's pipeline, the same context (verify.run.check_result)
    in_verify = verify_run.check_result([f], options.check_options())
    assert _records(in_verify) == _records(checked)
    insts = _records(checked)
    assert len(insts) == 6
    for inst in insts:
        assert inst.parameters is not None and len(inst.parameters) == 14
        assert inst.parameters[-2:] == ("MXFPX_", "BIAS_")  # 0.5.2's positions
        assert inst.defined_at.startswith(f"{launcher}:")
    # the probe patches that launcher, not the --headers' one, and the rows are compared
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(verify_run, "run_probe", _fake(calls))
    result = verify([f], options)
    assert [c["launcher"] for c in calls] == [launcher]
    assert [v.instantiation for v in result.instantiations] == insts
    assert not [d for d in result.input_diagnostics if d.rule == "CUT004"]
    assert {v.status.value for v in result.instantiations} != {"compiler error"}


def test_without_the_command_verify_read_them_by_another_define(
    build: tuple[Path, str, Path], flashinfer_root: Callable[[str], Path], fake_nvcc: Path
) -> None:
    """What the command changes: without it the -I launcher is out of reach, and the 0.6.3
    headers' release (17 parameters) reads the 14-argument calls (CUT004)."""
    f, _, _ = build
    options = VerifyOptions(headers=(flashinfer_root("0.6.3"),), nvcc=str(fake_nvcc))
    search = verify_run.HeaderSearch.from_options(options.headers, False, Path("/nonexistent"))
    result = verify_run._check([f], search, options)
    rows = [r for x in result.files for r in x.instantiations]
    assert all(r.instantiation.defined_at is None for r in rows)
    assert all("CUT004" in {d.rule for d in r.diagnostics} for r in rows)


def test_a_define_the_probe_cannot_patch_is_said_never_compared(
    build: tuple[Path, str, Path],
    flashinfer_root: Callable[[str], Path],
    fake_nvcc: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The calls read by a 14-parameter #define in a header that is no launcher, the probe's
    launcher (0.6.3's) defines 17: the file is a compiler error that says so, not a comparison
    of the compiler's reading with another."""
    f, command, launcher = build
    other = launcher.parent / "my_moe.h"
    launcher.rename(other)
    f.write_text(
        f.read_text().replace(
            f'"{LAUNCHER_REL}"',
            '"tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/my_moe.h"',
        )
    )
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(verify_run, "run_probe", _fake(calls))
    options = VerifyOptions(
        headers=(flashinfer_root("0.6.3"),),
        nvcc=str(fake_nvcc),
        cache_dir=tmp_path / "cache",
        compile_command=command,
    )
    result = verify([f], options)
    assert not calls
    (run,) = result.files
    assert run.error is not None and "14 parameters" in run.error and str(other) in run.error
    assert {v.status.value for v in result.instantiations} == {"compiler error"}


def test_a_copy_of_the_headers_launcher_keeps_the_headers(
    build: tuple[Path, str, Path],
    flashinfer_root: Callable[[str], Path],
    fake_nvcc: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The build's launcher is byte for byte the --headers' one (another unpacked wheel of the
    release): the headers' launcher is patched, and the cache keys stay those of the headers."""
    f, command, _ = build
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(verify_run, "run_probe", _fake(calls))
    options = VerifyOptions(
        headers=(flashinfer_root("0.5.2"),),
        nvcc=str(fake_nvcc),
        cache_dir=tmp_path / "cache",
        compile_command=command,
    )
    result = verify([f], options)
    assert [c["launcher"] for c in calls] == [None]
    assert len(result.instantiations) == 6
    assert "compiler error" not in {v.status.value for v in result.instantiations}


def test_the_launcher_probes_pair_rows_with_checks_records(tmp_path: Path) -> None:
    """The SM90 mixed-input and SM80 fused-MoE probes take the instantiations check found (its
    pipeline, its context) rather than parsing the files again."""
    from cutlint.records import FormKind, Instantiation, SourceSpan
    from cutlint.verify import sm80_fused_moe_probe, sm90_mixed_probe

    gone = tmp_path / "never-read.cu"  # not there: a parse would fail
    for probe, name in (
        (sm90_mixed_probe, "sm90_generic_mixed_gemm_kernelLauncher"),
        (sm80_fused_moe_probe, "sm80_generic_fused_moe_gemm_kernelLauncher"),
    ):
        inst = Instantiation(
            span=SourceSpan(path=str(gone), line=7, column=1, end_line=7),
            form=FormKind.EXPLICIT_INSTANTIATION,
            name=name,
            args=("a", "b"),
        )
        found = probe._by_file([gone], {str(gone): [inst]})
        spec = probe.spec()
        sites = (
            spec.instantiation_sites([gone], (name,), found)
            if probe is sm90_mixed_probe
            else spec.instantiation_sites([gone], found)
        )
        assert [(s.path, s.line, s.args) for s in sites] == [(gone, 7, ("a", "b"))]


def test_a_14_parameter_call_is_the_swapped_problem(build: tuple[Path, str, Path]) -> None:
    """FlashInfer 0.5.2's launcher always swaps A and B and transposes C/D (what 0.5.3 on call
    SwapAB on): its calls' epilogue SharedStorage is nvcc's 14,336 B (tests/data/
    nvcc_sm120_truth.json, rows 0.5.2), not the 13,312 B of the unswapped problem."""
    from cutlint.testing.truth import rows

    f, command, _ = build
    result = api.check([f], api.CheckOptions(compile_command=command))
    truth = {r["line"]: r for r in rows("sm120-blockscaled-grouped") if r["version"] == "0.5.2"}
    got = [r for x in result.files for r in x.instantiations]
    assert len(got) == len(truth) == 6
    for r in got:
        assert r.resources is not None
        t = truth[r.instantiation.span.line]
        assert r.resources.layout.size == t["kernel_smem"]
        assert r.resources.layout.epilogue_size == t["epilogue_smem"] == 14336
