"""Text and JSON for explanations. Renders records; computes nothing."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from tabulate import tabulate

from cutlint.explain.records import (
    CLASS_TITLES,
    Agreement,
    CallerReading,
    Failure,
    GemmRunnerReading,
    GemmRunnerTactic,
    LogExplanation,
)
from cutlint.explain.tree import LEGEND, render_tree
from cutlint.families.registry import family_of
from cutlint.logs.events import LogEventKind
from cutlint.records import InstantiationResult
from cutlint.report.escape import printable
from cutlint.report.tactic_findings import keys_text, render_tactic_findings

if TYPE_CHECKING:
    import networkx as nx

WIDTH = 100
LABEL = 11  # width of the "maps to:" column


def describe(r: InstantiationResult) -> str:
    """The claiming family's one-line title (`e2m1 x e2m1 -> bf16, FINALIZE, 256x128x128,
    SwapAB off`), or the instantiation's name where no family claims it."""
    if r.recipe is None:
        return r.instantiation.name
    return family_of(r.recipe).title(r.recipe)


def prediction(r: InstantiationResult) -> str:
    """`fails initialize(): 3 stages, 102,400 / 101,376 B [CUT101, CUT104]`."""
    res = r.resources
    rules = ", ".join(dict.fromkeys(d.rule for d in r.diagnostics))
    tail = f"  [{rules}]" if rules else ""
    if res is None:
        reason = r.not_modeled.reason if r.not_modeled else ""
        return f"{r.verdict.value}: {reason}"
    stages = res.stage_count.stages
    return (
        f"{r.verdict.value}: {stages} stages, {res.layout.size:,} / {res.arch.smem_optin:,} B{tail}"
    )


def _field(label: str, text: str, first_width: int = WIDTH) -> list[str]:
    head = f"  {label + ':':<{LABEL}}"
    indent = " " * len(head)
    return textwrap.wrap(text, width=first_width, initial_indent=head, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False) or [head]  # fmt: skip


def display(path: str) -> str:
    """Relative to the working directory when under it, as the text reporter prints paths."""
    try:
        return printable(str(Path(path).resolve().relative_to(Path.cwd())))
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
        return printable(path)


def _where(r: InstantiationResult) -> str:
    return f"{display(r.instantiation.span.path)}:{r.instantiation.span.line}"


def _failure(i: int, total: int, f: Failure) -> list[str]:
    lines = [f"failure {i} of {total}: log line {f.log_lines[0]}"
             + (f" (and {len(f.log_lines) - 1} more)" if len(f.log_lines) > 1 else "")]  # fmt: skip
    lines.append(f"  {'log:':<{LABEL}}{f.event.text}")
    if f.matches:
        lines.append(f"  {'maps to:':<{LABEL}}{_where(f.matches[0])}  ({f.match_note})")
        for r in f.matches[1:4]:
            lines.append(" " * (LABEL + 2) + _where(r))
        if len(f.matches) > 4:
            lines.append(" " * (LABEL + 2) + f"... {len(f.matches) - 4} more")
        shown = f.matches[0]
        lines.append(f"  {'tactic:':<{LABEL}}{describe(shown)}")
        lines.append(f"  {'cutlint:':<{LABEL}}{prediction(shown)}")
    elif f.kind is LogEventKind.GEMM_RUNNER_FAILED or f.caller is not None:
        lines += _field("maps to", f.match_note)
    else:
        lines += _field("maps to", f"nothing in the cache: {f.match_note}")
    if f.tactic_reading:
        lines += _field("tactic id", f.tactic_reading)
    cls = f"{f.failure_class.value}: {CLASS_TITLES[f.failure_class]}" if f.failure_class else "?"
    static = (
        ""
        if f.failure_class is None
        else ("" if f.failure_class.static else " (decided by the run, not the source)")
    )
    lines.append(f"  {'class:':<{LABEL}}{cls}{static}")
    lines.append(f"  {'status:':<{LABEL}}{f.agreement.value}")
    lines += _field("why", f.explanation)
    if f.gemm_runner is not None:
        lines += _gemm_runner(f.gemm_runner)
    if f.caller is not None:
        lines += _caller(f.caller)
    return lines


def _caller(c: CallerReading) -> list[str]:
    """The kernels a hand-written caller can launch, each with the line that chose it, its
    dispatch conditions and its verdict for the log's GPU."""
    lines = _field(
        "kernels",
        f"{len(c.kernels)} candidate(s) whose dispatch path goes through {c.caller}, judged for "
        f"{c.device} ({c.device_origin}):",
    )
    pad = " " * (LABEL + 2)
    for k in c.kernels:
        smem = f"{k.shared_storage:,}" if k.shared_storage is not None else "?"
        limit = f"{k.smem_optin:,} B" if k.smem_optin else "?"
        lines.append(
            f"{pad}{display(k.chosen_by)}  [{k.target}]  tile {k.tile or '?'}  cluster "
            f"{k.cluster or '?'}  stages {k.stages or '?'}  {k.elements or ''}".rstrip()
        )
        lines.append(f"{pad}    smem {smem} / {limit} (measured, libclang)  -> {k.verdict}")
        for conds in k.conditions:
            lines.append(f"{pad}    when {' && '.join(conds) or 'always'}")
        if k.paths_omitted:
            lines.append(
                f"{pad}    and {k.paths_omitted:,} more dispatch path(s) of the kernel, not listed"
            )
        if not k.through.startswith(f"{Path(k.chosen_by).name} "):
            lines.append(f"{pad}    via {k.through}")
    lines += _field("read from", "; ".join(c.tus) or "no translation unit")
    return lines


def _bytes(t: GemmRunnerTactic) -> str:
    if t.smem is None:
        return "-"
    return f"{t.smem:,} B" + (f" ({t.stages} stages)" if t.stages is not None else "")


def _gemm_runner(g: GemmRunnerReading) -> list[str]:
    """The runner's tactics in the autotuner's order, with each one's verdict and bytes; the
    SharedStorage of each failing one by part."""
    keys = keys_text(g.blocklist_keys)
    limit = f"{g.tactics[0].limit:,} B" if g.tactics else "?"
    lines = _field(
        "tactics",
        f"{g.prefix} ({g.runner_class}; blocklist key {keys}) in FlashInfer {g.release} on "
        f"{g.arch} ({limit} per block), ids as the autotuner numbers them:",
    )
    rows = [
        [("*" if t.logged else "") + str(t.id), t.config, f"{t.tile.m}x{t.tile.n}x{t.tile.k}",
         "on" if t.swap_ab else "off", t.kernel, t.verdict, _bytes(t)]
        for t in g.tactics
    ]  # fmt: skip
    table = tabulate(rows, headers=["id", "config", "tile", "SwapAB", "kernel", "verdict", "SharedStorage"],
                     tablefmt="simple", disable_numparse=True)  # fmt: skip
    pad = " " * (LABEL + 2)
    lines += [pad + row for row in table.splitlines()]
    if any(t.logged for t in g.tactics):
        lines.append(pad + "* the id(s) the log names")
    shown: set[tuple[tuple[str, int], ...]] = set()
    for t in g.tactics:
        if t.verdict == "fits" or not t.breakdown or t.breakdown in shown:
            continue
        shown.add(t.breakdown)
        same = [str(u.id) for u in g.tactics if u.breakdown == t.breakdown]
        parts = " + ".join(f"{name} {size:,}" for name, size in t.breakdown)
        lines += _field(
            "bytes", f"tactic(s) {', '.join(same)}: {t.smem:,} B = {parts} > {t.limit:,} B"
        )
    lines += _field("list", g.source)
    if not g.instantiations_checked:
        lines += _field(
            "kernels", "not checked against a cache's module (give --cache with the module's files)"
        )
    return lines


def summary_line(e: LogExplanation) -> str:
    n = len(e.failures)
    counts = [
        f"{e.count(Agreement.EXPLAINED)} explained",
        f"{e.count(Agreement.NOT_DECIDABLE)} not decidable statically",
        f"{e.count(Agreement.CONTRADICTS)} contradicting the model",
        f"{e.count(Agreement.NOT_MODELED)} not modeled",
        f"{e.count(Agreement.UNMAPPED)} not found in the cache",
    ]
    if e.count(Agreement.STATED):
        counts.append(f"{e.count(Agreement.STATED)} decided by the line alone")
    if e.count(Agreement.UNRECOGNIZED):
        counts.append(f"{e.count(Agreement.UNRECOGNIZED)} not recognized (shown as logged)")
    return f"{n} distinct failure{'' if n == 1 else 's'}: " + ", ".join(counts)


def render_log_text(e: LogExplanation) -> str:
    version = f" (FlashInfer {e.cache_flashinfer_version})" if e.cache_flashinfer_version else ""
    lines = f"{e.log_lines:,} line{'' if e.log_lines == 1 else 's'}"
    if e.cache is not None:
        against = f"explained against {e.cache}{version}"
    else:
        release = f"FlashInfer {e.flashinfer_version}" if e.flashinfer_version else "no release"
        against = f"explained against {release} on {e.arch} (no cache)"
    out = [f"{e.log_path}: {lines}, {against}"]
    out += [f"note: {n}" for n in e.notes]
    for i, f in enumerate(e.failures, start=1):
        out.append("")
        out += _failure(i, len(e.failures), f)
    if e.findings:
        out += [
            "",
            f"findings on the runners' tactics against the cache's module ({len(e.findings)}):",
        ]
        out += render_tactic_findings(e.findings)
    for s in e.summaries:
        out.append("")
        out.append(f"autotuner summary, log line {s.event.line_no}: {s.event.text}")
        out += _field("model", s.predicted)
    out += ["", summary_line(e)]
    return printable("\n".join(out) + "\n", newlines=True)  # log lines and paths are input


def render_log_json(e: LogExplanation) -> str:
    data = e.model_dump(mode="json")  # not model_dump_json: see render_derivation_json
    data["summary"] = {a.name.lower(): e.count(a) for a in Agreement} | {
        "failures": len(e.failures),
        "findings": len(e.findings),
    }
    return json.dumps(data, indent=2) + "\n"


def render_derivation_text(r: InstantiationResult, g: nx.DiGraph[str], sources: bool = True) -> str:
    inst = r.instantiation
    where = inst.span.path if inst.span.line == 0 else f"{display(inst.span.path)}:{inst.span.line}"
    head = [f"{where}: {describe(r)}", f"  cutlint: {prediction(r)}", ""]
    head += [LEGEND, ""] if sources else [""]
    return printable("\n".join(head) + render_tree(g, sources=sources), newlines=True)


def render_derivation_json(r: InstantiationResult, g: nx.DiGraph[str]) -> str:
    data = {
        # model_dump, not model_dump_json: a path that is not UTF-8 (lone surrogates) cannot be
        # encoded by pydantic-core; json.dumps escapes it.
        "instantiation": r.instantiation.model_dump(mode="json"),
        "verdict": r.verdict.value,
        # Written out rather than nx.node_link_data, whose key for edges differs across the
        # networkx versions cutlint accepts (`links` before 3.4, `edges` after).
        "nodes": [{"id": n, **g.nodes[n]} for n in g.nodes],
        "edges": [{"node": u, "derived_from": v} for u, v in g.edges],
    }
    return json.dumps(data, indent=2, default=str) + "\n"
