"""Text output: a table per file, one line of why per failure, then a summary."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from cutlint.context.render import ranked
from cutlint.families.registry import family_named, family_of
from cutlint.records import (
    CheckResult,
    Diagnostic,
    FileResult,
    InstantiationResult,
    Resources,
    Verdict,
)
from cutlint.report import NO_END, Ending
from cutlint.report.escape import display_path, printable
from cutlint.report.style import PLAIN, Shown, Style
from cutlint.report.tally import (
    MAX_FAILURE_LINES,
    FileParts,
    Lines,
    Spooled,
    Tally,
    unjudged_only,
)
from cutlint.sources import cutlass_library_files as cutlass_library
from cutlint.sources import kernel_headers
from cutlint.sources.flashinfer_cache import NON_GEMM

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

CORE_HEADERS = ("stages", "smem / limit (B)", "regs", "blocks/SM", "verdict", "rule")
CORE_ALIGN = ("right", "right", "right", "right", "left", "left")


def _registers_cell(res: Resources | None) -> str:
    """Registers a thread: measured (`168 ptxas`, `168 cubin`), decided by the model (`168`), or
    only capped by the launch bounds (`<=168`); `-` where the family does not say."""
    use = res.register_use if res else None
    if use is None:
        return "-"
    if use.per_thread is None:
        return f"<={use.cap}"
    return f"{use.per_thread}" if use.origin == "model" else f"{use.per_thread} {use.origin}"


def _blocks_cell(res: Resources | None) -> str:
    """Active blocks per SM; `<=N` while the registers' limit is not decided."""
    occ = res.occupancy if res else None
    if occ is None:
        return "-"
    return str(occ.blocks_per_sm) if occ.blocks_per_sm is not None else f"<={occ.at_most}"


def _columns(family: str | None) -> tuple[str, ...]:
    """The family's own columns (from the registry); an unclaimed row shows its name."""
    return family_named(family).columns if family is not None else ("instantiation",)


def _cells(r: InstantiationResult, width: int) -> list[str]:
    if r.recipe is None:
        return [r.instantiation.name] + ["-"] * (width - 1)
    return list(family_of(r.recipe).describe(r.recipe))


def _row(r: InstantiationResult, width: int) -> list[str]:
    res = r.resources
    rules = ",".join(dict.fromkeys(d.rule for d in r.diagnostics)) or "-"
    return [
        str(r.instantiation.span.line),
        *_cells(r, width),
        str(res.stage_count.stages) if res else "-",
        f"{res.layout.size:,} / {res.arch.smem_optin:,}" if res else "-",
        _registers_cell(res),
        _blocks_cell(res),
        r.verdict.value,
        rules,
    ]


_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _width(cell: str) -> int:
    """Columns a cell takes on screen: colour codes take none."""
    return len(_SGR.sub("", cell)) if "\x1b" in cell else len(cell)


def table(rows: Sequence[Sequence[str]], headers: Sequence[str], align: Sequence[str]) -> str:
    """A plain table, byte for byte what `tabulate(tablefmt="simple", disable_numparse=True)`
    draws (a header line, dashes, two spaces between columns, each column as wide as its widest
    cell or its header plus 2), written out because importing tabulate costs a start-up more
    than drawing the table does, and 10,000 rows take a third of the time."""
    widths = [len(h) + 2 for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(cell))

    def line(cells: Sequence[str]) -> str:
        out = []
        for cell, width, how in zip(cells, widths, align, strict=True):
            pad = " " * (width - _width(cell))
            out.append(pad + cell if how == "right" else cell + pad)
        return "  ".join(out).rstrip()

    dashes = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), dashes, *(line(r) for r in rows)])


def _leaves(value: object, path: str = "") -> Iterable[tuple[str, str]]:
    """(dotted path, value) for every scalar of a dumped recipe."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}.{i}")
    else:
        yield path, str(getattr(value, "value", value))


def _shown_name(path: str) -> str:
    """`args.dynamic_cga` -> `dynamic_cga`; `args.13` -> `arg 14` (a macro's own order)."""
    parts = path.split(".")
    named = [p for p in parts if not p.isdigit()]
    if parts[-1].isdigit() and len(named) <= 2:
        return f"arg {int(parts[-1]) + 1}"
    return named[-1]


def _hidden_differences(rows: list[InstantiationResult], cells: list[list[str]]) -> list[str]:
    """For rows whose shown cells are the same (the line aside), the recipe fields that tell
    them apart (`dynamic_cga=True`): two identical-looking rows with different verdicts or bytes
    must be told apart on the screen (issue 25, item 19). Empty where no row needs it."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(cells):
        groups.setdefault(tuple(row[1:]), []).append(i)
    out = [""] * len(rows)
    for members in groups.values():
        recipes = [rows[i].recipe for i in members]
        if len(members) < 2 or any(r is None for r in recipes):
            continue
        leaves = [dict(_leaves(r.model_dump())) for r in recipes if r is not None]
        differing = [k for k in leaves[0] if len({str(leaf.get(k)) for leaf in leaves}) > 1]
        for i, leaf in zip(members, leaves, strict=True):
            out[i] = ", ".join(f"{_shown_name(k)}={leaf.get(k)}" for k in differing[:3])
    return out


def _table(family: str | None, rows: list[InstantiationResult], style: Style) -> str:
    columns = _columns(family)
    headers = ["line", *columns, *CORE_HEADERS]
    cells = [_row(r, len(columns)) for r in rows]
    hidden = _hidden_differences(rows, cells)
    if any(hidden):
        headers.insert(1 + len(columns), "differs in")
        for row, h in zip(cells, hidden, strict=True):
            row.insert(1 + len(columns), printable(h) or "-")
        columns = (*columns, "differs in")
    if style.color:
        at = headers.index("verdict")
        for row, r in zip(cells, rows, strict=True):
            row[at] = style.verdict(r.verdict, row[at])
    return table(cells, headers, ("right", *["left"] * len(columns), *CORE_ALIGN))


def _by_family(rows: Iterable[InstantiationResult]) -> dict[str | None, list[InstantiationResult]]:
    """Instantiations grouped by the family that claimed them, in file order: each family's
    table has its own columns."""
    groups: dict[str | None, list[InstantiationResult]] = {}
    for r in rows:
        groups.setdefault(r.recipe.family if r.recipe else None, []).append(r)
    return groups


def _finding(d: Diagnostic, style: Style = PLAIN) -> str:
    where = f"line {d.line}" if d.line else "file"
    rule = style.rule(d.severity, f"{d.rule} {d.name}")
    text = f"  {where}: {style.severity(d.severity)} {rule}: {printable(d.message)}"
    if d.why:
        text += f"\n      {printable(d.why)}"
    return text


def in_line_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """A file's findings by line (file-level ones, with no line, first); stable otherwise."""
    return sorted(diagnostics, key=lambda d: d.line or 0)


_UNJUDGED = {
    Verdict.NOT_MODELED: "not modeled (CUT010, lines {})",
    Verdict.INACTIVE: "inactive (lines {})",
    Verdict.NOT_FOR_GPU: "not for this GPU (CUT021, lines {})",
}
"""Verdicts with no model behind them: a file of only these gets one line per reason."""


def _not_modeled_only(f: FileResult, style: Style = PLAIN) -> str | None:
    """A file none of whose instantiations is modeled (not modeled, or inactive: compiled out)
    gets one line per reason, not a table."""
    if not f.instantiations or any(r.verdict not in _UNJUDGED for r in f.instantiations):
        return None
    reasons: dict[tuple[Verdict, str], list[int]] = {}
    for r in f.instantiations:
        reason = r.not_modeled.reason if r.not_modeled else "?"
        reasons.setdefault((r.verdict, reason), []).append(r.instantiation.span.line)
    lines = [style.path(display_path(f.path))]
    for (verdict, reason), at in reasons.items():
        first = ", ".join(map(str, at[:4])) + (", ..." if len(at) > 4 else "")
        lines.append(
            style.dim(
                f"  {_n(len(at), 'instantiation')} {_UNJUDGED[verdict].format(first)}: "
                f"{printable(reason)}"
            )
        )
    lines.extend(_finding(d, style) for d in in_line_order(f.diagnostics))
    # The findings that say why an instantiation could not be read (CUT004, CUT005, CUT009,
    # CUT011): the reason above points at them. The CUT010 lines are the reasons themselves.
    lines.extend(
        _finding(d, style) for r in f.instantiations for d in r.diagnostics if d.rule != "CUT010"
    )
    return "\n".join(lines)


def render_file(f: FileResult, quiet: bool = False, style: Style = PLAIN) -> str | None:
    """One file's block; with `quiet`, only the instantiations with a finding (None: nothing)."""
    shown = [r for r in f.instantiations if r.diagnostics] if quiet else list(f.instantiations)
    if quiet and not shown and not f.diagnostics:
        return None
    collapsed = None if quiet else _not_modeled_only(f, style)
    if collapsed is not None:
        return collapsed
    parts = [style.path(display_path(f.path))]
    parts.extend(_table(family, rows, style) for family, rows in _by_family(shown).items())
    findings = list(f.diagnostics) + [d for r in shown for d in r.diagnostics]
    parts.extend(_finding(d, style) for d in in_line_order(findings))
    return "\n".join(parts)


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def summary(result: CheckResult) -> str:
    """The summary of a whole result (the concise and GitHub formats print it too)."""
    tally = Tally()
    lines = Lines()
    for f in result.files:
        tally.add(f, folded=False, context=lines.of(f.context))
    return summary_of(tally, result.skipped, len(result.baselined))


def summary_of(tally: Tally, skipped: Sequence[str], baselined: int = 0) -> str:
    count = {v: tally.verdicts.get(v, 0) for v in Verdict}
    # Input errors and warnings are problems; the rest (CUT006 on an empty
    # directory is a note, exit 0) are notes, so that the summary and the exit code agree.
    fails = (
        count[Verdict.FAILS_INITIALIZE] + count[Verdict.FAILS_COMPILE] + count[Verdict.FAILS_RUN]
    )
    at_run = f", {count[Verdict.FAILS_RUN]} at run time" if count[Verdict.FAILS_RUN] else ""
    line = (
        f"{_n(tally.instantiations, 'instantiation')} in {_n(tally.files, 'file')}: {_n(fails, 'predicted failure')} "
        f"({count[Verdict.FAILS_INITIALIZE]:,} at initialize(), {count[Verdict.FAILS_COMPILE]:,} at compile time{at_run}), "
        f"{count[Verdict.ZERO_SLACK]:,} with zero slack, {count[Verdict.UNREACHABLE]:,} never dispatched, "
        f"{count[Verdict.NOT_MODELED]:,} not modeled, {count[Verdict.INACTIVE]:,} inactive"
    )
    # The verdicts of cutlint.context: shown only when there are any, so that a run whose
    # context is known reads as before.
    if count[Verdict.NOT_FOR_GPU]:
        line += f", {count[Verdict.NOT_FOR_GPU]:,} not for this GPU"
    if count[Verdict.CONTEXT_UNKNOWN]:
        line += f", {count[Verdict.CONTEXT_UNKNOWN]:,} context unknown (CUT020: a failure only if a guess holds)"
    if tally.gaps:
        line += f"; {tally.gaps:,} {'dispatch' if tally.gaps == 1 else 'dispatches'} with no kernel for the GPU (CUT213)"
    if tally.inputs:
        line += f"; {_n(tally.inputs, 'input problem')}"
    if tally.input_notes:
        line += f"; {_n(tally.input_notes, 'input note')}"
    from cutlint.report.summary import findings_line

    counted = findings_line(tally.rules)
    if counted is not None:
        line += f"\n{counted}"
    if baselined:
        line += f"; {baselined:,} in baseline"
    manifests = [p for p in skipped if cutlass_library.manifest_path(p)]
    headers = [p for p in skipped if kernel_headers.is_header(p)]
    jit = len(skipped) - len(manifests) - len(headers)
    if headers:
        line += f"\nskipped {_n(len(headers), 'file')}: {kernel_headers.NO_KERNEL}"
    if jit:
        line += f"\nskipped {_n(jit, 'file')}: {NON_GEMM}"
    if manifests:
        line += f"\nskipped {_n(len(manifests), 'file')}: {cutlass_library.MANIFEST}"
    notes = [f"CUTLASS {v}: {origin}" for v, origin in sorted(tally.versions)]
    notes += [
        f"target {name} ({parts}): {optin:,} B opt-in shared memory per block"
        for name, parts, optin in sorted(tally.targets)
    ]
    notes += [
        f"context of {_n(n, 'file')}: {printable(text)}" for text, n in ranked(tally.contexts)
    ]
    return "\n".join([line, *notes])


def collapsed(tally: Tally, style: Style = PLAIN) -> str | None:
    """The files of only inactive or not-modeled instantiations, one line per reason (most
    instantiations first), instead of a block per file: on a whole cache they are most of the
    files, and what fails must not scroll away under them (`--show-unjudged` lists them)."""
    if not tally.unjudged:
        return None
    lines = []
    for (verdict, reason), u in sorted(
        tally.unjudged.items(), key=lambda g: (-g[1].count, g[0][0].value, g[0][1])
    ):
        what = {
            Verdict.NOT_MODELED: "not modeled (CUT010)",
            Verdict.NOT_FOR_GPU: "not for this GPU (CUT021)",
        }.get(verdict, "inactive")
        where = display_path(u.path) if u.files == 1 else _n(u.files, "file")
        lines.append(
            style.dim(f"{_n(u.count, 'instantiation')} {what} in {where}: {printable(reason)}")
        )
    lines.append(style.dim("(--show-unjudged lists these files one by one)"))
    return "\n".join(lines)


def failures(tally: Tally, style: Style = PLAIN) -> str | None:
    """Every predicted failure on one line, above the summary, where the eye lands."""
    if not tally.failing:
        return None
    lines = [f"predicted failures ({tally.failing:,}):"]
    for x in tally.failures:
        verdict = style.verdict(x.verdict, x.verdict.value)
        title = f" {printable(x.title)}" if x.title else ""
        lines.append(f"  {x.where}: {verdict} [{x.rules}]{title}")
    if tally.failing > MAX_FAILURE_LINES:
        lines.append(f"  ... and {tally.failing - MAX_FAILURE_LINES:,} more (above, or -q)")
    return "\n".join(lines)


class Parts(FileParts):
    """Each file's block: its tables and findings; none for a file folded into the lines per
    unjudged reason, or with no blocks shown (-q, --no-tables)."""

    def folded(self, f: FileResult) -> bool:
        shown = self.shown
        return not shown.quiet and not shown.show_unjudged and unjudged_only(f)

    def text(self, f: FileResult, folded: bool) -> str | None:
        shown = self.shown
        if not shown.tables or shown.quiet or folded:
            return None
        block = render_file(f, False, shown.style)
        return None if block is None else shown.safe(block)


class Stream(Spooled):
    """The text report of a check whose results are not held: each file's block is spooled as
    its result comes, and only the counts are kept; `finish` writes the report, byte for byte
    what `render` writes for the whole result. What to act on leads (the findings by rule and
    family), then what was not judged and why, then the tables: on a whole cache the tables are
    thousands of lines of `fits`, and what fails must be on the first screen."""

    between = "\n\n"

    parts_of = Parts

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        """Write the report to `out`; `check -p`'s translation units (their kernels, or their
        count) after the summary."""
        from cutlint.report.summary import act_on

        shown, style = self.shown, self.shown.style
        head = [act_on(self.tally, style), None if shown.quiet else collapsed(self.tally, style)]
        said = [h for h in head if h]
        out.write(shown.safe("\n\n".join(said)))
        if self.spooled:
            out.write("\n\n" if said else "")
            self.copy_to(out)
            said.append("")
        rest = [t for t in [failures(self.tally, style)] if t]
        rest.append(summary_of(self.tally, end.skipped, end.baselined))
        out.write(shown.safe(("\n\n" if said else "") + "\n\n".join(rest) + "\n"))
        if end.tus is not None:
            from cutlint.report.tu import section_text

            out.write(shown.safe(section_text(end.tus, shown.quiet)))


def render(
    result: CheckResult,
    quiet: bool = False,
    style: Style = PLAIN,
    show_unjudged: bool = False,
    tables: bool = True,
    tus: TuSection | None = None,
) -> str:
    """The whole result's report, as `Stream` writes it: every file's block, the predicted
    failures, then the summary, then (`check -p`) the translation units only the TU front end
    reads. `quiet`: only the instantiations with a finding, and no block for a file without one
    (`-q`). Files with nothing judged are collapsed into one line per reason unless
    `show_unjudged`. `tables` False (`--no-tables`): no per-file blocks."""
    return Stream.rendered(result, Shown(style, quiet, show_unjudged, tables), tus)
