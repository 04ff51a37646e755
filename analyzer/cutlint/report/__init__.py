"""Reporters: one module per output format, each `render(result) -> str`.

A reporter whose output can be large also offers `chunks(result)`, the same text in pieces, so
that `write` can stream it instead of holding it whole (10,000 instantiations are 78 MB of JSON).
"""

from collections.abc import Callable, Iterable
from typing import TextIO

from cutlint.records import CheckResult
from cutlint.report import github, json, sarif, text

REPORTERS: dict[str, Callable[[CheckResult], str]] = {
    "text": text.render,
    "json": json.render,
    "sarif": sarif.render,
    "github": github.render,
}

CHUNKED: dict[str, Callable[[CheckResult], Iterable[str]]] = {"json": json.chunks}


def write(fmt: str, result: CheckResult, out: TextIO) -> None:
    """Write `result` in format `fmt` to `out`: piece by piece where the reporter allows."""
    for piece in CHUNKED[fmt](result) if fmt in CHUNKED else [REPORTERS[fmt](result)]:
        out.write(piece)
