"""The progress bar (report/progress.py): drawn on a terminal only, fed by the check stream."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cutlint import api
from cutlint.report.progress import ERASE, Bar, wanted

FIXTURES = Path(__file__).parents[2] / "fixtures" / "sm120-blockscaled-grouped"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_drawn_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert wanted(Tty(), quiet=False)
    assert not wanted(Tty(), quiet=True)
    assert not wanted(io.StringIO(), quiet=False)  # a pipe or a log file
    monkeypatch.setenv("CI", "true")
    assert not wanted(Tty(), quiet=False)


def test_the_bar_says_files_kernels_and_eta_and_is_erased_at_the_end() -> None:
    out = Tty()
    bar = Bar(stream=out, delay=0.0, interval=0.0)
    bar.start(4)
    bar.advance(kernels=8)
    bar.advance(kernels=2)
    text = out.getvalue()
    assert text.startswith(ERASE) and "[##########..........] 2/4 files" in text
    assert "10 kernels judged" in text and "ETA" in text
    bar.close()
    assert out.getvalue().endswith(ERASE)


def test_a_short_run_draws_nothing() -> None:
    out = Tty()
    bar = Bar(stream=out)  # the default delay: a second
    bar.start(1)
    bar.advance(kernels=1)
    bar.close()
    assert out.getvalue() == ""


def test_check_reports_every_file_and_kernel() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.total = -1
            self.kernels: list[int] = []

        def start(self, total: int) -> None:
            self.total = total

        def advance(self, kernels: int = 0) -> None:
            self.kernels.append(kernels)

    seen = Recorder()
    result = api.check(FIXTURES, api.CheckOptions(jobs=0), progress=seen)
    assert seen.total == len(seen.kernels) == len(result.files) + len(result.skipped)
    assert sum(seen.kernels) == sum(len(f.instantiations) for f in result.files) > 0
