"""Colour for the human formats (text, concise), as ruff and mypy colour a terminal.

Colour is on when writing to a terminal, unless `NO_COLOR` is set to anything non-empty
(no-color.org) or `TERM=dumb`; `FORCE_COLOR` (or `CLICOLOR_FORCE`) turns it on where there is no
terminal; `--color always|never` decides over all of them. A file written with `-o` gets none
unless `--color always`. Only ANSI SGR codes are used; the reporters call these functions and
never write an escape themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cutlint.records import Severity, Verdict
from cutlint.report.escape import printable

RESET = "\x1b[0m"
BOLD = "1"
DIM = "2"
RED = "31"
YELLOW = "33"
GREEN = "32"
CYAN = "36"

SEVERITY = {Severity.ERROR: RED, Severity.WARNING: YELLOW, Severity.INFO: CYAN, Severity.NOTE: CYAN}
VERDICT = {
    Verdict.FITS: GREEN,
    Verdict.ZERO_SLACK: YELLOW,
    Verdict.FAILS_INITIALIZE: RED,
    Verdict.FAILS_COMPILE: RED,
    Verdict.FAILS_RUN: RED,
    Verdict.UNREACHABLE: YELLOW,
    Verdict.NOT_MODELED: DIM,
    Verdict.INACTIVE: DIM,
    Verdict.NOT_FOR_GPU: DIM,
    Verdict.CONTEXT_UNKNOWN: DIM,
}


@dataclass(frozen=True)
class Style:
    """How to mark up text: `color` False gives the text unchanged."""

    color: bool = False

    def paint(self, text: str, *codes: str) -> str:
        if not self.color or not codes or not text:
            return text
        return f"\x1b[{';'.join(codes)}m{text}{RESET}"

    def path(self, text: str) -> str:
        return self.paint(text, BOLD)

    def severity(self, severity: Severity, text: str | None = None) -> str:
        return self.paint(severity.value if text is None else text, BOLD, SEVERITY[severity])

    def rule(self, severity: Severity, text: str) -> str:
        return self.paint(text, SEVERITY[severity])

    def verdict(self, verdict: Verdict, text: str | None = None) -> str:
        return self.paint(verdict.value if text is None else text, VERDICT[verdict])

    def dim(self, text: str) -> str:
        return self.paint(text, DIM)


PLAIN = Style()
COLOR_MODES = ("auto", "always", "never")


def wants_color(
    stream: TextIO | None, mode: str = "auto", environ: dict[str, str] | None = None
) -> bool:
    """Whether to colour what is written to `stream` (see the module docstring); None: a file
    that is not open yet (`-o`), which is no terminal."""
    if mode != "auto":
        return mode == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR") or env.get("CLICOLOR_FORCE", "0") != "0":
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def style_for(stream: TextIO | None, mode: str = "auto") -> Style:
    return Style(color=wants_color(stream, mode))


@dataclass(frozen=True)
class Shown:
    """What a human format shows: the check's -q, colour, --show-unjudged and --no-tables (the
    last two: the text format only), and the root of the GitHub annotations' paths."""

    style: Style = PLAIN
    quiet: bool = False
    """Only the instantiations with a finding, no tables, no notes (`-q`)."""
    show_unjudged: bool = False
    """A block for every file, not one line per reason for the files with nothing judged."""
    tables: bool = True
    """False (`--no-tables`): no per-file blocks, only the findings, what was not judged, the
    predicted failures and the summary."""
    root: Path | None = None
    """The project root the GitHub annotations' paths are relative to (None: the working
    directory); the text and concise formats print paths as the working directory sees them."""

    def safe(self, text: str) -> str:
        # The fields are escaped one by one; this pass catches what reaches a table cell or a
        # note from the input by another way (a reason, a version header's path). With colour
        # on, the text holds cutlint's own SGR codes, and the cells were escaped before they
        # were coloured.
        return text if self.style.color else printable(text, newlines=True)
