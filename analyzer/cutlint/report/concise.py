"""Concise output: one line per finding, `path:line:col: RULE severity: message`, as ruff's
`--output-format concise` and compilers print them, so that editors and terminals jump to the
place (vim's errorformat, Emacs' compilation mode, VS Code's terminal links):

    gen/kernel.cu:53:1: CUT101 error: needs 102,400 B of shared memory; sm_120 allows ...

A finding about a whole file (it could not be read) is placed at 1:1, as ruff places E902. Paths
are as the text format prints them (relative to the working directory when under it). Then the
summary line, unless `quiet`.

With `check -p BUILD_DIR --tu`, each kernel the TU front end read follows, one line at the source
line that chose it: a kernel with a finding as that finding (`CUT211 error: ...`), a fitting one
as `kernel: TYPE fits on sm_120a: ...`, both with the numbers, the model or `measured`, and the
dispatch condition; `quiet` keeps the findings. Then the TUs' summary line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from cutlint.records import CheckResult, Diagnostic, FileResult, Severity, SourceSpan
from cutlint.report import NO_END, Ending
from cutlint.report.escape import display_path, printable
from cutlint.report.located import file_findings
from cutlint.report.style import PLAIN, Shown, Style
from cutlint.report.tally import ACT_ON, FileParts, Spooled
from cutlint.report.text import summary_of

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection


def _line(d: Diagnostic, span: SourceSpan | None, style: Style) -> str:
    line = d.line or 1
    column = span.column if span is not None and span.line == line else 1
    where = style.path(f"{display_path(d.path)}:{line}:{column}:")
    sev = style.severity(d.severity, f"{d.severity.value}:")
    # The message quotes macro arguments: an ESC, OSC or BEL there must not reach the terminal.
    return f"{where} {style.rule(d.severity, d.rule)} {sev} {printable(d.message)}"


class Parts(FileParts):
    """Each file's lines (`-q`: only what fails, and the warnings)."""

    def text(self, f: FileResult, folded: bool) -> str | None:
        quiet, style = self.shown.quiet, self.shown.style
        return "".join(
            f"{_line(d, span, style)}\n"
            for d, span in file_findings(f)
            if not quiet or d.severity in ACT_ON
        )


class Stream(Spooled):
    """The concise report of a check whose results are not held: each file's lines are
    spooled as its result comes (not written at once, so that they do not cross the progress
    bar), and only the counts are kept; `finish` writes the report, byte for byte what `render`
    writes for the whole result."""

    parts_of = Parts

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        self.copy_to(out)
        quiet, style = self.shown.quiet, self.shown.style
        tus = end.tus
        lines = [] if tus is None else _kernels(tus, quiet, style)
        if not quiet:
            lines.append(summary_of(self.tally, end.skipped, end.baselined).splitlines()[0])
            if tus is not None:
                from cutlint.report.tu import summary_line

                lines.append(printable(summary_line(tus) or ""))
        out.write("".join(f"{x}\n" for x in lines))


def render(
    result: CheckResult,
    quiet: bool = False,
    style: Style = PLAIN,
    tus: TuSection | None = None,
) -> str:
    return Stream.rendered(result, Shown(style, quiet), tus)


def _kernels(tus: TuSection, quiet: bool, style: Style) -> list[str]:
    from cutlint.report.tu import kernel_line

    lines: list[str] = []
    for v in tus.verdicts():
        site = v.kernel.chosen_by
        where = style.path(f"{display_path(site.path)}:{site.line}:1:")
        text = printable(kernel_line(v))
        if not v.findings:
            if not quiet:
                lines.append(f"{where} kernel: {text}")
            continue
        for f in v.findings:
            sev = Severity(f.severity)
            if quiet and sev not in ACT_ON:
                continue
            head = f"{style.rule(sev, f.rule)} {style.severity(sev, f'{f.severity}:')}"
            lines.append(f"{where} {head} {printable(f.message)}; {text}")
    return lines
