"""Text and JSON for `cutlint pregen`. Renders a PregenResult; computes nothing."""

from __future__ import annotations

import json
from collections import Counter

from tabulate import tabulate

from cutlint.explain.render import describe, prediction
from cutlint.pregen.records import GEMM_RUNNER_FAILING, PregenOperation, PregenResult
from cutlint.report.tactic_findings import keys_text, render_tactic_findings

WITHHELD_SHOWN = 3


def _row(o: PregenOperation) -> list[str]:
    span = o.result.instantiation.span
    ids = ", ".join(map(str, o.tactics)) or "-"
    return [f"{span.path}:{span.line}", describe(o.result), prediction(o.result), ids]


def render_text(r: PregenResult, show_all: bool = False) -> str:
    verdicts = Counter(o.result.verdict.value for o in r.operations)
    versions = sorted({
        f"CUTLASS {o.result.resources.cutlass_version} ({o.result.resources.cutlass_version_origin})"
        for o in r.operations if o.result.resources
    })  # fmt: skip
    counts = "; ".join(f"{n} {v}" for v, n in verdicts.most_common())
    out = [
        f"FlashInfer {r.flashinfer_version}: {r.generator}",
        f"  enumerated for {r.architectures!r} without writing files; judged for {r.arch}"
        + (f"; {versions[0]}" if len(versions) == 1 else ""),
        f"{len(r.operations)} operations: {len(r.failing)} would fail on {r.arch} ({counts})",
    ]
    shown = r.operations if show_all else r.failing
    if shown:
        headers = ["would be written at", "tactic", "cutlint", "tactic ids"]
        out += ["", tabulate([_row(o) for o in shown], headers=headers, tablefmt="simple")]
    if r.runner_tactics:
        out += ["", *_runner_tactics(r, show_all)]
    if r.gemm_runner_tactics:
        out += ["", *_gemm_runner_tactics(r, show_all)]
    if r.findings:
        out += [
            "",
            f"findings on the runners' tactics against the release's JIT modules ({len(r.findings)}):",
        ]
        out += render_tactic_findings(r.findings)
    if r.blocked:
        out += ["", "blocklist (FlashInfer's tactics_blocklist.py format):"]
        rows = [[b.key, b.tactic, b.config, b.reason] for b in r.blocked]
        out.append(tabulate(rows, headers=["key", "tactic", "config", "why"], tablefmt="simple"))
    if r.withheld:
        out += ["", f"withheld from the blocklist: {len(r.withheld)} id(s) another runner of the "
                "same key runs (the key names no dtype)"]  # fmt: skip
        out += [f"  {w.key} {w.tactic}: {w.reason}" for w in r.withheld[:WITHHELD_SHOWN]]
        if len(r.withheld) > WITHHELD_SHOWN:
            out.append(f"  ... {len(r.withheld) - WITHHELD_SHOWN} more (--format json lists all)")
    out += [f"note: {n}" for n in r.notes]
    return "\n".join(out) + "\n"


def _runner_tactics(r: PregenResult, show_all: bool) -> list[str]:
    """MoeGemmRunner's CUTLASS 2.x grouped tactics: one line per runner with its failing ids,
    then a row per id (every id of the FP8 x FP8 runner, the failing ones of the others; all with
    --all)."""
    out = [
        f"MoeGemmRunner's CUTLASS 2.x grouped tactics on {r.arch} (no file names them: "
        "cutlass_heuristic.cpp's lists, the autotuner's ids):"
    ]
    runners = list(dict.fromkeys(t.runner for t in r.runner_tactics))
    rows = []
    for runner in runners:
        mine = [t for t in r.runner_tactics if t.runner == runner]
        bad = [t for t in mine if t.status != "runs"]
        ids = ", ".join(f"{t.tactic}" + ("" if t.status == "fails" else " (partly)") for t in bad)
        out.append(
            f"  {runner}: {len(mine)} ids (0-{len(mine) - 1}), "
            + (f"{len(bad)} fail: {ids}" if bad else "none fails")
        )
        every = show_all or runner == runners[0]
        rows += [
            [runner.split(" (")[0], t.tactic, t.key.split("::")[-2], t.config, t.verdict,
             t.prefilter or "-"]
            for t in mine
            if every or t.status != "runs"
        ]  # fmt: skip
    headers = ["runner", "id", "op", "config", "verdict", "pre-filter"]
    return [*out, "", tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)]


def _gemm_runner_tactics(r: PregenResult, show_all: bool) -> list[str]:
    """The dense SM120 GEMM runners: one line per runner with its failing ids, then a row per
    failing id (every id with --all)."""
    out = [
        f"SM120 dense GEMM runners' tactics on {r.arch} (getConfigs()'s order, the autotuner's "
        "ids; their blocklist keys are their own):"
    ]
    # SVDQuant's runners share one launcher prefix: a runner is its prefix and its class.
    runners = list(dict.fromkeys((t.runner, t.runner_class) for t in r.gemm_runner_tactics))
    rows = []
    for runner, runner_class in runners:
        mine = [
            t for t in r.gemm_runner_tactics if (t.runner, t.runner_class) == (runner, runner_class)
        ]
        bad = [t for t in mine if t.fails]
        unknown = [t for t in mine if t.verdict not in ("fits", *GEMM_RUNNER_FAILING)]
        keys = keys_text(mine[0].keys)
        text = (f"{len(bad)} fail: {', '.join(str(t.tactic) for t in bad)}" if bad
                else "none fails")  # fmt: skip
        if unknown:
            text += f"; {len(unknown)} not judged ({unknown[0].verdict})"
        label = (
            runner
            if len({c for p, c in runners if p == runner}) == 1
            else (f"{runner} {runner_class}")
        )
        ids = [t.tactic for t in mine]
        # getConfigs()'s indices 0..n-1; the groupwise runner's literal list ([-1]) as it is
        listed = (f"{ids[0]}-{ids[-1]}" if ids == list(range(ids[0], ids[-1] + 1)) and len(ids) > 1
                  else ", ".join(map(str, ids)))  # fmt: skip
        span = f"{len(mine)} tactics ({listed})"
        if any(t.ids != (t.tactic,) for t in mine):
            span += f", {sum(len(t.ids) for t in mine)} packed ids"
        else:
            span = f"{len(mine)} id{'s' if len(mine) != 1 else ''} ({listed})"
        out.append(f"  {label} ({keys}): {span}, {text}")
        rows += [
            [label, t.tactic, t.config, t.tile, t.verdict,
             f"{t.smem:,} B" if t.smem is not None else "-"]
            for t in mine
            if show_all or t.fails
        ]  # fmt: skip
    if not rows:
        return out
    headers = ["runner", "id", "config", "tile", "verdict", "SharedStorage"]
    return [*out, "", tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)]


def render_json(r: PregenResult) -> str:
    data = json.loads(r.model_dump_json())
    data["summary"] = {
        "operations": len(r.operations),
        "failing": len(r.failing),
        "blocked": len(r.blocked),
        "withheld": len(r.withheld),
        "gemm_runner_tactics_failing": len(r.failing_gemm_runner_tactics),
        "findings": len(r.findings),
    }
    return json.dumps(data, indent=2) + "\n"
