"""The progress bar (report/progress.py): drawn on a terminal only, fed by the check stream, by
verify's compiles and by a wheel's download; off with -q, a line per finished unit in a CI log."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest

from cutlint import api
from cutlint.producers import wheels
from cutlint.report.progress import ERASE, Bar, Mode, mode, phased, wanted

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


@pytest.mark.parametrize(
    ("tty", "ci", "quiet", "lines", "expected"),
    [
        (True, False, False, True, Mode.BAR),  # a terminal: the bar
        (True, False, True, True, Mode.OFF),  # -q
        (True, True, False, True, Mode.LINES),  # a CI log: a line per finished unit
        (True, True, False, False, Mode.OFF),  # ... for commands that have such lines
        (False, False, False, True, Mode.LINES),  # a pipe or a file: verify keeps its lines
        (False, False, False, False, Mode.OFF),  # ... check writes none
        (False, True, True, True, Mode.OFF),
    ],
)
def test_the_mode_follows_the_terminal_ci_and_quiet(
    monkeypatch: pytest.MonkeyPatch, tty: bool, ci: bool, quiet: bool, lines: bool, expected: Mode
) -> None:
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    assert mode(Tty() if tty else io.StringIO(), quiet, lines=lines) is expected


def test_the_eta_of_a_verify_comes_from_its_compiles() -> None:
    out = Tty()
    bar = Bar(stream=out, delay=0.0, interval=0.0)
    bar.start(10, compiles=4)
    bar.advance(kernels=40, files=6)  # the cached files: done at once, no compile
    assert "ETA" not in out.getvalue()  # nothing compiled yet: no estimate
    bar.advance(kernels=8, files=1, compiles=1)
    text = bar.text(bar.started + 30.0)
    assert "7/10 files  48 kernels judged  1/4 compiles  30 s  ETA 90 s" in text
    bar.close()


def test_a_note_goes_above_the_bar_which_is_drawn_again() -> None:
    out = Tty()
    bar = Bar(stream=out, delay=0.0, interval=0.0)
    bar.start(2, compiles=2)
    bar.advance(kernels=1, compiles=1)
    bar.note("[1/2]  41.2 s  0.7.4  a.cu")
    after = out.getvalue().rsplit("[1/2]  41.2 s  0.7.4  a.cu\n", 1)[1]
    assert after.startswith("[##########") and "1/2 compiles" in after
    bar.close()
    assert out.getvalue().endswith(ERASE)


def test_a_live_bar_redraws_its_clock_while_nothing_finishes() -> None:
    out = Tty()
    bar = Bar(stream=out, delay=0.0)
    bar.start(1, compiles=1, live=True)
    deadline = time.monotonic() + 5
    while out.getvalue().count(ERASE) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    bar.close()
    assert out.getvalue().count(ERASE) >= 2


def test_a_download_draws_megabytes_then_files_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    out = Tty()
    with phased(out, quiet=False, title="flashinfer-python 0.7.4", prefix="cutlint: ") as (
        note,
        meter,
    ):
        assert note is not None and meter is not None
        note("downloading flashinfer-python==0.7.4 with pip")
        meter("bytes", 0, 0)
        time.sleep(0.5)
        meter("bytes", 23_400_000, 0)
        time.sleep(1.1)  # past the bar's delay: the live bar draws its clock and the bytes
        meter("files", 10, 4305)
        time.sleep(1.05)
        meter("files", 4305, 4305)
        note("unpacked 4,305 files (3 s)")
    text = out.getvalue()
    assert text.startswith("cutlint: downloading flashinfer-python==0.7.4 with pip\n")
    assert "flashinfer-python 0.7.4 [....................] 23.4 MB" in text
    assert "4,305/4,305 files" in text and "cutlint: unpacked 4,305 files (3 s)\n" in text
    assert text.endswith(ERASE)


@pytest.mark.parametrize("ci", [True, False])
def test_a_download_in_a_log_is_one_line_per_step(
    monkeypatch: pytest.MonkeyPatch, ci: bool
) -> None:
    if ci:
        monkeypatch.setenv("CI", "1")
        out: io.StringIO = Tty()
    else:
        monkeypatch.delenv("CI", raising=False)
        out = io.StringIO()
    with phased(out, quiet=False, prefix="cutlint: ") as (note, meter):
        assert note is not None and meter is None
        note("unpacking flashinfer_python-0.7.4-py3-none-any.whl (62 MB, 12 s)")
        note("unpacked 4,305 files (3 s)")
    assert out.getvalue() == (
        "cutlint: unpacking flashinfer_python-0.7.4-py3-none-any.whl (62 MB, 12 s)\n"
        "cutlint: unpacked 4,305 files (3 s)\n"
    )
    with phased(out, quiet=True) as sinks:
        assert sinks == (None, None)


def test_pip_is_watched_through_its_temporary_directory(tmp_path: Path) -> None:
    """producers/wheels.py reads pip's progress off the size of the file it writes under TMPDIR."""
    writer = (
        "import os, time\n"
        "p = os.path.join(os.environ['TMPDIR'], 'pip-unpack-x', 'w.whl')\n"
        "os.makedirs(os.path.dirname(p))\n"
        "for _ in range(4):\n"
        "    open(p, 'ab').write(b'x' * 1000); time.sleep(0.3)\n"
    )
    seen: list[int] = []
    done = wheels._pip([sys.executable, "-c", writer], tmp_path, seen.append)
    assert done.returncode == 0
    assert seen and seen == sorted(seen) and 1000 <= max(seen) <= 4000
    assert list(tmp_path.iterdir()) == []  # its TMPDIR is gone
