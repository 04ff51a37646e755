"""JSON output, versioned: the schema is documented in docs/json-schema.md."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, TextIO

from pydantic import BaseModel

from cutlint import __version__
from cutlint.context.render import to_data as context_data
from cutlint.records import (
    CheckResult,
    Diagnostic,
    FileResult,
    Instantiation,
    InstantiationResult,
    Recipe,
    Resources,
    SmemLayout,
    StageCount,
    Variant,
)
from cutlint.report import NO_END, Ending, spool
from cutlint.report.tu import section_data

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

SCHEMA_VERSION = 2
"""2: core fields every family has, plus `family` and its `recipe` object (docs/json-schema.md
says how a version-1 reader migrates)."""


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


def instantiation_fields(inst: Instantiation) -> dict[str, Any]:
    """Where an instantiation is and what it says: the fields every JSON output shares."""
    return {
        "path": inst.span.path,
        "line": inst.span.line,
        "column": inst.span.column,
        "end_line": inst.span.end_line,
        "form": inst.form.value,
        "name": inst.name,
        "args": list(inst.args),
        "guard": inst.guard.model_dump() if inst.guard else None,
    }


def recipe_fields(recipe: Recipe | None) -> dict[str, Any]:
    """The claiming family and its typed recipe (each family's own fields)."""
    if recipe is None:
        return {"family": None, "recipe": None}
    return {"family": recipe.family, "recipe": recipe.model_dump(mode="json", exclude={"family"})}


def _instantiation(r: InstantiationResult, cache: PartsCache) -> dict[str, Any]:
    res = r.resources
    return {
        **_row_head(r),
        **(_model_parts(res, cache) if res else _NO_PARTS),
        "findings": [_finding(d) for d in r.diagnostics],
    }


def _row_head(r: InstantiationResult) -> dict[str, Any]:
    """A row's fields before its model parts (`_model_parts`), in the row's order."""
    res = r.resources
    return {
        **instantiation_fields(r.instantiation),
        **recipe_fields(r.recipe),
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
        "tmem_columns": res.tmem_columns if res else None,
        "dispatch_supported": res.dispatch_supported if res else None,
    }


_NO_PARTS: dict[str, Any] = {
    "breakdown": None,
    "stage_count": None,
    "variants": None,
    "registers": None,
    "register_use": None,
    "occupancy": None,
    "tma": None,
}


def _row_text(r: InstantiationResult, cache: PartsTextCache) -> str:
    """`json.dumps(_instantiation(r, ...))`, with the model parts' text encoded once per record:
    they are three quarters of a cutlass_library row's bytes (10 of 13 KB, measured on a 100a
    build's row). The same bytes: json.dumps writes a dict's items in order joined by `, `, so
    the row is its head's text less `}`, `, `, the parts' text less its braces, `, `, and the
    findings."""
    res = r.resources
    parts = _NO_PARTS_TEXT if res is None else _parts_text(res, cache)
    findings = json.dumps([_finding(d) for d in r.diagnostics])
    # one join: the row is 13 KB, and each `+` would copy all of it again
    return "".join((json.dumps(_row_head(r))[:-1], ", ", parts, ', "findings": ', findings, "}"))


def _parts_text(res: Resources, cache: PartsTextCache) -> str:
    """`json.dumps(_model_parts(res, ...))[1:-1]`, by the record (instantiations that share a
    tactic share it: api's memo), else assembled from each part's text by the record it is
    made from: a family's kernels of one tactic get their own Resources but share its stage
    count and layout (families/sm100_collective_builder `_numbers`), which are most of the
    bytes. Each text is a pure function of a frozen record, kept with the record so that its
    id is not reused while the text is held."""
    whole = cache.get(id(res))
    if whole is not None:
        return whole[1]
    if len(cache) >= PARTS_KEPT:
        cache.clear()
    text = ", ".join(
        f'"{name}": {_part_text(name, source, dump, cache)}'
        for name, source, dump in (
            ("breakdown", res.layout, _breakdown),
            ("stage_count", res.stage_count, _stage_count_of),
            ("variants", res.variants, _variants),
            ("registers", res.registers, _dumped),
            ("register_use", res.register_use, _dumped),
            ("occupancy", res.occupancy, _dumped_json),
            ("tma", res.tma, _dumped_json),
        )
    )
    cache[id(res)] = (res, text)
    return text


def _part_text(name: str, source: Any, dump: Callable[[Any], object], cache: PartsTextCache) -> str:
    """`json.dumps(dump(source))`, once per record (`null` for none)."""
    if source is None:
        return "null"
    key = (name, id(source))
    kept = cache.get(key)
    if kept is None:
        kept = cache[key] = (source, json.dumps(dump(source)))
    return kept[1]


def _breakdown(layout: SmemLayout) -> list[dict[str, Any]]:
    return [reg.model_dump() for reg in layout.regions]


def _variants(variants: tuple[Variant, ...]) -> list[dict[str, Any]]:
    return [v.model_dump(mode="json") for v in variants]


def _dumped(record: BaseModel) -> dict[str, Any]:
    return record.model_dump()


def _dumped_json(record: BaseModel) -> dict[str, Any]:
    return record.model_dump(mode="json")


_NO_PARTS_TEXT = json.dumps(_NO_PARTS)[1:-1]

PartsCache = dict[int, tuple[Resources, dict[str, Any]]]
PartsTextCache = dict[int | tuple[str, int], tuple[object, str]]
PARTS_KEPT = 4096
"""Dumped parts kept for instantiations that share a record: shared ones lie near one another
(one file's, one launcher's), and a whole build's distinct records would be another copy of it."""


def _model_parts(res: Resources, cache: PartsCache) -> dict[str, Any]:
    """The breakdown, stage count and variants of one Resources record, dumped once: instantiations
    that share a tactic share the record (api's memo), so a cache of 10,000 dumps a few dozen."""
    cached = cache.get(id(res))
    if cached is None:
        if len(cache) >= PARTS_KEPT:
            cache.clear()
        parts = {
            "breakdown": [reg.model_dump() for reg in res.layout.regions],
            "stage_count": _stage_count(res),
            "variants": [v.model_dump(mode="json") for v in res.variants],
            "registers": res.registers.model_dump() if res.registers else None,
            "register_use": res.register_use.model_dump() if res.register_use else None,
            "occupancy": res.occupancy.model_dump(mode="json") if res.occupancy else None,
            "tma": res.tma.model_dump(mode="json") if res.tma else None,
        }
        cached = cache[id(res)] = (res, parts)  # holding res keeps its id from being reused
    return cached[1]


def _stage_count(res: Resources) -> dict[str, Any]:
    """The builder's arithmetic in the words of records.StageCount (one word per quantity)."""
    return _stage_count_of(res.stage_count)


def _stage_count_of(sc: StageCount) -> dict[str, Any]:
    return {
        **sc.model_dump(mode="json"),
        "reserved": sc.reserved,
        "estimate": sc.estimate,
    }


def to_data(result: CheckResult, tus: TuSection | None = None) -> dict[str, Any]:
    data = _head(result)
    cache: PartsCache = {}
    rows = [_instantiation(r, cache) for f in result.files for r in f.instantiations]
    skipped = data.pop("skipped")
    return {
        **_without_summary(data),
        "instantiations": rows,
        **_summary_on(data, skipped),
        "translation_units": section_data(tus),
    }


def _head(result: CheckResult) -> dict[str, Any]:
    """Everything but the instantiations, in the order the JSON has it."""
    verdicts: dict[str, int] = {}
    count = 0
    for f in result.files:
        for r in f.instantiations:
            count += 1
            verdicts[r.verdict.value] = verdicts.get(r.verdict.value, 0) + 1
    return _head_of(
        [_file_entry(f) for f in result.files],
        count,
        verdicts,
        _by_rule(result.all_diagnostics()),
        len(result.baselined),
        result.skipped,
    )


def _file_entry(f: FileResult) -> dict[str, Any]:
    context = context_data(f.context) if f.context is not None else None
    return {**_bare_entry(f), **({"context": context} if context is not None else {})}


def _bare_entry(f: FileResult) -> dict[str, Any]:
    """A file's entry less its context (a Piece adds its own, made once per context)."""
    return {"path": f.path, "diagnostics": [_finding(d) for d in f.diagnostics]}


def _head_of(
    files: list[dict[str, Any]],
    count: int,
    verdicts: dict[str, int],
    rules: dict[str, int],
    baselined: int,
    skipped: Sequence[str],
) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": "cutlint",
        "tool_version": __version__,
        "files": files,
        "summary": {
            "files": len(files),
            "instantiations": count,
            "by_verdict": {v: verdicts[v] for v in sorted(verdicts)},
            "findings_by_rule": dict(sorted(rules.items())),
            "baselined": baselined,
            "skipped": len(skipped),
        },
        "skipped": list(skipped),
    }


def _tail(tus: TuSection | None) -> str:
    """After the rows: the translation units only the TU front end reads (null without them)."""
    return f'\n], "translation_units": {json.dumps(section_data(tus))}}}\n'


def _without_summary(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "summary"}


def _summary_on(data: dict[str, Any], skipped: list[str]) -> dict[str, Any]:
    return {"summary": data["summary"], "skipped": skipped}


def _by_rule(diags: list[Diagnostic]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.rule] = counts.get(d.rule, 0) + 1
    return dict(sorted(counts.items()))


def chunks(result: CheckResult, tus: TuSection | None = None) -> Iterator[str]:
    """The JSON text in pieces, one instantiation per line: readable and greppable, and written
    by json's C encoder (an indented dump of a 10,000-instantiation cache takes 3x longer and a
    third more bytes). `tus` (`check -p`): the translation units only the TU front end reads,
    last (`translation_units`, null without them)."""
    yield json.dumps(_head(result))[:-1] + ', "instantiations": [\n'
    # each row made as it is written: a list of them all was a second copy of the result
    cache: PartsTextCache = {}
    rows = (_row_text(r, cache) for f in result.files for r in f.instantiations)
    for i, row in enumerate(rows):
        yield ("" if i == 0 else ",\n") + row
    yield _tail(tus)


def render(result: CheckResult, tus: TuSection | None = None) -> str:
    return "".join(chunks(result, tus))


@dataclass(frozen=True)
class Piece:
    """One file's part of a streamed JSON report, as text: made where the file was judged (a
    worker, `piece`), so that the process writing the report neither decodes the records nor
    encodes them again; byte for byte what `chunks` writes for the file."""

    entry: str
    """The file's entry in `files` up to its context and closing brace (`json.dumps` of the entry
    without `context`, less its `}`)."""
    context: str | None
    """Its context's JSON (files of a directory share one: `Stream` keeps one copy of each)."""
    rows: str
    """Its instantiations' rows, one a line, joined by `,\n`."""
    count: int
    verdicts: tuple[tuple[str, int], ...]
    rules: tuple[tuple[str, int], ...]
    """Its findings by rule, the file's own and its instantiations'."""


class Pieces:
    """Makes each file's `Piece`, remembering what the files of one process share: the dumped
    model parts of a Resources record and the JSON of a context (by the record's id, holding the
    record so that the id is not reused)."""

    def __init__(self) -> None:
        self._parts: PartsTextCache = {}
        self._contexts: dict[int, tuple[object, str]] = {}

    def piece(self, f: FileResult) -> Piece:
        context = None
        if f.context is not None:
            kept = self._contexts.get(id(f.context))
            if kept is None:  # files of a directory share their context (engine/run.py)
                kept = self._contexts[id(f.context)] = (
                    f.context,
                    json.dumps(context_data(f.context)),
                )
            context = kept[1]
        rules: dict[str, int] = {}
        verdicts: dict[str, int] = {}
        for d in f.diagnostics:
            rules[d.rule] = rules.get(d.rule, 0) + 1
        for r in f.instantiations:
            verdicts[r.verdict.value] = verdicts.get(r.verdict.value, 0) + 1
            for d in r.diagnostics:
                rules[d.rule] = rules.get(d.rule, 0) + 1
        return Piece(
            entry=json.dumps(_bare_entry(f))[:-1],
            context=context,
            rows=",\n".join(_row_text(r, self._parts) for r in f.instantiations),
            count=len(f.instantiations),
            verdicts=tuple(verdicts.items()),
            rules=tuple(rules.items()),
        )


FILES_A_WRITE = 1000
"""The files' entries `Stream.finish` writes at once."""


class Stream:
    """The JSON report of a check whose results are not held: each file's rows are written to
    `rows` (a temporary file) as the file's result comes, and only the files' entries and the
    counts are kept; `finish` writes the report, byte for byte what `chunks` writes for the
    whole result (the head, which holds the summary, comes before the rows). A file's part comes
    as its result (`add`) or already made elsewhere (`add_piece`)."""

    def __init__(self, rows: IO[str]) -> None:
        self._rows = rows
        self._files: list[tuple[str, str | None]] = []
        self._count = 0
        self._verdicts: dict[str, int] = {}
        self._rules: dict[str, int] = {}
        self._pieces = Pieces()
        self._contexts: dict[str, str] = {}

    def add(self, f: FileResult) -> None:
        self.add_piece(self._pieces.piece(f))

    def add_piece(self, p: Piece) -> None:
        context = p.context
        if context is not None:  # one copy of each: a worker's pieces each bring their own
            context = self._contexts.setdefault(context, context)
        self._files.append((p.entry, context))
        if p.rows:
            self._rows.write(("" if self._count == 0 else ",\n") + p.rows)
        self._count += p.count
        for verdict, n in p.verdicts:
            self._verdicts[verdict] = self._verdicts.get(verdict, 0) + n
        for rule, n in p.rules:
            self._rules[rule] = self._rules.get(rule, 0) + n

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        """Write the report; `check -p`'s translation units last, as `chunks` writes them."""
        counts = (self._count, self._verdicts, self._rules)
        head = _head_of([], *counts, end.baselined, end.skipped)
        head["summary"]["files"] = len(self._files)
        # json.dumps(head) with the files' entries as they were made: the keys before `files`,
        # the entries, then the rest (json's default separators, `, ` and `: `, throughout)
        first = {k: head[k] for k in ("schema_version", "tool", "tool_version")}
        out.write(json.dumps(first)[:-1] + ', "files": [')
        # a thousand entries a write: one write each cost 0.6 s of a hundred-thousand-file
        # report's end, with the replay's copy kept as it passes (engine/replay.py _Tee)
        files = self._files
        for at in range(0, len(files), FILES_A_WRITE):
            out.write(
                ", ".join(
                    entry + ("}" if context is None else ', "context": ' + context + "}")
                    for entry, context in files[at : at + FILES_A_WRITE]
                )
                + (", " if at + FILES_A_WRITE < len(files) else "")
            )
        rest = {k: head[k] for k in ("summary", "skipped")}
        out.write("], " + json.dumps(rest)[1:-1] + ', "instantiations": [\n')
        spool.copy(self._rows, out)
        out.write(_tail(end.tus))
