"""`cutlint tu` output: each kernel a translation unit instantiates, per target, with the
dispatch conditions that select it and its measured shared storage. Renders only."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cutlint.tu_records import TuRead, TuVerdict


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


def render_json(reads: Sequence[tuple[TuRead, Sequence[TuVerdict]]]) -> str:
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
    return json.dumps(out, indent=2) + "\n"


__all__ = ["render_json", "render_text"]
