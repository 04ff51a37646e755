"""A check run as a stream: each file parsed in a worker process and judged there or here, its
result handed on in input order as soon as it is ready, from the cache when an unchanged file
was judged before in the same context.

    walk ──▶ cache hit? ──yes──────────────────────────────────────────────▶ result, in order
                 └─no──▶ worker: parse ─┬─▶ judge ─▶ fingerprint ─▶ keep ─▶ result, in order
                                        └─▶ (here) judge ─▶ fingerprint ─▶ keep ─┘

Who judges a file is parse/pool.py's Share: the parent judges what it can keep up with (a file
judged here costs no encoding there and no decoding here, and shares this process's memo and
contexts), the workers the rest, so that no core waits for another. A file the parser failed on
comes back as its ParsedFile and is judged here (its result is one CUT007 diagnostic).

A caller that needs only what it makes of each result (the streamed JSON report: each file's
rows as text) passes a `Finish`: a worker then runs it on the results it judged and sends its
output instead of the records, which the parent would decode only to encode them again.
"""

from __future__ import annotations

import importlib
import os
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, overload

from cutlint import heap
from cutlint.context.arch_macros import guard_defines
from cutlint.engine import keying
from cutlint.engine.fingerprint import fingerprint_file, real_root
from cutlint.engine.options import CheckOptions
from cutlint.inputs import signature
from cutlint.parse import walk
from cutlint.parse.defines import Job, command_line, in_process
from cutlint.parse.problems import INTERNAL_ERROR, PARSER_FAILURE
from cutlint.records import FileResult, ParsedFile

# The cache's modules (engine/cache.py, tree_manifest.py, tree_pack.py) are imported where a run
# keeps its results or a worker encodes one: a check with the cache off (`--no-cache`) does not
# pay for them (9 ms of a one-file check on the 2-core machine).
if TYPE_CHECKING:
    from cutlint.engine import tree_pack
    from cutlint.engine.cache import ResultCache
    from cutlint.engine.judge import Memo
    from cutlint.engine.tree_manifest import TreeManifest
    from cutlint.parse.pool import Share

Outcome = FileResult | str
"""One file's outcome: its result, or its path when it is no instantiation file (a FlashInfer
JIT source: CheckResult.skipped)."""


class Finish(Protocol):
    """What a caller makes of each file's result (`outcomes(..., finish=)`), run by the worker
    that judged it. Pickled with the run's first batch by reference to its class, so it is a
    module-level, picklable value (a frozen dataclass); what it returns is pickled back."""

    def __call__(self, result: FileResult) -> object: ...


@dataclass(frozen=True)
class Finished:
    """A file's outcome as a worker's `Finish` made it: `value` in place of the records."""

    path: str
    kernels: int
    """Its instantiations (the progress bar counts them)."""
    value: object


MAX_JOBS = 8
"""Workers when the caller does not say: one per core but the parent's, at least one and up to
8. The parent judges its share of the files (pool.Share), so it is a core's worth of work too:
on the 2-core machine the 100,099-kernel run took 76 s wall and 119 s of CPU with one worker,
80 s and 141 s with two (each worker loads its own compile databases and warms its own memos).
Each holds a libclang (about 40 MB resident, parse/paths.py) and the models it has judged with."""


def default_jobs() -> int:
    """Parser workers when the caller does not say (MAX_JOBS)."""
    return max(1, min(MAX_JOBS, (os.cpu_count() or 1) - 1))


def share() -> Share:
    """Which files the workers judge: at first none, then as many as keep the parent from
    falling behind and no more (pool.Share). A file a worker judges costs more than one judged
    here (its result is encoded there and decoded here, and each worker warms its own contexts
    and memo: on the 2-core machine, 4,748 files took 27 s of CPU with the workers judging all,
    18 s with the parent judging all), but the parent alone is one core: judging all, it was
    busy 12 s while the two workers parsed for 5 s.

    So also with a `Finish`, though what a worker sends then costs the parent almost nothing:
    on the 100,099 kernels (`--format json --no-cache`, a quiet 2-core machine) the default, one
    worker and this share, took 136.9 s wall and 223 s of CPU; two workers judging every file
    (the parent only handing their parts on) took 148.9 s and 274 s, each worker warming its own
    contexts and memo, and the two contending for the cores."""
    from cutlint.parse import pool  # multiprocessing: only for a run that starts workers

    return pool.Share(fraction=0.0)


MEMO_LIMIT = 2048
"""Judgements a worker keeps for equal instantiations of later files. A worker lives as long as
the run, so an unbounded memo would hold every kernel of a build; repeats sit near one another
in a tree (one launcher's files, a cache's copies), so a bounded one keeps nearly all its hits.
(On a 7,100-kernel build the peak RSS was 396 MB with and without the bound: the peak is the
parent's decoded results, not the memo.)"""


RECIPE_MEMO_LIMIT = 16384
"""Judgements a process keeps by recipe (engine/judge.py Memo.recipes): the distinct tactics of
a build, which are far fewer than its kernels (a judgement's Resources is shared by all that
have it, so the bound also bounds what they cost). A smaller bound holds less but costs time:
with 4,096 (forgetting all at the bound, or its older half) the two processes of the
hundred-thousand-kernel first run held about 100 MB less together and took 2 to 6 s longer
(the judgements and their records made, and dumped for the cache, again)."""


def _memo() -> Memo:
    from cutlint.engine.judge import Memo  # a run answered by the cache judges nothing

    return Memo()


_Rows = dict[str, list[object]]
"""A tree manifest's rows by path: a file's stat (size, mtime_ns, inode, ctime_ns), then its key."""


@dataclass(frozen=True)
class JudgeStage:
    """The engine's stage, run by a parser worker on each file it parsed (parse.Job.then)."""

    options: CheckOptions
    root: Path
    cache: ResultCache | None
    finish: Finish | None = None
    """What the caller makes of each result, run here and sent in place of the records (with a
    cache, beside the entry, which the tree pack keeps)."""
    memos: list[Memo] = field(default_factory=list, compare=False, repr=False)
    """This process's memo (`memo`), made when it first judges: the judge is imported then, not
    before a run's first batch is sent to its parser worker (`_parsed_stream`)."""
    known: _Rows = field(default_factory=dict, compare=False, repr=False)
    """The files to parse whose key the stat phase made (it reads each file and resolves its
    build context): their rows, so that the entry of a file judged here or in a worker is kept
    under that key, not one made again (a third of a first run's context resolutions, and in
    the hundred-thousand-kernel first run 5 s of the worker's CPU, the busier process once the
    stat phase is done). This process's only: a worker is sent a file's row with the file
    (`note`, pool.stream's `notes`), not the rows of the whole run (50 MB there)."""

    @property
    def memo(self) -> Memo:
        """This process's memo: equal instantiations in one context are judged once."""
        if not self.memos:
            self.memos.append(_memo())
        return self.memos[0]

    def __reduce__(self) -> tuple[type[JudgeStage], tuple[object, ...]]:
        # the memo and the rows stay behind
        return (JudgeStage, (self.options, self.root, self.cache, self.finish))

    def note(self, path: str) -> object:
        """What a worker is sent with a file it judges (`__call__`'s `note`): its row."""
        return self.known.get(path)

    def key(self, path: str, row: object = None) -> str | None:
        """The file's entry key: the one made before the parse (its row: `row`, else the one
        `known` holds) where the file's stat is still the one it was made for, else one made
        now; None without a cache (or for a file that cannot be read)."""
        if self.cache is None:
            return None
        if not isinstance(row, list):
            row = self.known.get(path)
        if row is not None and list(signature(path) or ()) == row[:4]:
            return str(row[4])
        return self.cache.key(path, self.options)

    def __call__(self, parsed: ParsedFile, note: object = None) -> Encoded | Finished | str:
        """The outcome, encoded as the cache keeps it: JSON that the parent validates at a
        third of what unpickling the records costs it (0.7 against 2.5 ms for a cutlass_library
        file, measured on a loaded 2-core machine), and the parent is the one core every result
        passes through. With a `finish`, also what it makes of the result, which the parent
        hands on as it is: it then decodes nothing (the tree pack is written from the entry's
        bytes), and without a cache it is sent alone.

        The parent keeps the entry (`_received`), not this worker: it has the entry's bytes for
        the tree pack anyway, and one writer is one log (engine/entry_log.py). While each entry
        was a file of its own, one writer also took the 100a build's first run from 28.5 to
        25.7 s (medians of 5 alternating pairs): on the 2-core machine a file created while
        another process creates files costs several times its system time."""
        out = self.outcome(parsed)
        finished = None
        if self.finish is not None:
            if isinstance(out, str):
                if self.cache is None:
                    return out
            else:
                finished = Finished(out.path, len(out.instantiations), self.finish(out))
                if self.cache is None:
                    return finished
        from cutlint.engine.cache import encode

        key = self.key(parsed.path, note)
        data = encode(out, key or "")
        return Encoded(key or "", data, finished)

    def outcome(self, parsed: ParsedFile) -> Outcome:
        if parsed.skipped:
            return parsed.path
        self.memo.bound(MEMO_LIMIT, RECIPE_MEMO_LIMIT)
        from cutlint.engine.run import judged_file  # a run answered by the cache judges nothing

        return fingerprint_file(judged_file(parsed, self.options, self.memo), self.root)


@dataclass(frozen=True)
class Encoded:
    """A worker's outcome on its way to the parent (engine/cache.py's entry format)."""

    key: str
    data: bytes
    finished: Finished | None = None
    """What the run's `Finish` made of it, which the parent hands on undecoded."""


class Progress(Protocol):
    """Who hears how far a run is (report/progress.py draws it)."""

    def start(self, total: int) -> None: ...

    def advance(self, kernels: int = 0) -> None: ...


@overload
def outcomes(
    paths: Sequence[Path | str], options: CheckOptions, progress: Progress | None = None
) -> Iterator[Outcome]: ...


@overload
def outcomes(
    paths: Sequence[Path | str],
    options: CheckOptions,
    progress: Progress | None,
    finish: Finish | None,
) -> Iterator[Outcome | Finished]: ...


def outcomes(
    paths: Sequence[Path | str],
    options: CheckOptions,
    progress: Progress | None = None,
    finish: Finish | None = None,
) -> Iterator[Outcome] | Iterator[Outcome | Finished]:
    """Every file's outcome under `paths`, in input order (as `parse_paths` orders them). With
    `finish`, a file a worker judged comes as `Finished`: what `finish` made of its result
    there; the others (judged here, or kept) as their result."""
    with heap.settled():
        for outcome in _outcomes(paths, options, progress, finish):
            if progress is not None:
                progress.advance(_kernels(outcome))
            yield outcome


def _kernels(outcome: Outcome | Finished) -> int:
    if isinstance(outcome, Finished):
        return outcome.kernels
    return len(outcome.instantiations) if isinstance(outcome, FileResult) else 0


def _outcomes(
    paths: Sequence[Path | str],
    options: CheckOptions,
    progress: Progress | None,
    finish: Finish | None,
) -> Iterator[Outcome | Finished]:
    if isinstance(paths, str | Path):
        paths = [paths]
    command_line(options.defines, options.undefines)  # ValueError now, for a define it refuses
    cache = _opened() if options.cache else None
    jobs = options.jobs if options.jobs is not None else default_jobs()
    stage = JudgeStage(options, options.root or Path.cwd(), cache, finish)
    entries = walk.expand(paths, options.exclude)
    if progress is not None:
        progress.start(len(entries))
    tree = _manifest(cache, paths, options)
    keys = keying.keys(cache, tree, entries, options, 0 if in_process(options.jobs) else jobs)
    if tree is not None:
        tree.save()
    packed, writer = _pack(cache, tree, entries, keys)
    start = 0
    if packed is not None:
        start = yield from _from_pack(packed, entries, stage)
        if start == len(entries):
            return
    # The files with an entry: each is decoded as its turn comes, so that the run holds one
    # file's records and not every kept one's (a tree of 100,000 files with one changed).
    hits: dict[int, str] = {}  # their keys: the others' are the tree's and the stage's to hold
    misses: list[str] = []
    for i, e in enumerate(entries):
        if e.problem is not None or i < start:
            continue
        if cache is not None and i in keys and cache.has(keys[i]):
            hits[i] = keys[i]
        else:
            misses.append(e.path)
            row = tree.files.get(e.path) if tree is not None and i in keys else None
            if isinstance(row, list) and len(row) == 5 and row[4] == keys[i]:
                stage.known[e.path] = row
    del keys
    defines = guard_defines(options.arch, options.compile_command, options.defines)
    job = Job(
        defines=defines,
        undefines=tuple(options.undefines),
        then=stage,
        named=walk.named_files(paths),
    )
    keeping = _Keeping(writer)
    notes = stage.note if stage.known else None
    fresh = _parsed_stream(misses, job, jobs, options, notes, keeping.one if cache else None)
    try:
        for i, e in enumerate(entries):
            if i < start:
                continue
            if e.problem is not None:
                yield stage.outcome(ParsedFile(path=e.path, problems=(e.problem,)))
                continue
            kept = _kept(cache, hits[i]) if i in hits else None
            out: Outcome | Finished
            if kept is not None:
                out, entry = kept
                keeping.add(partial(_given, entry))
            else:
                # an entry that did not validate is judged afresh; a crash or a time-out is not
                # the file's answer, and the pack is not written
                got = _afresh(e.path, job, options) if i in hits else next(fresh)
                out, keep = _received(got, stage)
                keeping.add(keep)
            yield out
        keeping.finish()
        if writer is not None:
            writer.commit()
    finally:
        if writer is not None:
            writer.abandon()  # a run stopped early keeps the old pack (commit moved this one)
        if cache is not None:
            cache.close()
        # The pool's stream stops its workers when it is closed. Left to the garbage collector,
        # it was closed at interpreter exit when a caught exception's traceback held it in a
        # cycle (a CUT012), after the pipes were gone: "Exception ignored ... Bad file
        # descriptor" on stderr.
        fresh.close()


def _from_pack(
    packed: tree_pack.Packed, entries: Sequence[walk.Entry], stage: JudgeStage
) -> Generator[Outcome, None, int]:
    """The pack's outcomes, decoded one file at a time as they are handed on (a 100,099-kernel
    pack is 586 MB: read whole, the run held 2.6 GB). The index of the first entry it did not
    answer: all of them, or where the pack turned out corrupt (it is removed, and the entries
    answer from there: what was handed on before had validated)."""
    from cutlint.engine import tree_pack

    for i, e in enumerate(entries):
        if e.problem is not None:
            yield stage.outcome(ParsedFile(path=e.path, problems=(e.problem,)))
            continue
        try:
            out = next(packed.outcomes)
        except (tree_pack.Broken, StopIteration):
            packed.discard()
            return i
        yield out
    packed.finish()
    return len(entries)


def _opened() -> ResultCache:
    from cutlint.engine.cache import ResultCache

    return ResultCache.open()


def _pack(
    cache: ResultCache | None,
    tree: TreeManifest | None,
    entries: Sequence[walk.Entry],
    keys: dict[int, str],
) -> tuple[tree_pack.Packed | None, tree_pack.Writer | None]:
    """The tree pack's outcomes, when it answers for exactly this run's files and keys (every
    file's key remembered: an unchanged tree), else a writer for a new one (engine/tree_pack.py).
    Neither without a cache, or where a file has no key (it could not be read)."""
    if cache is None or tree is None:
        return None, None
    from cutlint.engine import tree_pack

    files = [i for i, e in enumerate(entries) if e.problem is None]
    if any(i not in keys for i in files):
        return None, None
    wanted = tree_pack.digest([(entries[i].path, keys[i]) for i in files])
    where = tree_pack.location(cache.directory, tree.location.stem)
    packed = tree_pack.read(where, wanted)
    if packed is not None:
        return packed, None
    return None, tree_pack.Writer(where, wanted, len(files))


def _kept(cache: ResultCache | None, key: str) -> tuple[Outcome, bytes] | None:
    return cache.load(key) if cache is not None else None


def _afresh(path: str, job: Job, options: CheckOptions) -> object:
    """One file parsed (and judged) on its own, as the run's other files are: in a worker of its
    own unless the run parses in this process. For an entry that was there when the run began
    but did not validate when its turn came (corrupt, foreign, or removed meanwhile): rare, so a
    worker's start is no cost worth sharing."""
    fresh = _parsed_stream([path], job, 1, options)
    try:
        return next(fresh)
    finally:
        fresh.close()


def _failed(got: object) -> bool:
    return isinstance(got, ParsedFile) and any(
        p.code in (PARSER_FAILURE, INTERNAL_ERROR) for p in got.problems
    )


Keep = Callable[[], bytes | None]
"""A file's entry kept in the cache, made where it is still to be encoded: its bytes for the
tree pack, or None where the file has none (the pack is then not written)."""


def _nothing_kept() -> None:
    return None


def _given(entry: bytes) -> bytes:
    return entry  # an entry the cache holds already: the tree pack's alone


class _Keeping:
    """The files' entries still to be kept (`Keep`), in file order: kept while the run waits for
    its parser worker (pool.stream's `idle`), or once too many wait. The parent is the one writer
    of the entries and of the tree pack; on the hundred-thousand-kernel first run it waited 5.8 s
    in all for its worker (which parses every file) with about 8 s of encoding and writing
    entries to do, and 3.9 s once it kept them meanwhile."""

    def __init__(self, writer: tree_pack.Writer | None) -> None:
        self.writer = writer
        self.todo: deque[Keep] = deque()

    def add(self, keep: Keep) -> None:
        self.todo.append(keep)
        while len(self.todo) > KEPT_LATER:
            self.one()

    def one(self) -> bool:
        """Keep the first entry waiting; False where none waits."""
        if not self.todo:
            return False
        entry = self.todo.popleft()()
        if self.writer is not None:
            if entry is None:
                self.writer.abandon()
            else:
                self.writer.add(entry)
        return True

    def finish(self) -> None:
        while self.one():
            pass


KEPT_LATER = 256
"""Entries that may wait to be kept: each holds its file's result (or its bytes) until then."""


def _received(got: object, stage: JudgeStage) -> tuple[Outcome | Finished, Keep]:
    """A worker's answer as an outcome, and how its entry is kept where the cache keeps one
    (kept by this process: JudgeStage.__call__): judged there (Encoded, with what the run's
    `Finish` made of it; or without a cache Finished and a skipped file's path), or parsed only
    (judged here: all files when the workers only parse, else a file the parser failed on, whose
    crash or time-out is not the file's answer). The key is made now, from the file's stat as it
    is after its parse; the encoding and the writing wait (`_Keeping`)."""
    if isinstance(got, Finished | str):
        return got, _nothing_kept
    if isinstance(got, Encoded):
        cache = stage.cache
        keep: Keep = _nothing_kept
        if cache is not None and got.key:  # else not an entry
            keep = partial(_store, cache, got.key, got.data)
        if got.finished is not None:
            return got.finished, keep
        from cutlint.engine.cache import decode

        decoded = decode(got.data, got.key)
        if decoded is not None:
            return decoded, keep
    assert isinstance(got, ParsedFile), f"a parser worker sent {type(got).__name__}"
    out = stage.outcome(got)
    if stage.cache is None or _failed(got):
        return out, _nothing_kept
    key = stage.key(got.path)
    if key is None:
        return out, _nothing_kept
    return out, partial(_encoded, stage.cache, key, out)


def _store(cache: ResultCache, key: str, entry: bytes) -> bytes:
    cache.store(key, entry)
    return entry


def _encoded(cache: ResultCache, key: str, out: Outcome) -> bytes | None:
    from cutlint.engine.cache import encode

    try:
        entry = encode(out, key)
    except ValueError:
        # A result JSON cannot hold: a file name that is not UTF-8 (`k\xff.cu`, read as a lone
        # surrogate). The result is printed as usual, just not kept.
        return None
    cache.store(key, entry)
    return entry


def _manifest(
    cache: ResultCache | None, paths: Sequence[Path | str], options: CheckOptions
) -> TreeManifest | None:
    if cache is None:
        return None
    from cutlint.engine.tree_manifest import TreeManifest, configuration

    return TreeManifest.open(cache.directory, configuration(cache.tool, paths, options))


def _parsed_stream(
    files: list[str],
    job: Job,
    jobs: int,
    options: CheckOptions,
    notes: Callable[[str], object] | None = None,
    idle: Callable[[], bool] | None = None,
) -> Generator[object, None, None]:
    if not files:
        return _nothing()  # every file answered from the cache: no parser imported
    if jobs <= 0 or in_process(options.jobs):
        from cutlint.parse.worker import parse_file

        return (parse_file(f, job) for f in files)
    from cutlint.parse import pool  # multiprocessing: only for a run that starts workers

    limits = replace(pool.DEFAULT_LIMITS, seconds_per_file=options.parse_timeout)
    return pool.stream(
        files, job, jobs, limits, share(), meanwhile=_judge_imported, notes=notes, idle=idle
    )


def _judge_imported() -> None:
    """What this process does while its parser workers parse the first files: import the judge
    (engine/run.py and what it imports), which it needs when the first file comes back. A
    one-file check's parse no longer waits behind it (5-10 ms on the 2-core machine)."""
    importlib.import_module("cutlint.engine.run")


def _nothing() -> Generator[object, None, None]:
    yield from ()


def root_of(options: CheckOptions) -> str:
    return str(real_root(options.root or Path.cwd()))
