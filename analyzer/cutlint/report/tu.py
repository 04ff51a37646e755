"""`cutlint tu` output: each kernel a translation unit instantiates, per target, with the
dispatch conditions that select it and its measured shared storage. Renders only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cutlint.records import Diagnostic
from cutlint.tu_records import TuKernel, TuNvccCheck, TuRead, TuSection, TuVerdict

MEASURED_ONLY = "measured, not explained"


def model_lines(v: TuVerdict) -> list[str]:
    """The family's model beside the measurement: equal, differing (a defect of the model,
    shown, never hidden), outside the family's model, or no family (measured, not explained)."""
    m, k = v.model, v.kernel
    if m is None:
        return [f"no family claims it: {MEASURED_ONLY}"]
    if m.reason is not None:
        # measured, never "not modeled": libclang's layout is the kernel's number
        return [f"{MEASURED_ONLY}: claimed by {m.family}, outside its model: {m.reason}"]
    equals = m.equals(k)
    stages = f", {m.stages} stages" if m.stages is not None else ""
    if equals:
        head = (
            f"modeled by {m.family}: {_num(m.shared_storage)} B{stages}, equals the measured layout"
        )
    else:
        head = (
            f"MODEL DIFFERS from the measured layout: {m.family} models "
            f"{_num(m.shared_storage)} B{stages}, clang measured {_num(k.shared_storage)} B, "
            f"{_num(k.stages)} stages (a defect of the model)"
        )
    out = [head]
    if m.stage_formula:
        out.append(f"  stages: {m.stage_formula}")
    out += [f"  {p.name:<24} @{p.offset:>7,}  {p.size:>7,} B" for p in m.parts]
    return out


def model_counts(verdicts: Sequence[TuVerdict]) -> str:
    """`16 modeled (16 equal the measured layout, 0 differ), 0 measured only`."""
    modeled = [v for v in verdicts if v.model is not None and v.model.reason is None]
    equal = sum(bool(v.model and v.model.equals(v.kernel)) for v in modeled)
    return (
        f"{len(modeled)} modeled ({equal} equal the measured layout, {len(modeled) - equal} "
        f"differ), {len(verdicts) - len(modeled)} measured, not explained"
    )


def _short_path(path: str, root: str) -> str:
    return path[len(root) :].lstrip("/") if root and path.startswith(root) else path


def render_text(reads: Sequence[tuple[TuRead, Sequence[TuVerdict]]]) -> str:
    lines: list[str] = []
    for read, verdicts in reads:
        root = read.command.file.rsplit("/", 1)[0]
        lines.append(f"{read.command.file}  [{read.arch}]")
        how = "from the cache" if read.cached else f"read in {read.seconds:.1f} s"
        lines.append(f"  {len(verdicts)} CUTLASS kernel(s), {how}; {model_counts(verdicts)}")
        for v in verdicts:
            k = v.kernel
            site = k.chosen_by
            smem = f"{k.shared_storage:,}" if k.shared_storage else "?"
            lines.append(
                f"  {_short_path(site.path, root)}:{site.line}  "
                f"tile {k.tile or '?'}  cluster {k.cluster or '?'}  stages {k.stages or '?'}  "
                f"{k.elements or ''}"
            )
            lines.append(
                f"      smem {smem} / {v.smem_optin:,} B (measured, libclang)  -> {v.verdict}"
            )
            lines += [f"      {line}" for line in model_lines(v)]
            for path in k.paths:
                conds = " && ".join(_operand(c) for c in k.conditions(path)) or "always"
                lines.append(f"      when {conds}")
            if k.paths_omitted:
                lines.append(f"      {omitted_paths(k)}")
            lines.append(f"      type {k.type_expr}")
            for f in v.findings:
                lines.append(f"      {f.severity} {f.rule} {f.name}: {f.message}")
        if read.missing_headers:
            lines.append(
                f"  headers not found, read as empty stubs: {', '.join(read.missing_headers)}"
            )
        for note in read.unresolved:
            lines.append(f"  note: {note}")
        lines.append("")
    return "\n".join(lines)


def not_read(count: int, database: str) -> str:
    """`check -p` without `--tu`: how many TUs hold kernels only the TU front end finds."""
    tus = "translation unit" if count == 1 else "translation units"
    return (
        f"{count:,} {tus} of {database} hold CollectiveBuilder code that only the TU front end "
        f"instantiates, not read: --tu reads them (as `cutlint tu FILE -p {database}`)\n"
    )


def not_for_gpu(paths: Sequence[str], arch: str | None) -> str:
    """The TUs `check --tu` did not read: no target of their command loads on the GPU."""
    if not paths:
        return ""
    tus = "translation unit" if len(paths) == 1 else "translation units"
    return (
        f"{len(paths):,} {tus} not read: no -gencode target of their command loads on {arch} "
        f"(not for this GPU): {', '.join(Path(p).name for p in paths)}\n"
    )


def _num(n: int | None) -> str:
    return "?" if n is None else f"{n:,}"


def render_checks_text(checks: Sequence[TuNvccCheck]) -> str:
    """`--verify`: each kernel's libclang numbers beside nvcc's, agree or differ."""
    if not checks:
        return "nvcc: no measured kernel to compare\n"
    cached = all(c.cached for c in checks)
    lines = [f"nvcc (host pass{', from the cache' if cached else ''}) against libclang:"]
    for c in checks:
        word = "agree" if c.agrees else "differ"
        lines.append(
            f"  {word:6}  smem {_num(c.shared_storage)} / nvcc {_num(c.nvcc_shared_storage)} B"
            f"  stages {_num(c.stages)} / nvcc {_num(c.nvcc_stages)}  [{c.arch}]"
        )
        lines.append(f"          type {c.type_expr}")
    agree = sum(c.agrees for c in checks)
    lines.append(f"  {agree} of {len(checks)} kernel(s) agree, {len(checks) - agree} differ")
    return "\n".join(lines) + "\n"


def render_json(
    reads: Sequence[tuple[TuRead, Sequence[TuVerdict]]],
    checks: Sequence[TuNvccCheck] | None = None,
) -> str:
    out = [
        {
            "read": read.model_dump(mode="json"),
            "verdicts": [
                {
                    "type_expr": v.kernel.type_expr,
                    "verdict": v.verdict,
                    "smem_optin": v.smem_optin,
                    "findings": [f.model_dump(mode="json") for f in v.findings],
                    "model": v.model.model_dump(mode="json") if v.model else None,
                    "model_equals_measured": v.model.equals(v.kernel) if v.model else None,
                }
                for v in verdicts
            ],
        }
        for read, verdicts in reads
    ]
    if checks is None:
        return json.dumps(out, indent=2) + "\n"
    nvcc = [{**c.model_dump(mode="json"), "agrees": c.agrees} for c in checks]
    return json.dumps({"reads": out, "nvcc": nvcc}, indent=2) + "\n"


def dispatch(k: TuKernel) -> list[str]:
    """Each dispatch path's branch conditions as one expression (`always`: none)."""
    return [" && ".join(_operand(c) for c in k.conditions(p)) or "always" for p in k.paths]


def omitted_paths(k: TuKernel) -> str:
    """The note for a kernel's dispatch paths beyond those listed (parse/tu/front.MAX_PATHS)."""
    return (
        f"and {k.paths_omitted:,} more dispatch path(s), not listed (the first {len(k.paths)} are)"
    )


def explained_by(v: TuVerdict) -> str:
    """The family whose model gives the kernel's numbers, or `measured` (libclang's layout,
    not explained: no family claims it, or it lies outside the claiming family's model)."""
    m = v.model
    return m.family if m is not None and m.reason is None else "measured"


def _model_data(v: TuVerdict) -> dict[str, Any] | None:
    m = v.model
    if m is None:
        return None
    return {
        "family": m.family,
        "reason": m.reason,
        "shared_storage": m.shared_storage,
        "stages": m.stages,
        "equals_measured": m.equals(v.kernel),
        "stage_formula": m.stage_formula or None,
        "breakdown": [p.model_dump() for p in m.parts],
    }


def kernel_data(v: TuVerdict) -> dict[str, Any]:
    """One kernel of a `check --tu` read, as the JSON report (docs/json-schema.md) and SARIF's
    run properties carry it."""
    k = v.kernel
    site = k.chosen_by
    smem = k.shared_storage
    return {
        "path": site.path,
        "line": site.line,
        "call": site.call,
        "type_expr": k.type_expr,
        "kernel_type": k.kernel_type,
        "dispatch": dispatch(k),
        "paths": [[s.model_dump(mode="json") for s in p] for p in k.paths],
        "paths_omitted": k.paths_omitted,
        "tile": k.tile,
        "cluster": k.cluster,
        "stages": k.stages,
        "elements": k.elements,
        "dispatch_policy": k.dispatch_policy,
        "smem_bytes": smem,
        "smem_limit": v.smem_optin,
        "smem_slack": v.smem_optin - smem if smem is not None else None,
        "verdict": v.verdict,
        "explained_by": explained_by(v),
        "model": _model_data(v),
        "compile_error": k.compile_error,
        "findings": [f.model_dump(mode="json") for f in v.findings],
    }


def section_data(tus: TuSection | None) -> dict[str, Any] | None:
    """The `translation_units` object of the JSON report (None: no -p, or no such TU)."""
    if tus is None:
        return None
    verdicts = tus.verdicts()
    by_verdict: dict[str, int] = {}
    for v in verdicts:
        by_verdict[v.verdict] = by_verdict.get(v.verdict, 0) + 1
    return {
        "database": tus.database,
        "found": tus.found,
        "read": tus.read,
        "gpu": tus.gpu,
        "kernels": len(verdicts),
        "by_verdict": dict(sorted(by_verdict.items())),
        "modeled": sum(explained_by(v) != "measured" for v in verdicts),
        "not_for_gpu": list(tus.not_for_gpu),
        "units": [
            {
                "file": u.read.command.file,
                "arch": u.read.arch,
                "origin": u.read.command.origin,
                "cached": u.read.cached,
                "seconds": u.read.seconds,
                "missing_headers": list(u.read.missing_headers),
                "unresolved": list(u.read.unresolved),
                "kernels": [kernel_data(v) for v in u.verdicts],
            }
            for u in tus.units
        ],
    }


def tu_diagnostics(tus: TuSection | None, root: Path) -> list[tuple[Diagnostic, TuVerdict]]:
    """The TU kernels' findings as the line-oriented formats place them (engine/tu_check.py)."""
    if tus is None:
        return []
    from cutlint.engine.tu_check import diagnostics

    return diagnostics(tus, root)


def section_text(tus: TuSection | None, quiet: bool = False) -> str:
    """The text report's part for `check -p`: the reads as `cutlint tu` prints them, or the
    count of TUs not read. `quiet`: only the kernels with a finding."""
    if tus is None:
        return ""
    if not tus.read:
        return not_read(tus.found, tus.database)
    reads = [
        (u.read, [v for v in u.verdicts if v.findings] if quiet else u.verdicts) for u in tus.units
    ]
    return render_text(reads) + not_for_gpu(list(tus.not_for_gpu), tus.gpu)


def summary_line(tus: TuSection | None) -> str | None:
    """One line for the summary of the line-oriented formats: kernels, verdicts, models."""
    if tus is None:
        return None
    if not tus.read:
        return not_read(tus.found, tus.database).rstrip("\n")
    verdicts = tus.verdicts()
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    said = ", ".join(f"{n:,} {w}" for w, n in sorted(counts.items())) or "none"
    units = len(tus.units)
    line = (
        f"{len(verdicts):,} kernel(s) in {units:,} translation unit(s) read by the TU front "
        f"end: {said}; {model_counts(verdicts)}"
    )
    if tus.not_for_gpu:
        line += f"; {len(tus.not_for_gpu):,} not for this GPU"
    return line


def kernel_line(v: TuVerdict) -> str:
    """A kernel in one line, for the concise format: its config, numbers, verdict, model."""
    k = v.kernel
    smem = _num(k.shared_storage)
    stages = f", {k.stages} stages" if k.stages else ""
    model = explained_by(v)
    how = f"modeled by {model}" if model != "measured" else MEASURED_ONLY
    more = f"; {omitted_paths(k)}" if k.paths_omitted else ""
    return (
        f"{k.type_expr} {v.verdict} on {v.arch}: {smem} / {v.smem_optin:,} B{stages} "
        f"({how}); when {' || '.join(_operand(d) for d in dispatch(k))}{more}"
    )


__all__ = [
    "dispatch",
    "explained_by",
    "kernel_data",
    "kernel_line",
    "omitted_paths",
    "render_checks_text",
    "render_json",
    "render_text",
    "section_data",
    "section_text",
    "summary_line",
    "tu_diagnostics",
]


def _operand(cond: str) -> str:
    """A condition as one operand of `&&`: `m <= 128 || (m % 4 != 0)` in brackets."""
    depth = 0
    for i, ch in enumerate(cond):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and cond.startswith("||", i):
            return f"({cond})"
    return cond
