"""Reporters: one module per output format, each `render(result) -> str`.

A reporter whose output can be large also offers `chunks(result)`, the same text in pieces, so
that `write` can stream it instead of holding it whole (10,000 instantiations are 78 MB of JSON).
The human formats (text, concise) also take `quiet` (`-q`) and a colour `Style`. A format's module
is imported when it is used, so that a run pays only for the one it writes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TextIO

from cutlint.records import CheckResult
from cutlint.report.style import PLAIN, Style

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

FORMATS = ("concise", "github", "json", "sarif", "text")
"""The `--format` choices; config.Format names the same (a test keeps them so)."""
STYLED = ("concise", "text")
"""Formats for people: they take `quiet` and colour."""


class _Reporters(Mapping[str, Callable[[CheckResult], str]]):
    """`render` of each format, its module imported on first use."""

    def __getitem__(self, fmt: str) -> Callable[[CheckResult], str]:
        if fmt not in FORMATS:
            raise KeyError(fmt)
        render: Callable[[CheckResult], str] = importlib.import_module(
            f"cutlint.report.{fmt}"
        ).render
        return render

    def __iter__(self) -> Iterator[str]:
        return iter(FORMATS)

    def __len__(self) -> int:
        return len(FORMATS)


REPORTERS: Mapping[str, Callable[[CheckResult], str]] = _Reporters()


def write(
    fmt: str,
    result: CheckResult,
    out: TextIO,
    quiet: bool = False,
    style: Style = PLAIN,
    show_unjudged: bool = False,
    tables: bool = True,
    tus: TuSection | None = None,
) -> None:
    """Write `result` in format `fmt` to `out`: piece by piece where the reporter allows.
    `tables` (text only): the per-file tables. `tus` (`check -p`): the translation units only
    the TU front end reads, which every format renders after the files' results."""
    if fmt == "text":
        from cutlint.report import text

        out.write(
            text.render(
                result,
                quiet=quiet,
                style=style,
                show_unjudged=show_unjudged,
                tables=tables,
                tus=tus,
            )
        )
    elif fmt in STYLED:
        module = importlib.import_module(f"cutlint.report.{fmt}")
        out.write(module.render(result, quiet=quiet, style=style, tus=tus))
    elif fmt == "json":
        from cutlint.report import json

        for piece in json.chunks(result, tus):
            out.write(piece)
    elif fmt in FORMATS:
        module = importlib.import_module(f"cutlint.report.{fmt}")
        out.write(module.render(result, tus=tus))
    else:
        raise KeyError(fmt)
