"""Text output: a table per file, one line of why per failure, then a summary."""

from __future__ import annotations

import os

from tabulate import tabulate

from cutlint.families.registry import family_named, family_of
from cutlint.producers.flashinfer.cache_layout import NON_GEMM
from cutlint.records import CheckResult, Diagnostic, FileResult, InstantiationResult, Verdict

CORE_HEADERS = ("stages", "smem / limit (B)", "verdict", "rule")
CORE_ALIGN = ("right", "right", "left", "left")


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
        r.verdict.value,
        rules,
    ]


def _table(family: str | None, rows: list[InstantiationResult]) -> str:
    columns = _columns(family)
    return tabulate(
        [_row(r, len(columns)) for r in rows],
        headers=["line", *columns, *CORE_HEADERS],
        tablefmt="simple",
        disable_numparse=True,  # every cell is already text; type sniffing costs 2 s per 10,000 rows
        colalign=("right", *["left"] * len(columns), *CORE_ALIGN),
    )


def _by_family(f: FileResult) -> dict[str | None, list[InstantiationResult]]:
    """The file's instantiations grouped by the family that claimed them, in file order: each
    family's table has its own columns."""
    groups: dict[str | None, list[InstantiationResult]] = {}
    for r in f.instantiations:
        groups.setdefault(r.recipe.family if r.recipe else None, []).append(r)
    return groups


def _display(path: str) -> str:
    """Relative to the working directory when under it, as ruff and clang-tidy print paths."""
    relative = os.path.relpath(os.path.abspath(path))
    return path if relative.startswith("..") else relative


def _finding(d: Diagnostic) -> str:
    where = f"line {d.line}" if d.line else "file"
    text = f"  {where}: {d.severity.value} {d.rule} {d.name}: {d.message}"
    if d.why:
        text += f"\n      {d.why}"
    return text


_UNJUDGED = {
    Verdict.NOT_MODELED: "not modeled (CUT010, lines {})",
    Verdict.INACTIVE: "inactive (lines {})",
}
"""Verdicts with no model behind them: a file of only these gets one line per reason."""


def _not_modeled_only(f: FileResult) -> str | None:
    """A file none of whose instantiations is modeled (not modeled, or inactive: compiled out)
    gets one line per reason, not a table."""
    if not f.instantiations or any(r.verdict not in _UNJUDGED for r in f.instantiations):
        return None
    reasons: dict[tuple[Verdict, str], list[int]] = {}
    for r in f.instantiations:
        reason = r.not_modeled.reason if r.not_modeled else "?"
        reasons.setdefault((r.verdict, reason), []).append(r.instantiation.span.line)
    lines = [_display(f.path)]
    for (verdict, reason), at in reasons.items():
        first = ", ".join(map(str, at[:4])) + (", ..." if len(at) > 4 else "")
        lines.append(
            f"  {_n(len(at), 'instantiation')} {_UNJUDGED[verdict].format(first)}: {reason}"
        )
    lines.extend(_finding(d) for d in f.diagnostics)
    return "\n".join(lines)


def render_file(f: FileResult) -> str:
    collapsed = _not_modeled_only(f)
    if collapsed is not None:
        return collapsed
    parts = [_display(f.path)]
    parts.extend(_table(family, rows) for family, rows in _by_family(f).items())
    findings = list(f.diagnostics) + [d for r in f.instantiations for d in r.diagnostics]
    parts.extend(_finding(d) for d in findings)
    return "\n".join(parts)


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def summary(result: CheckResult) -> str:
    rows = [r for f in result.files for r in f.instantiations]
    count = {v: sum(1 for r in rows if r.verdict is v) for v in Verdict}
    inputs = sum(len(f.diagnostics) for f in result.files)
    fails = count[Verdict.FAILS_INITIALIZE] + count[Verdict.FAILS_COMPILE]
    line = (
        f"{_n(len(rows), 'instantiation')} in {_n(len(result.files), 'file')}: {_n(fails, 'predicted failure')} "
        f"({count[Verdict.FAILS_INITIALIZE]} at initialize(), {count[Verdict.FAILS_COMPILE]} at compile time), "
        f"{count[Verdict.ZERO_SLACK]} with zero slack, {count[Verdict.UNREACHABLE]} never dispatched, "
        f"{count[Verdict.NOT_MODELED]} not modeled, {count[Verdict.INACTIVE]} inactive"
    )
    if inputs:
        line += f"; {_n(inputs, 'input problem')}"
    if result.baselined:
        line += f"; {len(result.baselined):,} in baseline"
    if result.skipped:
        line += f"\nskipped {_n(len(result.skipped), 'file')}: {NON_GEMM}"
    versions = sorted(
        {
            (r.resources.cutlass_version, r.resources.cutlass_version_origin)
            for r in rows
            if r.resources
        }
    )
    notes = [f"CUTLASS {v}: {origin}" for v, origin in versions]
    targets = sorted(
        {
            (r.resources.arch.name, r.resources.arch.parts, r.resources.arch.smem_optin)
            for r in rows
            if r.resources
        }
    )
    notes += [
        f"target {name} ({parts}): {optin:,} B opt-in shared memory per block"
        for name, parts, optin in targets
    ]
    return "\n".join([line, *notes])


def render(result: CheckResult) -> str:
    blocks = [render_file(f) for f in result.files]
    return "\n\n".join([*blocks, summary(result)]) + "\n"
