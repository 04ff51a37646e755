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

Which line is which message is data (logs/data/*.toml, read by logs.grammar). Beyond single lines
the reader joins what belongs together: a message the thread broke across two lines, the bytes
of CUTLASS's `Setting smem size to N` trace with the `cudaFuncSetAttribute() returned error` under
it, a Python traceback's last line with its innermost frame, C++'s `what():` with the exception
type above it. Stack frames, the source lines under Python's, and PyTorch's hints are read as no
failure (counted in LogFile.skipped_lines). Any other line with an error word (patterns.FLOOR)
that no message reads is an `unrecognized` event: shown as logged, and counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from cutlint import inputs
from cutlint.logs import grammar, patterns
from cutlint.logs.events import LogEvent, LogEventKind, LogFile, ReleaseSaid
from cutlint.logs.grammar import LogMessage
from cutlint.logs.lines import (
    Context,
    Tactic,
    Unreadable,
    body,
    make_event,
    same_as,
    signals_failure,
    tactic_on,
    unrecognized,
    worth_reading,
)

TACTIC_REACH = 3
SMEM_REACH = 8
"""How many lines under CUTLASS's `Setting smem size to N` its bytes still apply to a
`cudaFuncSetAttribute() returned error` (the adapter traces the call right after)."""
"""How many lines after an autotuner line its tactic still applies to an error without one."""
MAX_LINE = 64 << 10
"""Bytes of a line that are read (a real log line is under 1 KiB; a longer one is read up to
here, and counted in LogFile.cut_lines)."""
MAX_EVENTS = 50_000
"""Distinct events kept; further ones are counted in LogFile.dropped_events. (A million lines
of one failure are one event with a million line numbers.)"""


class LogReadError(Exception):
    """The log could not be read (missing, a directory, not text); says why."""


_UNREADABLE = -1


def parse_log(text: str, path: str = "<log>") -> LogFile:
    """Every failure and summary line of `text`, in order.

    A line that says something failed but matches no message becomes an `unrecognized` event,
    unless a failure the reader recognizes follows within TACTIC_REACH lines (a logger that
    prints the message on the next line) or the next line completes it (a message broken in
    two)."""
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
    said: tuple[tuple[str, str, str], ...]
    """(kind, words, release) of each place the line names a FlashInfer release."""
    tuning: str | None
    tactic: Tactic | None
    """With line_no 0: the reader sets the line it is on."""
    match: tuple[LogMessage, re.Match[str]] | None
    signals: bool
    """No message matches, but the line says something failed (the floor)."""

    @classmethod
    def of(cls, text: str, low: str) -> _Line:
        versions = (
            tuple(v["version"] for v in patterns.FLASHINFER_CACHE.finditer(text))
            if "flashinfer/" in text
            else ()
        )
        said = tuple(
            ("JIT cache path", v[0], v["version"])
            for v in patterns.FLASHINFER_CACHE.finditer(text)
            if versions
        )
        tuning = patterns.TUNING_OP.search(text) if "tuning" in low else None
        match = grammar.match(text, low)
        signals = match is None and signals_failure(text, low)
        tactic = tactic_on(text, 0) if "tactic" in low or "profiling" in low else None
        return cls(versions, said, tuning["op"] if tuning else None, tactic, match, signals)


@dataclass(frozen=True)
class _Pending:
    """A line that said something failed in no message the grammars read, not yet given up on."""

    line_no: int
    line: str
    text: str
    here: Context


def _announces(p: _Pending) -> bool:
    """Whether a pending line announces a message to come rather than carrying its own: an
    autotuner line naming a tactic, or a line that ends with a colon."""
    return p.here.tactic is not None or p.text.endswith(":")


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
        self.said: dict[tuple[str, str], ReleaseSaid] = {}
        """(release, kind) -> where the log first says it."""
        self.read: dict[str, _Line] = {}
        self.last_tactic: Tactic | None = None
        self.op: str | None = None
        self.cut_lines = 0
        self.dropped = 0
        self.unreadable = 0
        self.skipped = 0
        self.pending: list[_Pending] = []
        """Lines that said something failed with no message cutlint reads, within TACTIC_REACH
        lines of now."""
        self.in_code = False
        """The line before was a Python frame: this one is its source line."""
        self.frame: tuple[str, int] | None = None
        """The innermost Python frame so far (`path:line in function`, its line)."""
        self.exception: tuple[str, int] | None = None
        """C++'s `terminate called after throwing an instance of 'T'`: (T, its line)."""
        self.smem: tuple[int, int] | None = None
        """CUTLASS's `Setting smem size to N`: (N, its line)."""
        self.previous: tuple[int, str] | None = None
        """(line_no, text) of the line before, when no message read it: the first half of a
        message broken in two."""

    def _flush(self, now: int) -> None:
        """The pending lines no recognized failure can claim any more: unrecognized events."""
        while self.pending and now - self.pending[0].line_no > TACTIC_REACH:
            p = self.pending.pop(0)
            t = p.here.tactic
            context = (t.tactic, t.text, t.runner, t.op) if t else None
            key = (LogEventKind.UNRECOGNIZED, same_as(p.text), context, p.here.op)
            self._add(key, p.line_no, partial(unrecognized, p.text, p.line_no, p.here))

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
            except Unreadable:
                self.seen[key] = _UNREADABLE
                self.unreadable += 1
        elif index == _UNREADABLE:
            self.unreadable += 1
        else:
            self.repeats[index].append(line_no)

    def _structure(self, text: str) -> bool:
        """Whether the line is a stack frame or a frame's source line (read as no failure); keeps
        the innermost Python frame for the exception line that ends the traceback."""
        if self.in_code:
            self.in_code = False
            if not patterns.FRAME.match(text) and not patterns.EXCEPTION.match(text):
                self.skipped += 1
                return True
        frame = patterns.FRAME.match(text) if 'File "' in text else None
        if frame is not None:
            path = frame["path"].replace("\\", "/")
            short = "/".join(path.rsplit("/", 2)[-2:])
            kept = self.frame
            if "/torch/" in path and kept and self.line_no - kept[1] <= 3 * TACTIC_REACH:
                # the op's frame, not the torch dispatcher's frames under it
                self.frame = (kept[0], self.line_no)
            else:
                self.frame = (f"{short}:{frame['line']} in {frame['func']}", self.line_no)
            self.in_code = True
            self.skipped += 1
            return True
        if "0x" in text and patterns.CPP_FRAME.match(text):
            self.skipped += 1
            return True
        return False

    def _context(self, text: str, tactic: Tactic | None) -> Context:
        """What the lines above say about this one: its exception type and frame, if it ends a
        traceback or is a `what():`, and CUTLASS's bytes within SMEM_REACH lines."""
        now = self.line_no
        exception = frame = None
        raised = patterns.EXCEPTION.match(text)
        if raised is not None:
            exception = raised["type"]
            if self.frame is not None and now - self.frame[1] <= TACTIC_REACH:
                frame = self.frame[0]
        elif self.exception is not None and now - self.exception[1] <= 2:
            if patterns.WHAT.match(text):
                exception = self.exception[0]
        smem = self.smem if self.smem and now - self.smem[1] <= SMEM_REACH else None
        return Context(tactic, self.op, exception, frame, smem)

    def _read(self, text: str, low: str) -> _Line:
        seen = self.read.get(text)
        if seen is None:
            seen = _Line.of(text, low)
            if len(self.read) < _READ_CACHE:
                self.read[text] = seen  # a log repeats its lines: each is matched once
        return seen

    def _join(self, text: str) -> bool:
        """The line completes a message broken at the line before: one event on the first line,
        with the two joined. Tried only when neither half is read by a message alone."""
        prev = self.previous
        if prev is None or prev[0] != self.line_no - 1:
            return False
        if not any(p.line_no == prev[0] for p in self.pending):
            return False  # only a line that said something failed is a message's first half
        joined = prev[1].rstrip() + " " + text
        match = grammar.match(joined)
        if match is None or match[0].event_kind is None:
            return False
        message, m = match
        first = next((p for p in self.pending if p.line_no == prev[0]), None)
        here = first.here if first else self._context(prev[1], None)
        self.pending = [p for p in self.pending if p is not first]
        start = prev[0]

        def make() -> LogEvent:
            e = make_event(message, m, joined, start, here)
            return e.model_copy(update={"joined": (*e.joined, self.line_no)})

        self._add((joined, None, self.op), start, make)
        self.previous = None
        return True

    def line(self, line: str, cut: bool = False) -> None:
        self.line_no += 1
        self.cut_lines += cut
        self._flush(self.line_no)
        text = body(line)
        if self._structure(text):
            return
        low = text.lower()
        if any(w in low for w in patterns.FLASHINFER_SAID_WORDS):
            self._said(
                tuple(
                    (kind, m[0], m["version"])
                    for kind, pattern in patterns.FLASHINFER_SAID
                    for m in pattern.finditer(text)
                )
            )
        if not worth_reading(low):
            if self.previous is not None and text:
                self._join(text)
            self.previous = None
            return
        line_no = self.line_no
        seen = self._read(text, low)
        for v in seen.versions:
            if v not in self.versions:
                self.versions.append(v)
        self._said(seen.said)
        if seen.tuning is not None:
            self.op, self.last_tactic = seen.tuning, None
        if seen.tactic is not None:
            self.last_tactic = replace(seen.tactic, line_no=line_no)
        if seen.match is None:
            if self._join(text):
                return
            self.previous = (line_no, text)
            if seen.signals:
                here_tactic = replace(seen.tactic, line_no=line_no) if seen.tactic else None
                here = self._context(text, here_tactic)
                self.pending.append(_Pending(line_no, line, text, here))
            return
        self.previous = None
        message, m = seen.match
        if message.kind == "hint":
            self.skipped += 1
            return
        if message.kind == "context":
            if message.context == "smem-size":
                self.smem = (int(m["bytes"]), line_no) if len(m["bytes"]) < 20 else None
            else:
                self.exception = (m["detail"], line_no)
            return
        kind = message.event_kind
        last = self.last_tactic
        near = last if last and line_no - last.line_no <= TACTIC_REACH else None
        if kind is LogEventKind.SKIPPED_SUMMARY:
            near = None  # a summary counts tactics; it names none
        elif self.pending:
            # The line above that said "failed" without a message was this failure's start: the
            # one that named the tactic this failure takes, else the nearest within reach.
            # Only a line that announces a message is a start (it names the tactic, or ends
            # with a colon): one with a message of its own is a failure of its own.
            at = near.line_no if near is not None else None
            starts = [p for p in self.pending if _announces(p)]
            started = [p for p in starts if p.line_no == at] or starts[-1:]
            self.pending = [p for p in self.pending if p not in started]
        here = self._context(text, near)
        context = (near.tactic, near.text, near.runner, near.op) if near else None
        key = (same_as(text), context, self.op, here.exception, here.smem)
        self._add(key, line_no, lambda: make_event(message, m, text, line_no, here))
        if kind is LogEventKind.SKIPPED_SUMMARY:
            self.op = None  # the op's tuning is over

    def _said(self, said: tuple[tuple[str, str, str], ...]) -> None:
        """Keep where the log first names each release, by kind."""
        for kind, words, v in said:
            if (v, kind) not in self.said:
                self.said[(v, kind)] = ReleaseSaid(
                    version=v, said_by=kind, line_no=self.line_no, text=words[:200]
                )

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
            flashinfer_said=tuple(self.said.values()),
            cut_lines=self.cut_lines,
            dropped_events=self.dropped,
            unreadable_lines=self.unreadable,
            skipped_lines=self.skipped,
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
