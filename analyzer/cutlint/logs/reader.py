"""Read a log into LogEvents: one event per line that carries a failure or a summary.

The autotuner names the tactic on the line it logs, but some loggers split the error onto the
next line (TensorRT-LLM logs "Failed when profiling runner=..., tactic=..." and the exception on
a line of its own), and FlashInfer's "Tuning <op>" progress lines name the op for the lines that
follow. So the reader keeps a little context: the last tactic seen within a few lines, and the op
being tuned.

A log is input like a source file, and as large as a run was long. It is read through
cutlint.inputs (a regular file of at most 1 GiB, line by line, never whole), each line up to
MAX_LINE bytes; a line that says the same thing in the same context as an earlier one adds its
line number to that event (`repeated_at`) instead of a new event, and at most MAX_EVENTS
distinct events are kept. What was cut or left out is counted in the LogFile, and explain says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from cutlint import inputs
from cutlint.logs import patterns
from cutlint.logs.events import LogEvent, LogEventKind, LogFile, LogSite
from cutlint.records import Shape3

TACTIC_REACH = 3
"""How many lines after an autotuner line its tactic still applies to an error without one."""
MAX_LINE = 64 << 10
"""Bytes of a line that are read (a real log line is under 1 KiB; a longer one is read up to
here, and counted in LogFile.cut_lines)."""
MAX_EVENTS = 50_000
"""Distinct events kept; further ones are counted in LogFile.dropped_events. (A million lines
of one failure are one event with a million line numbers.)"""
SIZE_MAX = 2**64 - 1
"""What the launchers print byte counts as (size_t)."""
INT_MAX = 2**31 - 1
"""What they print tile and cluster sizes, arch numbers, CUresults and line numbers as (int)."""


class LogReadError(Exception):
    """The log could not be read (missing, a directory, not text); says why."""


@dataclass(frozen=True)
class _Tactic:
    line_no: int
    tactic: int | None
    text: str
    runner: str | None
    op: str | None


def _tactic_on(line: str, line_no: int) -> _Tactic | None:
    for pattern in patterns.TACTIC_CONTEXT:
        m = pattern.search(line)
        if m is None:
            continue
        groups = m.groupdict()
        raw = groups["tactic"]
        number = _int(raw)
        runner = groups.get("runner") or groups.get("runner_name")
        return _Tactic(line_no, number, raw, runner, groups.get("op"))
    return None


def _int(text: str | None, maximum: int = INT_MAX) -> int | None:
    """A number of the log, or None when it is none or more than the C++ type the code that
    prints it holds (`maximum`; the same bound below zero for a signed type)."""
    if text is None:
        return None
    digits = text.removeprefix("-")
    if not digits.isascii() or not digits.isdigit() or len(digits) > len(str(maximum)):
        return None
    value = int(text)
    return value if -maximum - 1 <= value <= maximum else None


_UNREADABLE = -1


class _Unreadable(Exception):
    """The line has a message's words but a number no launcher prints there (more than its C++
    type holds): it is not that message, and it is counted, not read."""


def _name(path: str) -> str:
    """The file name of a path printed on a Windows or a POSIX machine."""
    return path[max(path.rfind("/"), path.rfind("\\"), path.rfind(":")) + 1 :]


def _site(line: str) -> LogSite | None:
    """The last `(<file>:<line>)` on the line: TLLM appends it after the message."""
    found = None
    for m in patterns.SITE.finditer(line):
        if patterns.SITE_NAME.fullmatch(_name(m["path"])) and _int(m["line"]) is not None:
            found = m
    if found is None:
        return None
    path = found["path"]
    return LogSite(path=path, name=_name(path), line=int(found["line"]))


def _message_text(line: str, message_start: int) -> str:
    """The line from its first message anchor (or the message itself) on: the logger's prefix
    is the framework's, not the failure's."""
    m = patterns.ANCHORS.search(line)
    start = min(m.start(), message_start) if m else message_start
    return line[start:].strip()


def _arch_from_site(site: LogSite | None) -> int | None:
    """`cutlass_instantiations/<sm>/...` or `_sm<sm>_` in a generated file's name."""
    if site is None:
        return None
    m = re.search(r"_sm(\d{2,3})_", site.name) or re.search(
        r"cutlass_instantiations/(\d{2,3})/", site.path.replace("\\", "/")
    )
    return int(m.group(1)) if m else None


def _shape(*values: str) -> Shape3 | None:
    m, n, k = (_int(v) for v in values)
    return None if m is None or n is None or k is None else Shape3(m=m, n=n, k=k)


def _event(
    kind: LogEventKind,
    m: re.Match[str],
    line: str,
    line_no: int,
    tactic: _Tactic | None,
    op: str | None,
) -> LogEvent:
    g = m.groupdict()
    site = _site(line)
    fields: dict[str, object] = {}
    if kind is LogEventKind.SMEM_EXCEEDS_DEVICE:
        fields = {
            "smem_required": _int(g["required"], SIZE_MAX),
            "smem_available": _int(g["available"], SIZE_MAX),
        }
    elif kind in (
        LogEventKind.INIT_FAILED,
        LogEventKind.CAN_IMPLEMENT_FAILED,
        LogEventKind.RUN_FAILED,
    ):
        fields = {"status": g["status"]}
    elif kind is LogEventKind.STICKY_CUDA_ERROR:
        fields = {"cu_result": patterns.STICKY_ERRORS[g["sticky"]]}
    elif kind is LogEventKind.TMA_DESCRIPTOR:
        fields = {"cu_result": _int(g["cu_result"])}
    elif kind is LogEventKind.UNSUPPORTED_TILE:
        fields = {
            "tile": _shape(g["m"], g["n"], g["k"]),
            "cluster": _shape(g["cm"], g["cn"], g["ck"]),
            "arch_sm": _int(g["sm"]),
        }
    elif kind is LogEventKind.SKIPPED_SUMMARY:
        fields = {"count": _int(g["count"], SIZE_MAX)}
        op = g["op"]
    if any(v is None for v in fields.values()):
        raise _Unreadable
    if kind is LogEventKind.GEMM_RUNNER_FAILED:
        message = line[m.start() :].strip()
        status = patterns.RUNNER_STATUS.search(message)
        fields = {"runner_message": message, "status": status["status"] if status else None}
    if "arch_sm" not in fields:
        fields["arch_sm"] = _arch_from_site(site)
    return LogEvent(
        kind=kind,
        line_no=line_no,
        text=_message_text(line, m.start()),
        tactic=tactic.tactic if tactic else None,
        tactic_text=tactic.text if tactic and tactic.tactic is None else None,
        runner=tactic.runner if tactic else None,
        custom_op=(tactic.op if tactic and tactic.op else None) or op,
        site=site,
        **fields,
    )


def _failure(line: str) -> tuple[LogEventKind, re.Match[str]] | None:
    for kind, pattern in patterns.FAILURES:
        m = pattern.search(line)
        if m is not None:
            return kind, m
    return None


def _signals_failure(line: str) -> bool:
    """Whether the line says a tactic or kernel failed (patterns.FAILURE_SIGNALS)."""
    low = line.lower()
    return any(s in low for s in patterns.FAILURE_SIGNALS)


def _unrecognized(line: str, line_no: int, tactic: _Tactic | None, op: str | None) -> LogEvent:
    return LogEvent(
        kind=LogEventKind.UNRECOGNIZED,
        line_no=line_no,
        text=_message_text(line, len(line)),
        tactic=tactic.tactic if tactic else None,
        tactic_text=tactic.text if tactic and tactic.tactic is None else None,
        runner=tactic.runner if tactic else None,
        custom_op=(tactic.op if tactic and tactic.op else None) or op,
        site=_site(line),
    )


def parse_log(text: str, path: str = "<log>") -> LogFile:
    """Every failure and summary line of `text`, in order.

    A line that says a tactic or kernel failed but matches no failure pattern becomes an
    `unrecognized` event, unless a failure the reader recognizes follows within TACTIC_REACH
    lines (a logger that prints the message on the next line)."""
    reader = _Reader(path)
    for line in text.splitlines():
        cut = len(line) > MAX_LINE
        reader.line(line[:MAX_LINE] if cut else line, cut)
    return reader.result()


_READ_CACHE = 4096
"""Distinct lines whose reading is remembered (most logs repeat a few lines many times)."""


@dataclass(frozen=True)
class _Line:
    """What one line's text says, whatever its place in the log."""

    versions: tuple[str, ...]
    tuning: str | None
    tactic: _Tactic | None
    """With line_no 0: the reader sets the line it is on."""
    failure: tuple[LogEventKind, re.Match[str]] | None
    signals: bool
    """No failure pattern matches, but the line says a tactic or kernel failed."""

    @classmethod
    def of(cls, line: str) -> _Line:
        versions = (
            tuple(v["version"] for v in patterns.FLASHINFER_CACHE.finditer(line))
            if "flashinfer/" in line
            else ()
        )
        tuning = patterns.TUNING_OP.search(line)
        failure = _failure(line)
        signals = failure is None and _signals_failure(line)
        return cls(
            versions, tuning["op"] if tuning else None, _tactic_on(line, 0), failure, signals
        )


class _Reader:
    """The state of one log's reading: the context lines carry forward, and the events so far."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.line_no = 0
        self.events: list[LogEvent] = []
        self.repeats: list[list[int]] = []
        self.seen: dict[tuple[object, ...], int] = {}
        """(line, context) -> index in `events`: the same line in the same context is the
        same event."""
        self.versions: list[str] = []
        self.read: dict[str, _Line] = {}
        self.last_tactic: _Tactic | None = None
        self.op: str | None = None
        self.cut_lines = 0
        self.dropped = 0
        self.unreadable = 0
        self.pending: list[tuple[int, str, _Tactic | None, str | None]] = []
        """Lines that said a tactic or kernel failed with no message cutlint reads, within
        TACTIC_REACH lines of now: (line_no, line, its tactic, the op being tuned)."""

    def _flush(self, now: int) -> None:
        """The pending lines no recognized failure can claim any more: unrecognized events."""
        while self.pending and now - self.pending[0][0] > TACTIC_REACH:
            line_no, line, tactic, op = self.pending.pop(0)
            context = (tactic.tactic, tactic.text, tactic.runner, tactic.op) if tactic else None
            key = (LogEventKind.UNRECOGNIZED, line, context, op)
            self._add(key, line_no, partial(_unrecognized, line, line_no, tactic, op))

    def _add(self, key: tuple[object, ...], line_no: int, make: Callable[[], LogEvent]) -> None:
        """A new event, or one more line of a known one (the same line in the same context)."""
        index = self.seen.get(key)
        if index is None and len(self.events) >= MAX_EVENTS:
            self.dropped += 1
        elif index is None:
            try:
                event = make()
                self.seen[key] = len(self.events)
                self.events.append(event)
                self.repeats.append([])
            except _Unreadable:
                self.seen[key] = _UNREADABLE
                self.unreadable += 1
        elif index == _UNREADABLE:
            self.unreadable += 1
        else:
            self.repeats[index].append(line_no)

    def line(self, line: str, cut: bool = False) -> None:
        self.line_no += 1
        self.cut_lines += cut
        self._flush(self.line_no)
        if not patterns.WORTH_READING.search(line):
            return
        line_no = self.line_no
        seen = self.read.get(line)
        if seen is None:
            seen = _Line.of(line)
            if len(self.read) < _READ_CACHE:
                self.read[line] = seen  # a log repeats its lines: each is matched once
        for v in seen.versions:
            if v not in self.versions:
                self.versions.append(v)
        if seen.tuning is not None:
            self.op, self.last_tactic = seen.tuning, None
        if seen.tactic is not None:
            self.last_tactic = replace(seen.tactic, line_no=line_no)
        if seen.failure is None:
            if seen.signals:
                here = replace(seen.tactic, line_no=line_no) if seen.tactic else None
                self.pending.append((line_no, line, here, self.op))
            return
        kind, m = seen.failure
        last = self.last_tactic
        near = last if last and line_no - last.line_no <= TACTIC_REACH else None
        if kind is LogEventKind.SKIPPED_SUMMARY:
            near = None  # a summary counts tactics; it names none
        elif self.pending:
            # The line above that said "failed" without a message was this failure's start: the
            # one that named the tactic this failure takes, else the nearest within reach.
            at = near.line_no if near is not None else None
            started = [p for p in self.pending if p[0] == at] or self.pending[-1:]
            self.pending = [p for p in self.pending if p not in started]
        context = (near.tactic, near.text, near.runner, near.op) if near else None
        op = self.op
        self._add((line, context, op), line_no, lambda: _event(kind, m, line, line_no, near, op))
        if kind is LogEventKind.SKIPPED_SUMMARY:
            self.op = None  # the op's tuning is over

    def result(self) -> LogFile:
        self._flush(self.line_no + TACTIC_REACH + 1)
        # In line order: an unrecognized line is added once no failure can claim it any more.
        events = tuple(
            sorted(
                (
                    e.model_copy(update={"repeated_at": tuple(r)}) if r else e
                    for e, r in zip(self.events, self.repeats, strict=True)
                ),
                key=lambda e: e.line_no,
            )
        )
        return LogFile(
            path=self.path,
            lines=self.line_no,
            events=events,
            flashinfer_versions=tuple(self.versions),
            cut_lines=self.cut_lines,
            dropped_events=self.dropped,
            unreadable_lines=self.unreadable,
        )


def read_log(path: Path) -> LogFile:
    """Read and parse a log file, streamed line by line through cutlint.inputs. Undecodable
    bytes are replaced: logs mix encodings. Raises LogReadError, one line naming the file."""
    reader = _Reader(str(path))
    head = 0
    try:
        for raw, cut in inputs.lines(path, inputs.LOG, MAX_LINE):
            if head < 65536:
                if b"\0" in raw:
                    raise LogReadError(f"{path}: holds NUL bytes; not a text log")
                head += len(raw) + 1
            reader.line(raw.decode("utf-8", errors="replace"), cut)
    except inputs.InputError as e:
        raise LogReadError(f"{path}: cannot read the log: {e.why}") from None
    return reader.result()
