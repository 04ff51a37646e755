"""verify's progress (report/progress.py): a line per compiled file in a CI log or a file, nothing
with -q, and the tracker (the bar on a terminal) hears every file, instantiation and compile.
The compiler is replaced (tests/verify/test_verify_pipeline.py's fake probe)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cutlint.cli import main
from cutlint.report.progress import ERASE
from cutlint.verify import run as verify_run
from tests.verify.test_verify_pipeline import fake_probe


@pytest.fixture
def invoke(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_nvcc: Path,
    flashinfer_root: Callable[[str], Path],
) -> Callable[..., Result]:
    root = flashinfer_root("0.6.3")
    monkeypatch.setattr(verify_run, "run_probe", fake_probe("<none>", []))

    def run(*paths: Path, extra: tuple[str, ...] = ()) -> Result:
        args = ["verify", *map(str, paths), "--nvcc", str(fake_nvcc), "--headers", str(root)]
        args += ["--cache-dir", str(tmp_path / "cache"), "--no-cache", *extra]
        return CliRunner().invoke(main, args)

    return run


@pytest.mark.parametrize("ci", [True, False])
def test_a_log_gets_one_line_per_compiled_file_and_no_bar(
    monkeypatch: pytest.MonkeyPatch,
    invoke: Callable[..., Result],
    generated_file: Callable[..., Path],
    ci: bool,
) -> None:
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    a, b = generated_file("0.6.3", "a"), generated_file("0.6.3", "b")
    result = invoke(a, b)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 2 and lines[0].startswith("[1/2]") and lines[1].startswith("[2/2]")
    assert ERASE not in result.stderr


def test_quiet_says_nothing(
    invoke: Callable[..., Result], generated_file: Callable[..., Path]
) -> None:
    result = invoke(generated_file("0.6.3"), extra=("-q",))
    assert result.exit_code == 0 and result.stderr == ""


def test_the_tracker_hears_every_file_instantiation_and_compile(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_nvcc: Path,
    flashinfer_root: Callable[[str], Path],
    generated_file: Callable[..., Path],
) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.totals: tuple[int, int] = (-1, -1)
            self.files = self.kernels = self.compiles = 0

        def start(self, total: int, compiles: int = 0, live: bool = False) -> None:
            self.totals = (total, compiles)

        def advance(self, kernels: int = 0, files: int = 1, compiles: int = 0) -> None:
            self.files += files
            self.kernels += kernels
            self.compiles += compiles

    monkeypatch.setattr(verify_run, "run_probe", fake_probe("<none>", []))
    root = flashinfer_root("0.6.3")
    paths = [generated_file("0.6.3", "a"), generated_file("0.6.3", "b")]
    options = verify_run.VerifyOptions(
        headers=(root,), nvcc=str(fake_nvcc), cache_dir=tmp_path / "cache"
    )
    seen = Recorder()
    result = verify_run.verify(paths, options, tracker=seen)
    assert seen.totals == (2, 2)
    assert (seen.files, seen.compiles) == (2, 2)
    assert seen.kernels == len(result.instantiations) > 0
    # a second run answers from the cache: every file is done at once, nothing to compile
    again = Recorder()
    verify_run.verify(paths, options, tracker=again)
    assert again.totals == (2, 0) and (again.files, again.compiles) == (2, 0)
