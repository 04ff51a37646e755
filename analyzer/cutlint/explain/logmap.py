"""From log events to distinct failures, and from each failure to the cache's instantiations.

A log repeats itself: FlashInfer logs a failed tactic twice ("Skipping tactic" and, at debug
level, "Failed when profiling"), every MoE layer profiles the same tactics, and a sticky CUDA
error fails every tactic after it. A distinct failure is one thing the log reports, however often.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from cutlint.explain.cache import CacheIndex
from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.records import InstantiationResult

_SITE_KINDS = (
    LogEventKind.INIT_FAILED,
    LogEventKind.CAN_IMPLEMENT_FAILED,
    LogEventKind.RUN_FAILED,
    LogEventKind.SMEM_EXCEEDS_DEVICE,
)


@dataclass(frozen=True)
class Mapped:
    """A distinct failure before it is judged: its events and the instantiations it names."""

    events: tuple[LogEvent, ...]
    matches: tuple[InstantiationResult, ...]
    note: str

    @property
    def first(self) -> LogEvent:
        return self.events[0]


def _key(e: LogEvent) -> Hashable:
    site = (e.site.name, e.site.line) if e.site and e.site.generated else None
    if e.kind in _SITE_KINDS and site:
        return (e.kind, site, e.status, e.smem_required, e.smem_available)
    if e.kind is LogEventKind.UNSUPPORTED_TILE:
        return (e.kind, e.tile, e.cluster, e.arch_sm)
    if e.kind is LogEventKind.TMA_DESCRIPTOR:
        # A sticky error fails every later tactic with the same code: one failure, many lines.
        return (e.kind, e.cu_result, e.custom_op)
    if e.kind is LogEventKind.STICKY_CUDA_ERROR:
        return (e.kind, e.cu_result)
    if e.kind in (LogEventKind.NO_KERNEL_IMAGE, LogEventKind.INVALID_ACTIVATION):
        return (e.kind,)  # one cause, whichever tactic tripped over it
    if e.kind is LogEventKind.GEMM_RUNNER_FAILED:
        # The message names no tactic: every tactic the autotuner lost to it is one failure, whose
        # judgement reads the ids of all its lines.
        return (e.kind, e.runner_message, e.custom_op)
    if e.kind is LogEventKind.UNRECOGNIZED:
        return (e.kind, e.text, e.tactic, e.custom_op)
    if e.kind is LogEventKind.SMEM_STATED:
        return (e.kind, e.grammar, e.smem_required, e.smem_available, e.arch_sm)
    if e.kind in (LogEventKind.DISPATCH_GAP, LogEventKind.ARCH_UNSUPPORTED):
        return (e.kind, e.grammar, e.detail, e.capability)
    if e.kind is LogEventKind.CALLER_FAILED:
        caller = (e.site.name, e.site.line) if e.site else e.frame
        return (e.kind, e.grammar, caller, e.status, e.step, e.tactic, e.custom_op)
    if e.kind is LogEventKind.CUDA_ERROR:
        return (e.kind, e.cu_result)
    if e.kind is LogEventKind.UNSUPPORTED_TILE_CONFIG:
        return (e.kind, e.detail)
    if e.kind in (LogEventKind.STATIC_ASSERT, LogEventKind.HOST_VALIDATION):
        return (e.kind, e.text)
    if e.kind is LogEventKind.LIBRARY_ERROR:
        return (e.kind, e.detail, e.text)
    return (e.kind, e.status, e.smem_required, e.tactic, e.tactic_text, e.custom_op)


def distinct(events: Sequence[LogEvent]) -> list[list[LogEvent]]:
    """Failure events grouped by what they report, in order of first appearance."""
    groups: dict[Hashable, list[LogEvent]] = {}
    for e in events:
        if e.kind is not LogEventKind.SKIPPED_SUMMARY:
            groups.setdefault(_key(e), []).append(e)
    return list(groups.values())


def _elided(name: str) -> bool:
    """`...generated.cu` / `…generated.cu`: a log line whose path was cut short."""
    return name.startswith(("...", "\u2026"))


def _by_site(e: LogEvent, cache: CacheIndex) -> tuple[list[InstantiationResult], str]:
    assert e.site is not None
    files = cache.files_for(e.site.path, e.site.name)
    if not files and _elided(e.site.name):
        return _by_line_anywhere(e, cache)
    if not files:
        where = f"in {cache.root}" if cache.root else "(no --cache to look in)"
        return [], f"no file named {e.site.name} {where}"
    found: list[InstantiationResult] = []
    notes: list[str] = []
    for f in files:
        here, note = cache.at_line(f, e.site.line)
        found += here
        notes.append(note)
    where = "" if len(files) == 1 else f" ({len(files)} files of that name match the path equally)"
    return found, f"{e.site.name}: {notes[0]}{where}"


def _by_line_anywhere(e: LogEvent, cache: CacheIndex) -> tuple[list[InstantiationResult], str]:
    """The file name was cut from the log: every generated file's instantiation at that line,
    narrowed by the byte count the message gives, when it gives one."""
    assert e.site is not None
    line = e.site.line
    found = [r for f in cache.generated_files() for r in cache.at_line(f, line)[0]]
    if e.smem_required is not None:
        same = [r for r in found if r.resources and r.resources.layout.size == e.smem_required]
        if same:
            return same, (
                f"the log cut the file name; {len(same)} instantiation(s) at line {line} of the "
                f"cache's files need exactly {e.smem_required:,} B"
            )
    names = sorted({PurePath(r.instantiation.span.path).name for r in found})
    return found, f"the log cut the file name; line {line} of {len(names)} file(s) of the cache"


def map_failure(events: list[LogEvent], cache: CacheIndex) -> Mapped:
    e = events[0]
    if e.site is not None and e.site.generated and e.kind in _SITE_KINDS:
        found, note = _by_site(e, cache)
        return Mapped(tuple(events), tuple(found), note)
    if e.kind in _SITE_KINDS and e.site is not None and _elided(e.site.name):
        found, note = _by_line_anywhere(e, cache)
        return Mapped(tuple(events), tuple(found), note)
    if e.kind is LogEventKind.UNSUPPORTED_TILE and e.tile is not None:
        found = cache.with_tile(e.tile, e.arch_sm)
        note = (
            f"{len(found)} instantiation(s) of tile {e.tile} in the cache"
            if found
            else f"no instantiation of tile {e.tile} in the cache: the launcher throws before any kernel"
        )
        return Mapped(tuple(events), tuple(found), note)
    if e.kind is LogEventKind.SMEM_STATED and e.smem_required is not None:
        same = [
            r
            for r in cache.all_instantiations()
            if r.resources and r.resources.layout.size == e.smem_required
        ]
        note = (
            f"{len(same)} instantiation(s) of the cache need exactly {e.smem_required:,} B"
            if same
            else f"no instantiation of the cache needs exactly {e.smem_required:,} B"
        )
        return Mapped(tuple(events), tuple(same), note)
    if e.kind is LogEventKind.CALLER_FAILED:
        where = f"{e.site.name}:{e.site.line}" if e.site else (e.frame or "not named")
        return Mapped(tuple(events), (), f"a hand-written caller ({where}), not a generated file")
    if e.site is not None:
        return Mapped(tuple(events), (), f"the check is in {e.site.name}, not in a generated file")
    return Mapped(tuple(events), (), "the message names no file and no tile")
