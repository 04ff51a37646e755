"""`cutlint verify` output: a text agreement table per file, or versioned JSON.

The JSON schema is documented in docs/json-schema.md ("`cutlint verify --format json`"). Its
per-instantiation fields carry check's names (`path`, `line`, `stages`, `smem_bytes`, ...) with
the compiler's values; the model's are beside them under `model`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cutlint.families.registry import family_of
from cutlint.records import MoeGemmRecipe
from cutlint.report.json import instantiation_fields, recipe_fields
from cutlint.verify.alias_run import HEADERS_LABEL as ALIAS_HEADERS
from cutlint.verify.result import COMPARED, FileRun, Numbers, Status, Verified, VerifyResult

SCHEMA_VERSION = 1
# How each backend (`cutlint verify --backend`) obtains the compiler's numbers.
METHODS = {"nvcc": "host-only probe", "libclang": "libclang record layout, no nvcc"}

# --- text --------------------------------------------------------------------------------------

HEADERS = [
    "line",
    "tile",
    "A x B -> D",
    "fusion",
    "SwapAB",
    "stages\nmodel / nvcc",
    "SharedStorageSize (B)\nmodel / nvcc",
    "\ndiff",
    "mainloop (B)\nmodel / nvcc",
    "epilogue (B)\nmodel / nvcc",
    "threads\nmodel / nvcc",
    "result",
]


def table(rows: list[list[str]], headers: list[str]) -> str:
    """A plain text table: two-line headers, numbers right-aligned, text left-aligned."""
    head = [h.split("\n") for h in headers]
    depth = max(len(h) for h in head)
    head = [[""] * (depth - len(h)) + h for h in head]
    widths = [
        max([len(x) for x in head[i]] + [len(r[i]) for r in rows]) for i in range(len(headers))
    ]
    numeric = [all(_is_number(r[i]) for r in rows) and bool(rows) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line([h[d] for h in head]) for d in range(depth)]
    out.append("  ".join("-" * w for w in widths))
    out += [line(r) for r in rows]
    return "\n".join(out)


def _is_number(cell: str) -> bool:
    return (
        cell.replace(",", "").replace(" / ", "").replace("+", "").replace("-", "").isdigit()
        or cell == "-"
    )


def _display(path: str) -> str:
    relative = os.path.relpath(os.path.abspath(path))
    return path if relative.startswith("..") else relative


def _pair(v: Verified, name: str) -> str:
    m = getattr(v.model, name) if v.model else None
    c = v.compiler.measured(name) if v.compiler else None
    unmeasured = v.compiler is not None and c is None
    right = "n/m" if unmeasured else "-" if c is None else f"{c:,}"
    return f"{'-' if m is None else f'{m:,}'} / {right}"


def _tactic(v: Verified) -> list[str]:
    m = v.recipe.args if isinstance(v.recipe, MoeGemmRecipe) else None
    if m is None and v.recipe is not None:
        # Another family's recipe: its own cells where they name the same thing, its one-line
        # title where they do not.
        family = family_of(v.recipe)
        cells = dict(zip(family.columns, family.describe(v.recipe), strict=True))
        kind = cells.get("A x B -> D") or family.title(v.recipe)
        return [cells.get("tile", "-"), kind, cells.get("fusion", "-"), cells.get("SwapAB", "-")]
    if m is None:
        return ["-", v.instantiation.name, "-", "-"]
    types = [t.value if t else "?" for t in (m.act_type, m.weight_type, m.output_type)]
    return [
        str(m.cta_tile),
        f"{types[0]} x {types[1]} -> {types[2]}",
        m.fusion.value if m.fusion else "?",
        "on" if m.swap_ab else "off",
    ]


def _result(v: Verified) -> str:
    if v.status is Status.DISAGREE and v.differences:
        return "DISAGREE: " + ", ".join(f"{d.field} {d.delta:+,}" for d in v.differences)
    return v.status.value.upper() if v.status is Status.DISAGREE else v.status.value


def _row(v: Verified) -> list[str]:
    smem_m = v.model.smem_bytes if v.model else None
    smem_c = v.compiler.smem_bytes if v.compiler else None
    diff = "-" if smem_m is None or smem_c is None else f"{smem_c - smem_m:+,}"
    return [
        str(v.instantiation.span.line),
        *_tactic(v),
        _pair(v, "stages"),
        _pair(v, "smem_bytes"),
        "0" if diff == "+0" else diff,
        _pair(v, "mainloop_smem_bytes"),
        _pair(v, "epilogue_smem_bytes"),
        _pair(v, "max_threads_per_block"),
        _result(v),
    ]


def _file_heading(path: str, run: FileRun | None) -> str:
    if run is None:
        return _display(path)
    how = (
        "cached"
        if not run.compiled
        else f"compiled in {run.seconds} s"
        if run.seconds
        else "compile failed"
    )
    if run.headers and run.headers.startswith(ALIAS_HEADERS):
        return f"{_display(path)}  ({run.headers}; {how})"
    version = f"FlashInfer {run.flashinfer_version}" if run.flashinfer_version else "FlashInfer ?"
    return f"{_display(path)}  ({version}, headers {run.headers}; {how})"


def _notes(rows: list[Verified]) -> list[str]:
    out: list[str] = []
    for v in rows:
        if v.note and v.status is not Status.AGREE:
            out.append(f"  line {v.instantiation.span.line}: {v.status.value}: {v.note}")
    return out


_NOT_ASKED = (Status.NO_BACKEND, Status.INACTIVE)


def _collapsed(rows: list[Verified]) -> list[str]:
    """A file the compiler was not asked about: one line per reason, not a table."""
    reasons: dict[tuple[Status, str], list[int]] = {}
    for v in rows:
        reasons.setdefault((v.status, v.note or ""), []).append(v.instantiation.span.line)
    out: list[str] = []
    for (status, note), lines in reasons.items():
        at = ", ".join(map(str, lines[:4])) + (", ..." if len(lines) > 4 else "")
        out.append(f"  {_n(len(lines), 'instantiation')}: {status.value} (lines {at}): {note}")
    return out


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def summary(result: VerifyResult) -> str:
    agree, disagree = result.count(Status.AGREE), result.count(Status.DISAGREE)
    compiled = [f for f in result.files if f.compiled]
    line = (
        f"{agree} of {result.compared} compared instantiations agree with {result.backend} {result.nvcc} "
        f"(stages, SharedStorageSize, mainloop and epilogue SharedStorage, MaxThreadsPerBlock); "
        f"{disagree} disagree; {result.count(Status.NOT_MODELED)} not modeled, "
        f"{result.count(Status.NO_BACKEND)} without a compiler backend, "
        f"{result.count(Status.INACTIVE)} inactive, {result.count(Status.ERROR)} compiler errors"
    )
    seconds = sum(f.seconds or 0.0 for f in compiled)
    files = (
        f"{_n(len(result.files), 'file')} for the compiler: {len(compiled)} compiled "
        f"({seconds:.1f} s of compile), {len(result.files) - len(compiled)} from the cache; "
        f"{result.seconds:.1f} s wall"
    )
    lines = [line, files]
    partial: dict[tuple[str, ...], int] = {}
    for v in result.instantiations:
        if v.compiler is not None and v.compiler.unmeasured and v.status is not Status.ERROR:
            key = v.compiler.unmeasured
            partial[key] = partial.get(key, 0) + 1
    for fields, count in sorted(partial.items()):
        lines.append(
            f"{_n(count, 'instantiation')} compared without {', '.join(fields)}: "
            "their probe does not measure it (`n/m`)"
        )
    if result.compared == 0:
        lines.append(
            "nothing was compared: no instantiation both modeled and built by the compiler"
        )
    lines += [f"{_display(f.path)}: {f.error}" for f in result.files if f.error]
    lines += [f"{d.path}: {d.rule} {d.name}: {d.message}" for d in result.input_diagnostics]
    return "\n".join(lines)


def render_text(result: VerifyResult) -> str:
    runs = {f.path: f for f in result.files}
    by_file: dict[str, list[Verified]] = {}
    for v in result.instantiations:
        by_file.setdefault(v.instantiation.span.path, []).append(v)
    blocks: list[str] = []
    for path, rows in by_file.items():
        heading = _file_heading(path, runs.get(path))
        if all(v.status in _NOT_ASKED for v in rows):
            blocks.append("\n".join([heading, *_collapsed(rows)]))
            continue
        headers = [h.replace("/ nvcc", f"/ {result.backend}") for h in HEADERS]
        blocks.append("\n".join([heading, table([_row(v) for v in rows], headers), *_notes(rows)]))
    return "\n\n".join([*blocks, summary(result)]) + "\n"


# --- json --------------------------------------------------------------------------------------


def _numbers(n: Numbers | None) -> dict[str, int] | None:
    return {f: getattr(n, f) for f in COMPARED} if n is not None else None


def _instantiation(v: Verified) -> dict[str, Any]:
    c = v.compiler
    return {
        **instantiation_fields(v.instantiation),
        **recipe_fields(v.recipe),
        "flashinfer_version": v.flashinfer_version,
        "status": v.status.value,
        "agree": v.agree,
        "stages": c.measured("stages") if c else None,
        "smem_bytes": c.measured("smem_bytes") if c else None,
        "mainloop_smem_bytes": c.measured("mainloop_smem_bytes") if c else None,
        "epilogue_smem_bytes": c.measured("epilogue_smem_bytes") if c else None,
        "max_threads_per_block": c.measured("max_threads_per_block") if c else None,
        "smem_align": c.kernel_align if c else None,
        "members": dict(c.members) if c else None,
        "unmeasured": list(c.unmeasured) if c else [],
        "model": _numbers(v.model),
        "differences": [
            {"field": d.field, "model": d.model, "compiler": d.compiler, "difference": d.delta}
            for d in v.differences
        ],
        "note": v.note,
        "cached": v.cached,
    }


def to_data(result: VerifyResult) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": "cutlint",
        "command": "verify",
        "compiler": {
            "name": result.backend,
            "version": result.nvcc,
            "method": METHODS.get(result.backend, result.backend),
        },
        "files": [f.model_dump() for f in result.files],
        "instantiations": [_instantiation(v) for v in result.instantiations],
        "input_diagnostics": [d.model_dump(mode="json") for d in result.input_diagnostics],
        "summary": {
            "instantiations": len(result.instantiations),
            "compared": result.compared,
            "by_status": {s.value: result.count(s) for s in Status if result.count(s)},
            "files": len(result.files),
            "files_compiled": sum(1 for f in result.files if f.compiled),
            "compile_seconds": round(sum(f.seconds or 0.0 for f in result.files), 1),
            "seconds": result.seconds,
        },
    }


def render_json(result: VerifyResult) -> str:
    return json.dumps(to_data(result), indent=2) + "\n"


RENDERERS = {"text": render_text, "json": render_json}
