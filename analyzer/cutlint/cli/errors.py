"""How a command ends on a usage error or on an exception nothing foresaw: one line on stderr,
exit code 2, never a traceback."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from cutlint import exit_codes

ISSUES = "https://github.com/cutlint/cutlint/issues"


def printable(text: str) -> str:
    """Input text escaped for the terminal (report/escape.py), imported when first needed: the
    report package imports the records, which `--version` should not pay for."""
    from cutlint.report.escape import printable as escaped

    return escaped(text)


def usage_error(message: str) -> NoReturn:
    click.echo(f"cutlint: {printable(message)}", err=True)
    sys.exit(exit_codes.USAGE)


def first_error(e: Exception) -> str:
    """One line of a pydantic ValidationError (its first error's message), or of any error."""
    from pydantic import ValidationError

    if isinstance(e, ValidationError):
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        text = f"{where}: {first['msg'].removeprefix('Value error, ')}"
    else:
        text = str(e).splitlines()[0] if str(e) else repr(e)
    return printable(text)


def internal_error(err: BaseException) -> NoReturn:
    where = ""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
    text = f"{type(err).__name__}: {err}"
    if len(text) > 300:
        text = text[:297] + "..."
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    click.echo(
        f"cutlint: internal error{where}: {printable(text)} (a bug in cutlint: please report it at "
        f"{ISSUES} with the command line; CUTLINT_TRACEBACK=1 shows the traceback)",
        err=True,
    )
    if os.environ.get("CUTLINT_TRACEBACK"):
        import traceback

        traceback.print_exception(err)
    sys.exit(exit_codes.USAGE)
