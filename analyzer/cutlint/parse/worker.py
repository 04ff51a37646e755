"""The child side of the pool: read a file, parse it, send the ParsedFile back; repeat.

Everything that can go wrong with one file ends here as an InputProblem for that file, except
what kills the process (libclang's SIGSEGV, the address-space limit hit inside C++ code); the
pool sees those as a dead worker and reports the file it was on.
"""

from __future__ import annotations

import os
import resource
import signal
from typing import TYPE_CHECKING

from cutlint import heap, inputs
from cutlint.parse.defines import READY, Job
from cutlint.parse.extract import parse_source
from cutlint.parse.problems import INTERNAL_ERROR, PARSER_FAILURE, UNREADABLE_INPUT, problem
from cutlint.records import ParsedFile

if TYPE_CHECKING:  # a file parsed in the checking process needs no multiprocessing
    from multiprocessing.connection import Connection


def parse_file(path: str, job: Job) -> ParsedFile:
    """Read and parse one file; any failure is an InputProblem, never an exception.

    The file is read through `cutlint.inputs`, which refuses what is not a regular file by the
    descriptor it opened (without blocking): a source swapped for a FIFO after the walk costs
    nothing, where a plain open() would hang the worker until its time limit."""
    try:
        text = inputs.read_bytes(path, inputs.SOURCE)
    except inputs.InputError as err:
        return ParsedFile(path=path, problems=(problem(UNREADABLE_INPUT, path, err.why),))
    code = PARSER_FAILURE
    try:
        return parse_source(path, text, job.defines, job.undefines, named=path in job.named)
    except MemoryError:
        message = "parsing ran out of memory (the worker's address-space limit)"
    except RecursionError:
        message = "parsing nested too deeply"
    except Exception as err:  # a cutlint bug: report it for this file, go on
        code = INTERNAL_ERROR
        message = f"internal error while parsing: {type(err).__name__}: {err}"[:2000]
    return ParsedFile(path=path, problems=(problem(code, path, message),))


def payload(parsed: object) -> bytes | object:
    """What the worker sends back: JSON, serialized and validated by pydantic-core, is 4x cheaper
    than pickling the models (55 + 120 us against 235 + 480 us for a file of 8), and the parent
    decodes every file of the run on one core. A record JSON cannot carry (a path that is not
    UTF-8, kept by Python as lone surrogates) is sent pickled instead, as is a later stage's
    output (`Job.then`: a FileResult's recipe is a family's subclass, which JSON cannot name)."""
    if not isinstance(parsed, ParsedFile):
        return parsed
    try:
        return parsed.model_dump_json().encode()
    except ValueError:  # PydanticSerializationError is a ValueError
        return parsed


def _failed(parsed: ParsedFile) -> bool:
    return any(p.code in (PARSER_FAILURE, INTERNAL_ERROR) for p in parsed.problems)


def _limit_memory(extra_bytes: int) -> None:
    """Cap the address space at what the worker has now plus `extra_bytes`.

    Relative to the current size because a forked worker starts with its parent's mappings,
    whatever they are; an absolute cap below them would fail every allocation.
    """
    try:
        with open("/proc/self/statm") as f:
            current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return  # no /proc: leave the address space unlimited rather than guess
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = current + extra_bytes
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def main(conn: Connection, memory_bytes: int | None, warm: bool = False) -> None:
    """Serve batches, `(job, [(index, path, later, note), ...])`, until the parent sends None or
    goes away; `later`: whether to run the job's later stage on the file (pool.Share), and
    `note` what the parent said of the file for that stage (pool.stream). The job comes
    with a worker's first batch only (None after): it names every file the user named, which
    for a long list of files is more than the batch.

    `warm`: load libclang before the first batch (a worker started ahead of the files,
    pool.prestart), so that the load overlaps the parent's own start-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    inputs.forget_recordings()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a libclang crash must not dump core
    if memory_bytes is not None:
        _limit_memory(memory_bytes)
    conn.send(READY)
    if warm:
        from cutlint.parse import libclang

        try:
            libclang.preload()
        except libclang.ParserFailure:
            pass  # the first file with an #if reports it
    heap.settle()  # the worker runs to the run's end: what it holds now lives as long
    current: Job | None = None
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job, batch = message
        if job is not None and job != current:  # an equal job keeps the first one's stage
            current = job  # (and what it memoized); None: the job of the batch before
        if current is None:
            return  # a batch before any job: the parent is not ours to serve
        for index, path, later, note in batch:
            conn.send((index, payload(_run(current, path, later, note))))


def _run(job: Job, path: str, later: bool = True, note: object = None) -> object:
    """Parse `path`, then run the job's later stage on it (with `note`), if any and if `later`.
    A file the parser failed on is sent back as parsed: what becomes of it (no cache entry for a
    crash or a time-out) is the parent's to decide, as for a worker that died on it. A bug in
    that stage is the stage's to report (the engine turns its own exceptions into CUT012); one
    that escapes costs this file its later stage, never the worker."""
    parsed = parse_file(path, job)
    if job.then is None or not later or _failed(parsed):
        return parsed
    try:
        return job.then(parsed, note)
    except Exception:
        return parsed
