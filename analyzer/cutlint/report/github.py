"""GitHub Actions workflow commands: one annotation per finding, then the summary line.

    ::error file=gen/kernel.cu,line=53,endLine=56,col=9,title=CUT101 smem-exceeds-optin::needs ...

Levels: error -> `error`, warning -> `warning`, info and note -> `notice`. Escaping follows the
Actions toolkit (`@actions/core` command.ts): in the message `%`, CR and LF become `%25`, `%0D`,
`%0A`; in a property also `:` and `,` become `%3A` and `%2C`. Paths are relative to the project
root, which in a workflow is the checkout (GITHUB_WORKSPACE).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cutlint.records import CheckResult, Diagnostic, Severity, SourceSpan
from cutlint.report.escape import printable
from cutlint.report.located import findings, path_of, root_of
from cutlint.report.text import summary
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


def render(result: CheckResult, tus: TuSection | None = None) -> str:
    """`tus` (`check -p BUILD_DIR --tu`): a TU kernel's finding is annotated at the line that
    chose the kernel; the TUs' summary line follows the summary."""
    root = root_of(result)
    lines = [annotation(d, span, root) for d, span in findings(result)]
    lines += [annotation(d, None, root) for d, _ in tu_diagnostics(tus, root)]
    tail = [] if tus is None else [printable(summary_line(tus) or "")]
    return "\n".join([*lines, printable(summary(result), newlines=True), *tail]) + "\n"
