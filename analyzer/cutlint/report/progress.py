"""A progress bar on stderr for long runs: units done, kernels judged, compiles, elapsed, ETA.

    [#########...........]  3,120/7,100 files  3,050 kernels judged  12 s  ETA 16 s
    [####................]  41/185 files  328 kernels judged  12/120 compiles  3 min 05 s  ETA 9 min

Drawn only on a terminal, never with -q, and only once a run has taken `delay` seconds (a
one-file check stays silent); redrawn at most ten times a second (and, with `live`, every second
while nothing finishes, so that a run of 40-second compiles still shows its clock), and erased
when the run ends, so that the report that follows starts on a clean line. A line the command
prints meanwhile (`note`) erases the bar, is written, and the bar is drawn again below it.

Where stderr is a log the bar is off (`mode`): under `CI` a long command (verify, a download)
writes one line per finished unit instead, and so does it into a log file; `check` writes none
(its result is its report, and a line per file would drown it). No dependency: a carriage return
and an erase-line escape are all a terminal needs.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

ERASE = "\r\x1b[2K"
WIDTH = 20
"""Cells of the bar itself."""


class Mode(enum.Enum):
    """How a command shows its progress on stderr."""

    OFF = "off"
    """-q, or a log that wants no lines (check)."""
    BAR = "bar"
    """A terminal: the bar."""
    LINES = "lines"
    """A CI log or a file: one line per finished unit (a compiled file, a downloaded wheel)."""


def mode(stream: TextIO, quiet: bool, lines: bool = False) -> Mode:
    """-q: off; `CI` set: lines where the command has them (`lines`), else off; a terminal: the
    bar; any other stream (a pipe, a file): lines where the command has them, else off."""
    if quiet:
        return Mode.OFF
    logged = Mode.LINES if lines else Mode.OFF
    if os.environ.get("CI"):
        return logged
    isatty = getattr(stream, "isatty", None)
    return Mode.BAR if isatty and isatty() else logged


def wanted(stream: TextIO, quiet: bool) -> bool:
    """Whether to draw: a terminal, no -q, not a CI log."""
    return mode(stream, quiet) is Mode.BAR


@dataclass
class Bar:
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    delay: float = 1.0
    """Seconds before the first draw."""
    interval: float = 0.1
    title: str = ""
    """Before the bar: what is done (`flashinfer-python 0.7.4`)."""
    unit: str = "files"
    """What `total` counts; "MB" draws sizes (advance by bytes)."""
    kernels_label: str | None = "kernels judged"
    """None: the kernels count is not shown (a download)."""
    total: int = 0
    files: int = 0
    kernels: int = 0
    compiles_total: int = 0
    """Compiles planned; when set, the ETA is taken from the compiles (cached files are done at
    once and would make a file-based ETA far too short)."""
    compiles: int = 0
    started: float = field(default_factory=time.monotonic)
    _drawn: float = 0.0
    _shown: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ticker: threading.Thread | None = None
    _closed: threading.Event = field(default_factory=threading.Event)

    def start(self, total: int, compiles: int = 0, live: bool = False) -> None:
        """`total` units and `compiles` compiles to come; `live`: redraw every second."""
        self.total, self.compiles_total = total, compiles
        if live and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def advance(self, kernels: int = 0, files: int = 1, compiles: int = 0) -> None:
        """`files` more units done, with `kernels` instantiations judged and `compiles` compiles
        finished in them."""
        with self._lock:
            self.files += files
            self.kernels += kernels
            self.compiles += compiles
            self._draw(time.monotonic())

    def set(self, done: int, total: int | None = None) -> None:
        """The units done so far (bytes downloaded, files unpacked), and the total if known."""
        with self._lock:
            self.files = done
            if total is not None:
                self.total = total
            self._draw(time.monotonic())

    def note(self, line: str) -> None:
        """A line of the command's own, written above the bar."""
        with self._lock:
            if self._shown:
                self.stream.write(ERASE)
            self.stream.write(line + "\n")
            if self._shown:
                self.stream.write(self.text(time.monotonic()))
            self.stream.flush()

    def _draw(self, now: float, force: bool = False) -> None:
        if now - self.started < self.delay or self._closed.is_set():
            return
        if force or now - self._drawn >= self.interval:
            self._drawn = now
            self._shown = True
            self.stream.write(ERASE + self.text(now))
            self.stream.flush()

    def _tick(self) -> None:
        while not self._closed.wait(1.0):
            with self._lock:
                self._draw(time.monotonic(), force=True)

    def _count(self, n: int) -> str:
        return f"{n / 1e6:,.1f}" if self.unit == "MB" else f"{n:,}"

    def text(self, now: float) -> str:
        elapsed = now - self.started
        done = min(self.files, self.total) if self.total else self.files
        cells = WIDTH * done // self.total if self.total else 0
        bar = "#" * cells + "." * (WIDTH - cells)
        if self.total:
            total = self._count(self.total)
            parts = [f"{self._count(done):>{len(total)}}/{total} {self.unit}"]
        else:
            parts = [f"{self._count(done)} {self.unit}"]
        if self.kernels_label is not None:
            parts.append(f"{self.kernels:,} {self.kernels_label}")
        if self.compiles_total:
            parts.append(f"{self.compiles:,}/{self.compiles_total:,} compiles")
        parts.append(_seconds(elapsed))
        eta = self._eta(elapsed, done)
        if eta is not None:
            parts.append(f"ETA {_seconds(eta)}")
        title = f"{self.title} " if self.title else ""
        return f"{title}[{bar}] " + "  ".join(parts)

    def _eta(self, elapsed: float, done: int) -> float | None:
        if self.compiles_total:
            if 0 < self.compiles < self.compiles_total:
                return elapsed * (self.compiles_total - self.compiles) / self.compiles
            return None
        if self.total and 0 < done < self.total:
            return elapsed * (self.total - done) / done
        return None

    def close(self) -> None:
        self._closed.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            if self._shown:
                self.stream.write(ERASE)
                self.stream.flush()
                self._shown = False


Note = Callable[[str], None]
Meter = Callable[[str, int, int], None]
"""`meter(unit, done, total)`: "bytes" (total 0: not known) or "files" (producers/wheels.py)."""


@contextlib.contextmanager
def phased(
    stream: TextIO, quiet: bool, title: str = "", prefix: str = ""
) -> Iterator[tuple[Note | None, Meter | None]]:
    """For a download (its bytes, then the files unpacked): a line sink and a meter. On a
    terminal the meter draws a bar per step, in MB or files, and the lines go above it; in a log
    or under CI the lines alone (one per step done); with -q neither."""
    shown = mode(stream, quiet, lines=True)
    if shown is Mode.OFF:
        yield None, None
        return
    if shown is Mode.LINES:
        yield (lambda line: _line(stream, prefix + line)), None
        return
    bars: dict[str, Bar] = {}
    current: list[Bar] = []

    def meter(unit: str, done: int, total: int) -> None:
        if unit not in bars:
            if current:
                current[-1].close()
            shown_unit = "MB" if unit == "bytes" else unit
            bars[unit] = Bar(stream=stream, title=title, unit=shown_unit, kernels_label=None)
            bars[unit].start(total, live=True)
            current.append(bars[unit])
        bars[unit].set(done, total or None)

    def note(line: str) -> None:
        if current:
            current[-1].note(prefix + line)
        else:
            _line(stream, prefix + line)

    try:
        yield note, meter
    finally:
        for bar in current:
            bar.close()


def _line(stream: TextIO, line: str) -> None:
    stream.write(line + "\n")
    stream.flush()


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{int(s // 60)} min {int(s % 60):02d} s"
