"""verify's pipeline with the compiler replaced: a failing file costs only itself, the cache is
read before anything compiles, and no user ever sees a traceback. Needs the real launcher (the
flashinfer-python 0.6.3 wheel) for the cache key, not nvcc."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cutlint.cli import main
from cutlint.verify import run as verify_run
from cutlint.verify.nvcc_probe import ProbeError, ProbeRow, ProbeRun, moe_macro_calls


def fake_probe(failing: str, calls: list[Path]) -> Callable[..., ProbeRun]:
    """The compiler's numbers of the 102,400 B tactic; a ProbeError for paths holding `failing`."""

    def run_probe(path: Path, *args: Any, **kwargs: Any) -> ProbeRun:
        calls.append(path)
        if failing in str(path):
            raise ProbeError(f"compiling {path.name} failed (exit 1)", "error: static assertion")
        rows = tuple(
            ProbeRow(
                path=str(path),
                line=c.line,
                args=c.args,
                stages=3,
                mainloop_smem=83968,
                epilogue_smem=17408,
                kernel_smem=102400,
                kernel_align=1024,
                max_threads_per_block=384,
            )
            for c in moe_macro_calls(path.read_text())
        )
        return ProbeRun(rows, None, 0.5)

    return run_probe


@pytest.fixture
def setup(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_nvcc: Path,
    flashinfer_root: Callable[[str], Path],
) -> Callable[..., Result]:
    root = flashinfer_root("0.6.3")

    def invoke(*paths: Path, fmt: str = "json") -> Result:
        args = ["verify", *map(str, paths), "--nvcc", str(fake_nvcc), "--headers", str(root)]
        args += ["--cache-dir", str(tmp_path / "cache"), "--format", fmt]
        return CliRunner().invoke(main, args)

    return invoke


def test_a_failing_file_costs_only_itself(
    monkeypatch: pytest.MonkeyPatch,
    setup: Callable[..., Result],
    generated_file: Callable[..., Path],
) -> None:
    good, bad = generated_file("0.6.3", "good"), generated_file("0.6.3", "bad")
    calls: list[Path] = []
    monkeypatch.setattr(verify_run, "run_probe", fake_probe("/bad/", calls))
    result = setup(good, bad)
    assert result.exit_code == 2 and "Traceback" not in result.output
    data = json.loads(result.stdout)
    by_status = {Path(r["path"]).parts[-10]: r["status"] for r in data["instantiations"]}
    assert by_status == {"good": "agree", "bad": "compiler error"}
    bad_run = next(f for f in data["files"] if "/bad/" in f["path"])
    assert "failed (exit 1)" in bad_run["error"] and "static assertion" in bad_run["error"]
    assert "failed" in result.stderr  # the progress line of the failed file


def test_cached_files_are_not_compiled(
    monkeypatch: pytest.MonkeyPatch,
    setup: Callable[..., Result],
    generated_file: Callable[..., Path],
) -> None:
    path = generated_file("0.6.3")
    calls: list[Path] = []
    monkeypatch.setattr(verify_run, "run_probe", fake_probe("<none>", calls))
    first = setup(path)
    second = setup(path, fmt="text")
    assert first.exit_code == 0 and second.exit_code == 0
    assert calls == [path], "the second run reads the cache"
    assert "0 compiled" in second.stdout and "1 from the cache" in second.stdout
    # A changed file is a new key: compiled again.
    path.write_text(path.read_text() + "// edited\n")
    assert setup(path).exit_code == 0 and len(calls) == 2


def test_a_wrong_model_is_a_disagreement(
    monkeypatch: pytest.MonkeyPatch,
    setup: Callable[..., Result],
    generated_file: Callable[..., Path],
) -> None:
    """The compiler says 2 stages where the model says 3: exit 1 and the field named."""
    path = generated_file("0.6.3")
    original = fake_probe("<none>", [])

    def two_stages(p: Path, *args: Any, **kwargs: Any) -> ProbeRun:
        run = original(p)
        rows = tuple(ProbeRow(**{**r.__dict__, "stages": 2}) for r in run.rows)
        return ProbeRun(rows, None, 0.5)

    monkeypatch.setattr(verify_run, "run_probe", two_stages)
    result = setup(path, fmt="text")
    assert result.exit_code == 1
    assert "DISAGREE: stages -1" in result.stdout
