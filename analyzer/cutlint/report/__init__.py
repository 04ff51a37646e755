"""Reporters: one module per output format, each `render(result) -> str`.

A reporter whose output can be large also offers `chunks(result)`, the same text in pieces, so
that `write` can stream it instead of holding it whole (10,000 instantiations are 78 MB of JSON).
The human formats (text, concise) also take `quiet` (`-q`) and a colour `Style`. A format's module
is imported when it is used, so that a run pays only for the one it writes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Protocol, TextIO

from cutlint.records import CheckResult, FileResult
from cutlint.report.style import PLAIN, Style

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.report.style import Shown
    from cutlint.tu_records import TuSection

FORMATS = ("concise", "github", "json", "sarif", "text")
"""The `--format` choices; config.Format names the same (a test keeps them so)."""
STYLED = ("concise", "text")
"""Formats for people: they take `quiet` and colour."""
STREAMED = ("concise", "github", "json", "sarif", "text")
"""Formats a check can write as the results come, holding none of them: each file's piece is
made where the file is judged (`pieces`) and a `Stream` keeps what the report's head and summary
need (`stream`)."""


@dataclass(frozen=True)
class Ending:
    """What a report's end says that is known only once every file is done, as each format's
    `Stream.finish` is handed it."""

    skipped: Sequence[str] = ()
    """The FlashInfer JIT sources left out (no CUTLASS GEMM instantiation)."""
    baselined: int = 0
    """How many findings the baseline accepted."""
    tus: TuSection | None = None
    """`check -p`: the translation units only the TU front end reads."""

    @classmethod
    def of(cls, result: CheckResult, tus: TuSection | None = None) -> Ending:
        """The end of a whole result's report."""
        return cls(result.skipped, len(result.baselined), tus)


NO_END = Ending()
"""The end of a report with nothing left out, accepted or read by the TU front end."""


class Stream(Protocol):
    """A streamed report (report/json.py, text.py, concise.py, github.py, sarif.py `Stream`):
    each file's piece added in input order, then the whole report written, byte for byte what
    `write` writes."""

    def add_piece(self, piece: Any) -> None: ...

    def finish(self, out: TextIO, end: Ending = ...) -> None: ...


def pieces(fmt: str, shown: Shown) -> Callable[[FileResult], object]:
    """What makes each file's piece of a streamed report in `fmt` (one of STREAMED), in the
    process that judged the file; it remembers what the files share (contexts, model parts)."""
    if fmt == "json":
        from cutlint.report.json import Pieces

        return Pieces().piece
    made: Callable[[FileResult], object] = (
        importlib.import_module(f"cutlint.report.{fmt}").Parts(shown).part
    )
    return made


def stream(fmt: str, spool: IO[str], shown: Shown) -> Stream:
    """The `Stream` of a report in `fmt` (one of STREAMED); `spool`, a temporary file, holds
    the files' rows, blocks or lines until the head, which comes first, is known."""
    if fmt == "json":
        from cutlint.report.json import Stream as JsonStream

        return JsonStream(spool)
    made: Stream = importlib.import_module(f"cutlint.report.{fmt}").Stream(spool, shown)
    return made


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
