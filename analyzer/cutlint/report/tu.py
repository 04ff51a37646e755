"""`cutlint tu` output: each kernel a translation unit instantiates, per target, with the
dispatch conditions that select it and its measured shared storage. Renders only."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cutlint.tu_records import TuNvccCheck, TuRead, TuVerdict


def _short_path(path: str, root: str) -> str:
    return path[len(root) :].lstrip("/") if root and path.startswith(root) else path


def render_text(reads: Sequence[tuple[TuRead, Sequence[TuVerdict]]]) -> str:
    lines: list[str] = []
    for read, verdicts in reads:
        root = read.command.file.rsplit("/", 1)[0]
        lines.append(f"{read.command.file}  [{read.arch}]")
        how = "from the cache" if read.cached else f"read in {read.seconds:.1f} s"
        lines.append(f"  {len(verdicts)} CUTLASS kernel(s), {how}")
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
            for path in k.paths:
                conds = " && ".join(k.conditions(path)) or "always"
                lines.append(f"      when {conds}")
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


__all__ = ["render_checks_text", "render_json", "render_text"]
