"""A small pool of long-lived worker processes, so that one file cannot take the run down.

libclang is C++ and can SIGSEGV on pathological input; Python cannot catch that. Each worker is
forked once, limits its own address space, and parses batches of files, sending one result per
file as it finishes. The parent knows which file each worker is on (the first unanswered one of
its batch), so when a worker dies or stays silent past the per-file time limit, that file gets a
CUT007 problem, the worker is replaced, and the rest of its batch goes to the new one.

Forked rather than spawned: a worker inherits the records (pydantic, and ParsedFile's validator
and serializer, built once before the fork), which both sides need. The parser itself (libclang's
bindings, the scanners) is imported in the worker only: the first worker (`prestart`) imports it
and loads libclang on the second core while this process imports the model and the rules, and
this process never imports it. (Forking before the records too was measured: the worker then
builds them a second time, which costs more than the overlap gains on a loaded 2-core machine.)
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as with_changes
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING

from cutlint.parse.defines import READY, SECONDS_PER_FILE, Job

if TYPE_CHECKING:
    from cutlint.records import ParsedFile


@dataclass(frozen=True)
class Limits:
    seconds_per_file: float = SECONDS_PER_FILE
    """CPU time one file may take in a worker before it is killed (CUT007). CPU time, not wall
    time, so that whether a file is read does not depend on how busy the machine is; where the
    worker's CPU time cannot be read (no /proc), wall time."""
    memory_bytes: int | None = 2 << 30
    """Address space a worker may add to what it starts with; None for no limit."""
    batch_size: int = 16
    """Files sent to a worker in one message (results still come back one by one). A worker is
    sent its next batch while a whole one is still unanswered, so that it does not wait for the
    parent between two batches: sent at half a batch, the worker of the hundred-thousand-kernel
    first run waited 2.1 s in all for its next batch (the parent busy with one file's many
    kernels), at a whole one 1.4 s."""


DEFAULT_LIMITS = Limits()

WALL_FACTOR = 10.0
"""A worker that uses no CPU (blocked on I/O: a stalled network file system) is stopped after
this many times `seconds_per_file` of wall time."""

AHEAD = 8
"""Batches per worker that may lie answered and not yet taken by the caller: a caller slower
than the workers stops them there (bounded memory) rather than let the answers pile up."""

WANTED = 3
"""Batches per worker lying answered for the caller from which the workers take a larger share
of the judging (`Share`)."""


@dataclass
class Share:
    """Which files the workers run the job's later stage on (`Job.then`); the others come back
    parsed, and the caller runs the stage itself. The caller's own share is the cheaper one (a
    worker's output is encoded there and decoded here, and each process warms its own caches),
    but the caller alone is one core: the share is set so that neither side waits for the
    other. Before each batch: if the caller had to wait for an answer since the batch before,
    the workers are behind and take less; if WANTED batches per worker lie answered in order
    for it, the caller is behind and the workers take more. (At one batch the share rose while
    the caller still had the work to catch up, and the worker, parsing every file and judging its
    share, left the caller waiting: the hundred-thousand-kernel first run, 4 alternating pairs,
    62.5 to 67.9 s with one, 61.0 to 65.3 s with two; then 62.0 to 64.5 s with two, 61.0 to
    63.1 s with three.)"""

    fraction: float = 0.5
    """The share of batches the workers finish, 0 to 1."""
    step: float = 0.05
    """How far one batch moves `fraction` (0: a fixed share)."""
    credit: float = 0.0

    def take(self) -> bool:
        """Whether the workers finish the next batch: `fraction` of the batches, spread evenly.
        By the batch, not the file: neighbouring files share their build context and their
        kernels' judgements (the memo of each process), so a batch is better judged in one."""
        self.credit += self.fraction
        if self.credit >= 1.0:
            self.credit -= 1.0
            return True
        return False

    def adapt(self, waited: bool, ready: int, wanted: int) -> None:
        """Before a batch: whether the caller `waited` for an answer since the batch before;
        `ready` answers lie in order for it, `wanted` keep it busy without making the workers
        stop (AHEAD)."""
        if waited:  # twice as fast down as up: a share the parent could have judged costs CPU
            self.fraction = max(0.0, self.fraction - 2 * self.step)
        elif ready >= wanted:
            self.fraction = min(1.0, self.fraction + self.step)


try:
    _TICKS = float(os.sysconf("SC_CLK_TCK"))
except (AttributeError, ValueError, OSError):
    _TICKS = 100.0


def _cpu_seconds(stat: int) -> float | None:
    """User + system CPU time of the process whose /proc/<pid>/stat is open as `stat`, or None
    where unreadable."""
    try:
        data = os.pread(stat, 1024, 0)
        fields = data[data.rindex(b")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    batch: deque[tuple[int, str]] = field(default_factory=deque)
    since: float = 0.0
    """When the file it is on began: the batch was sent, or the previous result came back."""
    cpu_since: float | None = None
    """The worker's CPU time then (None where it cannot be read)."""
    job: Job | None = None
    """The job it was sent (with its first batch; later batches go without)."""
    stat: int | None = None
    """Its /proc/<pid>/stat, kept open (-1 where it cannot be): read again in place, it costs a
    quarter of opening and reading it, which the parent did for every file (a third of its CPU
    in a 7,563-file run)."""

    def start_file(self) -> None:
        self.since = time.monotonic()
        self.cpu_since = self.cpu()

    def cpu(self) -> float | None:
        """The worker's CPU time so far, or None where it cannot be read (no /proc)."""
        if self.stat is None:
            try:
                self.stat = os.open(f"/proc/{self.process.pid}/stat", os.O_RDONLY)
            except OSError:
                self.stat = -1
        return _cpu_seconds(self.stat) if self.stat >= 0 else None

    def wall(self) -> float:
        return time.monotonic() - self.since

    def used(self) -> float:
        """Seconds the current file has taken: CPU time where readable, else wall time."""
        now = self.cpu()
        if now is None or self.cpu_since is None:
            return self.wall()
        return now - self.cpu_since

    def close(self) -> None:
        if self.stat is not None and self.stat >= 0:
            os.close(self.stat)
        self.stat = -1


def _context() -> ForkContext | SpawnContext:
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _child(conn: Connection, memory_bytes: int | None, warm: bool) -> None:
    """The worker process: import the parser here (not before the fork), then serve."""
    from cutlint.parse import worker

    worker.main(conn, memory_bytes, warm)


def _start(limits: Limits, warm: bool = False) -> _Worker | None:
    """A fresh worker, or None when none can be started (then the pool parses in-process).
    A warm one (`prestart`) is not waited for here: `_take_warm` does, when a run takes it."""
    ctx = _context()
    parent, child = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=_child, args=(child, limits.memory_bytes, warm), daemon=True)
    try:
        proc.start()
    except (OSError, AssertionError):  # AssertionError: we are a daemonic process ourselves
        return None
    child.close()
    w = _Worker(proc, parent)
    return w if warm or _ready(w) else None


def _ready(w: _Worker) -> bool:
    """Whether the worker said it is ready; one that did not is stopped."""
    # generous: a fork, some rlimits and, for a worker forked before the parser was imported,
    # that import
    if not w.conn.poll(30.0):
        w.process.kill()
        w.process.join(1.0)
        return False
    try:
        ready = w.conn.recv()
    except (EOFError, OSError):
        ready = None
    if ready != READY:
        w.process.join(1.0)
        return False
    return True


_warm: list[tuple[_Worker, int | None, str | None]] = []
"""The worker `prestart` started, with its memory limit and the working directory it was forked
in (it resolves relative paths there), until a run takes it."""


def prestart(limits: Limits = DEFAULT_LIMITS) -> None:
    """Start one worker now, before the files are known, and let it load libclang (68 MB)
    while this process goes on with its own start-up; the next `run` takes it. Worth it with a
    second core (a one-file `cutlint check` waits for the load otherwise); skipped with one."""
    if _warm or (os.cpu_count() or 1) < 2:
        return
    build_records()
    w = _start(limits, warm=True)
    if w is not None:
        _warm.append((w, limits.memory_bytes, _cwd()))


def _cwd() -> str | None:
    """The working directory, or None when it is gone (removed under this process)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _take_warm(limits: Limits) -> _Worker | None:
    # A worker left by an earlier check of this process (one that stopped at a usage error
    # after prestart) may have been forked elsewhere: relative paths would name other files.
    while _warm:
        w, memory, cwd = _warm.pop()
        same_place = cwd is not None and cwd == _cwd()
        if memory == limits.memory_bytes and same_place and w.process.is_alive() and _ready(w):
            return w
        _stop(w, kill=True)
    return None


def build_records() -> None:
    """The records are built on first use (defer_build): build ParsedFile's validator and
    serializer before forking, once, so that the workers inherit them instead of each building
    its own (and importing pydantic's plugin loader) before it can answer."""
    from cutlint.records import ParsedFile

    ParsedFile.model_rebuild()


_leaving: list[_Worker] = []
"""Workers told to stop and not yet waited for (`_stop`): a worker's exit (unmapping libclang
and its heap) took 5-7 ms of a one-file check on the 2-core machine, which the check spends on
its report instead. The next pool of this process waits for them (`_reap`), and at exit
multiprocessing's own handler does, as for every daemonic child."""


def _stop(w: _Worker, kill: bool) -> None:
    """Stop a worker: `kill` one that is on a file; tell an idle one to exit, and leave it to
    exit on its own (`_leaving`)."""
    if not kill:
        try:
            w.conn.send(None)
        except OSError:
            pass
        w.close()  # its CPU time is read no more
        _leaving.append(w)
        return
    w.process.kill()  # our own child, by its handle: SIGKILL to that pid only
    _wait(w)


def _reap() -> None:
    """Wait for the workers told to stop (a stopped worker exits at once: it was idle)."""
    while _leaving:
        _wait(_leaving.pop())


def _wait(w: _Worker) -> None:
    w.process.join(2.0)
    if w.process.is_alive():
        w.process.kill()
        w.process.join(2.0)
    try:
        w.conn.close()
    except OSError:
        pass  # already closed (the process is going away): nothing left to release
    w.close()


def _death(w: _Worker) -> str:
    w.process.join(2.0)
    code = w.process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the parser process was killed by {name} on this file (a libclang crash, or its memory limit)"
    return f"the parser process exited (status {code}) while on this file"


def _failed(path: str, why: str) -> ParsedFile:
    from cutlint.parse.problems import PARSER_FAILURE, problem
    from cutlint.records import ParsedFile

    return ParsedFile(path=path, problems=(problem(PARSER_FAILURE, path, why),))


def run(paths: Sequence[str], job: Job, jobs: int, limits: Limits) -> list[ParsedFile]:
    """Parse `paths` in up to `jobs` workers; the results are in the order of `paths`."""
    from cutlint.records import ParsedFile

    assert job.then is None, "run() returns ParsedFiles; stream() returns a later stage's output"
    return [r for r in stream(paths, job, jobs, limits) if isinstance(r, ParsedFile)]


def stream(
    paths: Sequence[str],
    job: Job,
    jobs: int,
    limits: Limits,
    share: Share | None = None,
    meanwhile: Callable[[], object] | None = None,
    notes: Callable[[str], object] | None = None,
    idle: Callable[[], bool] | None = None,
) -> Generator[object, None, None]:
    """Parse `paths` in up to `jobs` workers and yield, in the order of `paths`, each file's
    record as soon as it and every file before it are done: its ParsedFile, or, with
    `job.then`, that stage's output for the files `share` gives the workers (all of them
    without one; a file the parser failed on is always a ParsedFile). Holds only the results
    that came back ahead of an earlier file, so memory does not grow with the number of files.

    While the caller works on a result, the workers go on: each result handed over is followed
    by a look (without waiting) for what the workers sent, and their next batches. `meanwhile`
    is called once, when the first batches are sent, before the first wait for a result: what
    the caller needs for the first result, done while the workers parse.

    `notes`: what the caller says of a file to the job's later stage, asked here as the file is
    sent to a worker that runs the stage on it, and sent with it: what the stage would otherwise
    carry for every file of the run to every worker (the engine's keys, made before the parse:
    in the hundred-thousand-kernel run 50 MB of the worker's memory).

    `idle`: the caller's own work, done a piece at a time where it would wait for a worker
    (False: none is left); a wait is then only a wait with nothing else to do, as the share
    sees it."""
    _reap()
    results: dict[int, object] = {}
    pending = deque(enumerate(paths))
    workers: list[_Worker] = []
    if share is None:
        share = Share(fraction=1.0 if job.then is not None else 0.0, step=0.0)
    build_records()
    following = 0
    try:
        for i in range(min(jobs, len(paths))):
            w = (_take_warm(limits) if i == 0 else None) or _start(limits)
            if w is None:
                break
            workers.append(w)
        isolated = bool(workers)
        pool = _Pool(workers, pending, results, job, limits, share, notes)
        pool.assign()
        if meanwhile is not None:
            meanwhile()
        while any(w.batch for w in workers):
            if pool.following not in results:
                pool.round(block=idle is None or not idle())
                continue
            yield results.pop(pool.following)
            pool.following += 1
            pool.round(block=False)
        following = pool.following
        for i, path in pending:
            if isolated:  # workers ran, then none could be restarted: do not risk this process
                results[i] = _failed(path, "no parser process could be started for this file")
            else:  # no worker could be started at all (no fork, no pipes): parse without one
                from cutlint.parse.worker import parse_file

                parsed = parse_file(path, job)
                later = job.then is not None and share.take()
                note = notes(path) if later and notes is not None else None
                results[i] = job.then(parsed, note) if later and job.then is not None else parsed
        while following < len(paths):
            yield results.pop(following)
            following += 1
    finally:
        for w in workers:
            _stop(w, kill=bool(w.batch))


@dataclass
class _Pool:
    """The workers of one `stream` and the files not yet answered."""

    workers: list[_Worker]
    pending: deque[tuple[int, str]]
    results: dict[int, object]
    job: Job
    limits: Limits
    share: Share
    notes: Callable[[str], object] | None = None
    """What the caller says of a file to the job's later stage (`stream`)."""
    following: int = 0
    """The file the caller takes next."""
    waited: bool = False
    """Whether the caller waited for an answer since the last batch was sent."""
    parse_only: Job | None = None
    """`job` without its later stage, once a worker has been sent it (`_parse_only`)."""

    def round(self, block: bool) -> None:
        """Take what the workers sent (with `block`, wait for one answer at least, and stop a
        worker whose file is over its time), then send the next batches."""
        busy = [w for w in self.workers if w.batch]
        self.waited = self.waited or block
        if busy:
            timeout = self._timeout(busy) if block else 0.0
            ready = wait([w.conn for w in busy], timeout=timeout)
            wall_limit = self.limits.seconds_per_file * WALL_FACTOR
            for w in busy:
                if w.conn in ready:
                    # Everything it has sent, not one answer: what lies in the pipe is no answer
                    # the share can see (it saw one at a time, so the workers were never given
                    # more to judge), and a worker whose pipe is full waits, parsing nothing. A
                    # FlashInfer cache's files (many kernels each, slow to judge here) kept the
                    # worker at a third of a core.
                    while True:
                        if not _receive(w, self.results):
                            self.replace(w, _death(w))
                            break
                        if not w.batch or not w.conn.poll():
                            break
                elif block:
                    why = _over(w, self.limits.seconds_per_file, wall_limit)
                    if why is not None:
                        self.replace(w, why)
        self.assign()

    def _timeout(self, busy: list[_Worker]) -> float:
        # A worker cannot use more CPU than wall time, so none can run out of its budget before
        # the smallest budget left has passed: wake then (or at the wall limit) and look again.
        # (A look without waiting checks no budget: the caller waits, and checks, before it
        # takes the file of a worker that hangs.)
        # Its wall time bounds its CPU time too: the CPU time is read only once the wall time
        # is past the budget.
        now = time.monotonic()
        budget = self.limits.seconds_per_file
        wall_limit = budget * WALL_FACTOR
        left = [budget - (w.used() if w.wall() > budget else w.wall()) for w in busy]
        left += [w.since + wall_limit - now for w in busy]
        return max(0.01, min(left))

    def assign(self) -> None:
        """Send the next batch to every worker that is less than half a batch from idle, while
        fewer than AHEAD batches per worker lie answered (one is always sent when every worker
        is idle: the caller may be waiting for a file still pending). One that died while idle
        (killed from outside) is replaced; no file is blamed, since it was on none."""
        size = self.limits.batch_size
        for w in list(self.workers):
            if len(w.batch) > size or not self.pending:
                continue
            if len(self.results) >= AHEAD * size * len(self.workers) and any(
                v.batch for v in self.workers
            ):
                continue
            ready = self.following
            while ready in self.results:
                ready += 1
            self.share.adapt(self.waited, ready - self.following, WANTED * size * len(self.workers))
            self.waited = False
            later = self.job.then is not None and self.share.take()
            notes = self.notes if later else None
            sent: list[tuple[int, str, bool, object]] = []
            while self.pending and len(sent) < size:
                index, path = self.pending.popleft()
                sent.append((index, path, later, None if notes is None else notes(path)))
            idle = not w.batch
            w.batch.extend((index, path) for index, path, _, _ in sent)
            # The job goes without its later stage until a batch needs it: unpickling the stage
            # imports the engine's judge in the worker (60 ms of a one-file check's start-up on
            # the 2-core machine, ahead of its parse) for a worker whose files the parent judges.
            # A worker that has the stage keeps it (its memo) for the batches that need none.
            job = self.job if later or w.job is self.job else self._parse_only()
            try:
                w.conn.send((job if w.job is not job else None, sent))
                w.job = job
            except OSError:
                self.replace(w, blame=None)
                continue
            if idle:
                w.start_file()

    def _parse_only(self) -> Job:
        """The job without its later stage (the same job when it has none), one per pool: a
        worker is sent it once."""
        if self.parse_only is None:
            stage = self.job.then
            self.parse_only = self.job if stage is None else with_changes(self.job, then=None)
        return self.parse_only

    def replace(self, w: _Worker, blame: str | None) -> None:
        """Blame the file `w` is on (when `blame` says why), put the rest of its batches back in
        front, and start a fresh worker in its place."""
        if blame is not None:
            index, path = w.batch.popleft()
            self.results[index] = _failed(path, blame)
        _stop(w, kill=True)
        self.pending.extendleft(reversed(w.batch))
        w.batch.clear()
        fresh = _start(self.limits)
        self.workers.remove(w)
        if fresh is not None:
            self.workers.append(fresh)


def _over(w: _Worker, budget: float, wall_limit: float) -> str | None:
    """Why the worker's current file is to be stopped, or None."""
    if w.wall() > budget and w.used() > budget:  # no more CPU time than wall time
        kind = "CPU time" if w.cpu_since is not None else "time"
        return f"parsing took more than {budget:g} s of {kind}; the parser was stopped"
    if time.monotonic() - w.since > wall_limit:
        return f"parsing took more than {wall_limit:g} s without finishing; the parser was stopped"
    return None


def _receive(w: _Worker, results: dict[int, object]) -> bool:
    """Take one result; False when the worker is gone."""
    try:
        index, payload = w.conn.recv()
    except (EOFError, OSError):
        return False
    _, path = w.batch.popleft()
    results[index] = _decoded(path, payload)
    w.start_file()
    return True


def _decoded(path: str, payload: object) -> object:
    """A worker's result; one this process cannot read back is a cutlint bug, reported for its
    file (CUT012) rather than ending the run. Only a ParsedFile comes as JSON (worker.payload);
    anything else came pickled and is what the job's stage returned."""
    from cutlint.parse.problems import INTERNAL_ERROR, problem
    from cutlint.records import ParsedFile

    if not isinstance(payload, bytes):
        return payload
    try:
        return ParsedFile.model_validate_json(payload)
    except ValueError as err:  # pydantic's ValidationError is a ValueError
        why = f"internal error: the parser's result could not be read back: {err}"[:2000]
        return ParsedFile(path=path, problems=(problem(INTERNAL_ERROR, path, why),))
