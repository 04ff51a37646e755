"""Text and JSON for `cutlint pregen cutlass-library`. Renders a CutlassLibraryPregenResult;
computes nothing but counts."""

from __future__ import annotations

import json
from collections import Counter

from tabulate import tabulate

from cutlint.pregen.records import CutlassLibraryKernel, CutlassLibraryPregenResult

WHY_WIDTH = 160
"""Characters of a kernel's `why` in the text table (--format json has all of it)."""
TEMPLATES_SHOWN = 6
WITHHELD_SHOWN = 3


def summary(r: CutlassLibraryPregenResult) -> dict[str, int]:
    """The counts both formats print."""
    return {
        "enumerated": len(r.kernels),
        "modeled": len(r.kernels) - len(r.not_modeled),
        "failing": len(r.failing),
        "not_modeled": len(r.not_modeled),
        "excluded_names": len(r.exclusion),
        "withheld": len(r.withheld),
    }


def _row(k: CutlassLibraryKernel) -> list[str]:
    why = k.why if len(k.why) <= WHY_WIDTH else k.why[: WHY_WIDTH - 3] + "..."
    return [k.name, k.verdict.value, ", ".join(k.rules) or "-", why]


def _templates(r: CutlassLibraryPregenResult) -> list[str]:
    """The not-modeled kernels by the template that defines them: which families are missing."""
    counts = Counter(
        k.results[0].instantiation.name if k.results else "(no kernel read)" for k in r.not_modeled
    )
    shown = [f"  {n:>5}  {name}" for name, n in counts.most_common(TEMPLATES_SHOWN)]
    if len(counts) > TEMPLATES_SHOWN:
        rest = sum(n for _, n in counts.most_common()[TEMPLATES_SHOWN:])
        shown.append(f"  {rest:>5}  ({len(counts) - TEMPLATES_SHOWN} more templates)")
    return shown


def render_text(r: CutlassLibraryPregenResult, show_all: bool = False) -> str:
    s = summary(r)
    verdicts = Counter(k.verdict.value for k in r.kernels)
    counts = "; ".join(f"{n} {v}" for v, n in verdicts.most_common())
    kernels = f" --kernels {r.kernel_filter!r}" if r.kernel_filter else ""
    out = [
        f"cutlass_library {r.cutlass_library_version}: the manifest for {r.architectures!r}{kernels}"
        f", enumerated without writing files; judged for {r.arch}; {r.cutlass}",
        f"{s['enumerated']} kernels: {s['modeled']} modeled, {s['failing']} would fail on "
        f"{r.arch}, {s['not_modeled']} not modeled ({counts})",
    ]
    if r.not_modeled:
        out += ["", "not modeled, by the template that defines them:", *_templates(r)]
    shown = r.kernels if show_all else r.failing
    if shown:
        headers = ["kernel", "verdict", "rules", "why"]
        rows = [_row(k) for k in shown]
        out += ["", tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)]
    if r.exclusion:
        out += ["", f"exclusion: {len(r.exclusion)} name(s) for --exclude-kernels / "
                "--ignore-kernels (--write-ignore FILE writes them comma-separated)"]  # fmt: skip
        out += [f"  {p}" for p in r.exclusion]
    if r.withheld:
        out += ["", f"withheld from the exclusion: {len(r.withheld)} failing kernel(s) no name "
                "skips without skipping a kernel that runs"]  # fmt: skip
        out += [f"  {w.name}: {w.reason}" for w in r.withheld[:WITHHELD_SHOWN]]
        if len(r.withheld) > WITHHELD_SHOWN:
            out.append(f"  ... {len(r.withheld) - WITHHELD_SHOWN} more (--format json lists all)")
    out += [f"note: {n}" for n in r.notes]
    return "\n".join(out) + "\n"


def render_json(r: CutlassLibraryPregenResult) -> str:
    data = json.loads(r.model_dump_json())
    data["summary"] = summary(r)
    return json.dumps(data, indent=2) + "\n"
