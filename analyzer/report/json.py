"""JSON output, versioned: the schema is documented in docs/json-schema.md."""

from __future__ import annotations

import json
from typing import Any

from cutlint.records import CheckResult, Diagnostic, InstantiationResult

SCHEMA_VERSION = 1


def _finding(d: Diagnostic) -> dict[str, Any]:
    return {
        "rule": d.rule,
        "name": d.name,
        "severity": d.severity.value,
        "path": d.path,
        "line": d.line,
        "message": d.message,
        "why": d.why,
        "fix": d.fix,
        "fingerprint": d.fingerprint,
    }


def _instantiation(r: InstantiationResult) -> dict[str, Any]:
    inst, res, m = r.instantiation, r.resources, r.instantiation.moe
    out: dict[str, Any] = {
        "path": inst.span.path,
        "line": inst.span.line,
        "column": inst.span.column,
        "end_line": inst.span.end_line,
        "family": inst.family.value,
        "name": inst.name,
        "args": list(inst.args),
        "guard": inst.guard.model_dump() if inst.guard else None,
        "arch_tag": m.arch_tag if m else None,
        "act_type": m.act_type.value if m and m.act_type else None,
        "weight_type": m.weight_type.value if m and m.weight_type else None,
        "output_type": m.output_type.value if m and m.output_type else None,
        "fusion": m.fusion.value if m and m.fusion else None,
        "tile": [m.cta_tile.m, m.cta_tile.n, m.cta_tile.k] if m else None,
        "cluster": [m.cluster.m, m.cluster.n, m.cluster.k] if m else None,
        "swap_ab": m.swap_ab if m else None,
        "mxfpx": m.mxfpx if m else None,
        "verdict": r.verdict.value,
        "not_modeled": r.not_modeled.reason if r.not_modeled else None,
        "arch": res.arch.name if res else None,
        "cutlass_version": res.cutlass_version if res else None,
        "cutlass_version_origin": res.cutlass_version_origin if res else None,
        "stages": res.stage_count.stages if res else None,
        "smem_bytes": res.layout.size if res else None,
        "smem_limit": res.arch.smem_optin if res else None,
        "smem_slack": res.arch.smem_optin - res.layout.size if res else None,
        "mainloop_smem_bytes": res.layout.mainloop_size if res else None,
        "epilogue_smem_bytes": res.layout.epilogue_size if res else None,
        "max_threads_per_block": res.max_threads_per_block if res else None,
        "tma_descriptors": res.tma_descriptors if res else None,
        "breakdown": [reg.model_dump() for reg in res.layout.regions] if res else None,
        "stage_count": res.stage_count.model_dump() if res else None,
        "variants": [v.model_dump(mode="json") for v in res.variants] if res else None,
        "findings": [_finding(d) for d in r.diagnostics],
    }
    return out


def to_data(result: CheckResult) -> dict[str, Any]:
    rows = [r for f in result.files for r in f.instantiations]
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": "cutlint",
        "files": [
            {"path": f.path, "diagnostics": [_finding(d) for d in f.diagnostics]}
            for f in result.files
        ],
        "instantiations": [_instantiation(r) for r in rows],
        "summary": {
            "files": len(result.files),
            "instantiations": len(rows),
            "by_verdict": {
                v: sum(1 for r in rows if r.verdict.value == v)
                for v in sorted({r.verdict.value for r in rows})
            },
            "findings_by_rule": _by_rule(result.all_diagnostics()),
            "baselined": len(result.baselined),
        },
    }


def _by_rule(diags: list[Diagnostic]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.rule] = counts.get(d.rule, 0) + 1
    return dict(sorted(counts.items()))


def render(result: CheckResult) -> str:
    return json.dumps(to_data(result), indent=2) + "\n"
