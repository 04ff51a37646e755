"""A progress bar on stderr for long runs: files done, kernels judged, elapsed time and ETA.

    [#########...........]  3,120/7,100 files  3,050 kernels judged  12 s  ETA 16 s

Drawn only on a terminal, never with -q, and only once a run has taken `delay` seconds (a
one-file check stays silent); redrawn at most ten times a second, and erased when the run ends,
so that the report that follows starts on a clean line. Where stderr is a log (not a terminal,
or `CI` is set) the bar is off: a check's result is its report, and a line per file would drown
it. No dependency: a carriage return and an erase-line escape are all a terminal needs.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

ERASE = "\r\x1b[2K"
WIDTH = 20
"""Cells of the bar itself."""


def wanted(stream: TextIO, quiet: bool) -> bool:
    """Whether to draw: a terminal, no -q, not a CI log."""
    if quiet or os.environ.get("CI"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass
class Bar:
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    delay: float = 1.0
    """Seconds before the first draw."""
    interval: float = 0.1
    total: int = 0
    files: int = 0
    kernels: int = 0
    started: float = field(default_factory=time.monotonic)
    _drawn: float = 0.0
    _shown: bool = False

    def start(self, total: int) -> None:
        self.total = total

    def advance(self, kernels: int = 0) -> None:
        """One more file done, with `kernels` instantiations judged in it."""
        self.files += 1
        self.kernels += kernels
        now = time.monotonic()
        if now - self.started >= self.delay and now - self._drawn >= self.interval:
            self._drawn = now
            self._shown = True
            self.stream.write(ERASE + self.text(now))
            self.stream.flush()

    def text(self, now: float) -> str:
        elapsed = now - self.started
        done = min(self.files, self.total) if self.total else self.files
        cells = WIDTH * done // self.total if self.total else 0
        bar = "#" * cells + "." * (WIDTH - cells)
        eta = ""
        if self.total and 0 < done < self.total:
            eta = f"  ETA {_seconds(elapsed * (self.total - done) / done)}"
        return (
            f"[{bar}] {done:>{len(f'{self.total:,}')},}/{self.total:,} files  "
            f"{self.kernels:,} kernels judged  {_seconds(elapsed)}{eta}"
        )

    def close(self) -> None:
        if self._shown:
            self.stream.write(ERASE)
            self.stream.flush()


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{int(s // 60)} min {int(s % 60):02d} s"
