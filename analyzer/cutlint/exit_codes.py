"""The exit codes of every command, and the two ways a run can end that are not cutlint's doing.

0, 1 and 2 are the codes a caller acts on (docs/usage.md): 0 no finding at or above --fail-on,
1 such findings, 2 a usage error or input that could not be read. Two more ends are the user's:

- Ctrl-C: 130 (128 + SIGINT), as a shell reports a process a SIGINT ended, so that a script
  telling "findings" (1) from "interrupted" can. click would print "Aborted!" and exit 1, the
  code for findings.
- a closed pipe (`cutlint check ... | head -1`): the reader has taken what it wanted. Quiet, and
  0, as ruff does (astral-sh/ruff#16354: "exit without an error code if the root cause for
  erroring is a broken pipe"); the rest of the output is dropped rather than reported as a bug.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn

OK, FINDINGS, USAGE = 0, 1, 2
INTERRUPTED = 130
"""128 + SIGINT: what a shell reports for a process ended by Ctrl-C."""


def interrupted() -> NoReturn:
    with contextlib.suppress(Exception):
        sys.stderr.write("cutlint: interrupted\n")
        sys.stderr.flush()
    sys.exit(INTERRUPTED)


def pipe_closed() -> NoReturn:
    """The reader of stdout went away: drop what is left and exit 0, quietly.

    stdout is pointed at /dev/null first, so that the interpreter's own flush of the buffered
    rest at exit does not raise BrokenPipeError a second time ("Exception ignored ...")."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(OK)
