"""A check run as a stream: each file parsed and judged in the same worker process, its result
handed on in input order as soon as it is ready, from the cache when an unchanged file was
judged before in the same context.

    walk ──▶ cache hit? ──yes──────────────────────────────────────────▶ result, in order
                 └─no──▶ worker: parse ─▶ judge ─▶ fingerprint ─▶ keep ─▶ result, in order

Judging in the workers puts every core on both stages (the parent used to judge alone while the
workers waited) and leaves the parent to decode, render and count. A file the parser failed on
comes back as its ParsedFile and is judged here (its result is one CUT007 diagnostic).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from cutlint import inputs, parse
from cutlint.context.arch_macros import guard_defines
from cutlint.engine.cache import ResultCache, decode, encode
from cutlint.engine.fingerprint import fingerprint_file, real_root
from cutlint.engine.judge import Memo
from cutlint.engine.options import CheckOptions
from cutlint.engine.run import judged_file
from cutlint.engine.tree_manifest import TreeManifest, configuration, signature
from cutlint.parse import pool, walk
from cutlint.parse.defines import Job, command_line
from cutlint.parse.problems import INTERNAL_ERROR, PARSER_FAILURE
from cutlint.records import FileResult, ParsedFile

Outcome = FileResult | str
"""One file's outcome: its result, or its path when it is no instantiation file (a FlashInfer
JIT source: CheckResult.skipped)."""


MAX_JOBS = 8
"""Workers when the caller does not say: one per core, up to 8 (from WORKERS_JUDGE_FROM on they
judge as well as parse, so more cores are more throughput): each holds a
libclang (about 40 MB resident, parse/paths.py) and the models it has judged with."""

WORKERS_JUDGE_FROM = 3
"""Workers judge (and the parent only decodes their results) from this many workers on. With
two, the parent judging while both workers parse keeps both cores as busy and costs less: on
the 2-core machine, a 27,680-file cutlass_library 100a build took 96 s of CPU and 1.08 GB peak
with the parent judging (no cache), 142 s and 1.78 GB with the workers judging and the cache
written (their results travel as JSON and are decoded into records that no longer share their
strings and parts; 20 s of it system time, the writes)."""

MEMO_LIMIT = 2048
"""Judgements a worker keeps for equal instantiations of later files. A worker lives as long as
the run, so an unbounded memo would hold every kernel of a build; repeats sit near one another
in a tree (one launcher's files, a cache's copies), so a bounded one keeps nearly all its hits.
(On a 7,100-kernel build the peak RSS was 396 MB with and without the bound: the peak is the
parent's decoded results, not the memo.)"""


@dataclass(frozen=True)
class JudgeStage:
    """The engine's stage, run by a parser worker on each file it parsed (parse.Job.then)."""

    options: CheckOptions
    root: Path
    cache: ResultCache | None
    memo: Memo = field(default_factory=dict, compare=False, repr=False)
    """This process's memo: equal instantiations in one context are judged once."""

    def __reduce__(self) -> tuple[type[JudgeStage], tuple[CheckOptions, Path, ResultCache | None]]:
        return (JudgeStage, (self.options, self.root, self.cache))  # the memo stays behind

    def __call__(self, parsed: ParsedFile) -> Encoded:
        """The outcome, encoded as the cache keeps it (and kept there): JSON that the parent
        validates at a third of what unpickling the records costs it (0.7 against 2.5 ms for a
        cutlass_library file, measured on a loaded 2-core machine), and the parent is the one
        core every result passes through."""
        key = self.cache.key(parsed.path, self.options) if self.cache is not None else None
        data = encode(self.outcome(parsed), key or "")
        if self.cache is not None and key is not None:
            self.cache.store(key, data)
        return Encoded(key or "", data)

    def outcome(self, parsed: ParsedFile) -> Outcome:
        if parsed.skipped:
            return parsed.path
        if len(self.memo) > MEMO_LIMIT:
            self.memo.clear()
        return fingerprint_file(judged_file(parsed, self.options, self.memo), self.root)


@dataclass(frozen=True)
class Encoded:
    """A worker's outcome on its way to the parent (engine/cache.py's entry format)."""

    key: str
    data: bytes


class Progress(Protocol):
    """Who hears how far a run is (report/progress.py draws it)."""

    def start(self, total: int) -> None: ...

    def advance(self, kernels: int = 0) -> None: ...


def outcomes(
    paths: Sequence[Path | str], options: CheckOptions, progress: Progress | None = None
) -> Iterator[Outcome]:
    """Every file's outcome under `paths`, in input order (as `parse_paths` orders them)."""
    for outcome in _outcomes(paths, options, progress):
        if progress is not None:
            progress.advance(len(outcome.instantiations) if isinstance(outcome, FileResult) else 0)
        yield outcome


def _outcomes(
    paths: Sequence[Path | str], options: CheckOptions, progress: Progress | None
) -> Iterator[Outcome]:
    if isinstance(paths, str | Path):
        paths = [paths]
    command_line(options.defines, options.undefines)  # ValueError now, for a define it refuses
    cache = ResultCache.open() if options.cache else None
    stage = JudgeStage(options, options.root or Path.cwd(), cache)
    entries = walk.expand(paths, options.exclude)
    if progress is not None:
        progress.start(len(entries))
    tree = _manifest(cache, paths, options)
    hits: dict[int, FileResult | str] = {}
    misses: list[str] = []
    for i, e in enumerate(entries):
        if e.problem is not None:
            continue
        kept = _kept(cache, tree, e.path, options)
        if kept is None:
            misses.append(e.path)
        else:
            hits[i] = kept
    if tree is not None:
        tree.save()
    jobs = options.jobs if options.jobs is not None else min(MAX_JOBS, os.cpu_count() or 1)
    in_workers = jobs >= WORKERS_JUDGE_FROM
    then = stage if in_workers else None
    defines = guard_defines(options.arch, options.compile_command, options.defines)
    job = Job(defines=defines, undefines=tuple(options.undefines), then=then)
    fresh = _parsed_stream(misses, job, jobs, options)
    try:
        for i, e in enumerate(entries):
            if e.problem is not None:
                yield stage.outcome(ParsedFile(path=e.path, problems=(e.problem,)))
            elif i in hits:
                yield hits.pop(i)
            else:
                yield _received(next(fresh), stage)
    finally:
        # The pool's stream stops its workers when it is closed. Left to the garbage collector,
        # it was closed at interpreter exit when a caught exception's traceback held it in a
        # cycle (a CUT012), after the pipes were gone: "Exception ignored ... Bad file
        # descriptor" on stderr.
        fresh.close()


def _received(got: object, stage: JudgeStage) -> Outcome:
    """A worker's answer as an outcome: judged there (Encoded), or parsed only (judged here: all
    files when the workers only parse, else a file the parser failed on)."""
    if isinstance(got, Encoded):
        decoded = decode(got.data, got.key)
        if decoded is not None:
            return decoded
    assert isinstance(got, ParsedFile), f"a parser worker sent {type(got).__name__}"
    out = stage.outcome(got)
    failed = any(p.code in (PARSER_FAILURE, INTERNAL_ERROR) for p in got.problems)
    if stage.cache is not None and not failed:  # a crash or a time-out is not the file's answer
        key = stage.cache.key(got.path, stage.options)
        if key is not None:
            try:
                entry = encode(out, key)
            except ValueError:
                # A result JSON cannot hold: a file name that is not UTF-8 (`k\xff.cu`, read as
                # a lone surrogate). The result is printed as usual, just not cached.
                entry = None
            if entry is not None:
                stage.cache.store(key, entry)
    return out


def _manifest(
    cache: ResultCache | None, paths: Sequence[Path | str], options: CheckOptions
) -> TreeManifest | None:
    if cache is None:
        return None
    return TreeManifest.open(cache.directory, configuration(cache.tool, paths, options))


def _kept(
    cache: ResultCache | None, tree: TreeManifest | None, path: str, options: CheckOptions
) -> Outcome | None:
    """The kept result of `path`, by the key the tree manifest remembers for it, else by its
    key made now (and remembered)."""
    if cache is None:
        return None
    key = tree.key(path) if tree is not None else None
    if key is None:
        before = signature(path)
        with inputs.recording() as read:
            key = cache.key(path, options)
        if key is not None and tree is not None:
            tree.remember(path, key, before, read)
    return cache.load(key) if key is not None else None


def _parsed_stream(
    files: list[str], job: Job, jobs: int, options: CheckOptions
) -> Generator[object, None, None]:
    if jobs <= 0 or not files:
        from cutlint.parse.worker import parse_file

        return (parse_file(f, job) for f in files)
    limits = replace(parse.DEFAULT_LIMITS, seconds_per_file=options.parse_timeout)
    return pool.stream(files, job, jobs, limits)


def root_of(options: CheckOptions) -> str:
    return str(real_root(options.root or Path.cwd()))
