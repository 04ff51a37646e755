"""GitHub Actions workflow commands: one annotation per finding, then the summary line.

    ::error file=gen/kernel.cu,line=53,endLine=56,col=9,title=CUT101 smem-exceeds-optin::needs ...

Levels: error -> `error`, warning -> `warning`, info and note -> `notice`. Escaping follows the
Actions toolkit (`@actions/core` command.ts): in the message `%`, CR and LF become `%25`, `%0D`,
`%0A`; in a property also `:` and `,` become `%3A` and `%2C`. Paths are relative to the project
root, which in a workflow is the checkout (GITHUB_WORKSPACE).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cutlint.records import CheckResult, Diagnostic, FileResult, Severity, SourceSpan
from cutlint.report import NO_END, Ending
from cutlint.report.escape import printable
from cutlint.report.located import file_findings, path_of, root_of
from cutlint.report.style import Shown
from cutlint.report.tally import FileParts, Spooled
from cutlint.report.text import summary_of
from cutlint.report.tu import summary_line, tu_diagnostics

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
    Severity.NOTE: "notice",
}


def escape_data(text: str) -> str:
    """The toolkit's escaping, then every other control character escaped for the terminal
    (report/escape.py): an escape sequence in a file name must not reach the log as one."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped)


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, span: SourceSpan | None, root: Path) -> str:
    props: list[tuple[str, str]] = [("file", path_of(d, root))]
    if d.line is not None:
        props.append(("line", str(d.line)))
        if span is not None and span.line == d.line:
            if span.end_line > span.line:
                props.append(("endLine", str(span.end_line)))
            props.append(("col", str(span.column)))
    props.append(("title", f"{d.rule} {d.name}"))
    message = f"{d.message}\n{d.why}" if d.why else d.message
    rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{LEVEL[d.severity]} {rendered}::{escape_data(message)}"


class Parts(FileParts):
    """Each file's annotations, one a finding, in line order."""

    def text(self, f: FileResult, folded: bool) -> str | None:
        root = self.shown.root or Path.cwd()
        return "".join(f"{annotation(d, span, root)}\n" for d, span in file_findings(f))


class Stream(Spooled):
    """The annotations of a check whose results are not held: each file's are spooled as its
    result comes, and only the counts are kept; `finish` writes the report, byte for byte what
    `render` writes for the whole result."""

    parts_of = Parts

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        """`end.tus` (`check -p BUILD_DIR --tu`): a TU kernel's finding is annotated at the line
        that chose the kernel; the TUs' summary line follows the summary."""
        self.copy_to(out)
        root, tus = self.shown.root or Path.cwd(), end.tus
        lines = [annotation(d, None, root) for d, _ in tu_diagnostics(tus, root)]
        tail = [] if tus is None else [printable(summary_line(tus) or "")]
        summary = printable(summary_of(self.tally, end.skipped, end.baselined), newlines=True)
        out.write("\n".join([*lines, summary, *tail]) + "\n")


def render(result: CheckResult, tus: TuSection | None = None) -> str:
    return Stream.rendered(result, Shown(root=root_of(result)), tus)
