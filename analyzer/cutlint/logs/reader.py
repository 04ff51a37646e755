"""Read a log into LogEvents: one event per line that carries a failure or a summary.

The autotuner names the tactic on the line it logs, but some loggers split the error onto the
next line (TensorRT-LLM logs "Failed when profiling runner=..., tactic=..." and the exception on
a line of its own), and FlashInfer's "Tuning <op>" progress lines name the op for the lines that
follow. So the reader keeps a little context: the last tactic seen within a few lines, and the op
being tuned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from cutlint.logs import patterns
from cutlint.logs.events import LogEvent, LogEventKind, LogFile, LogSite
from cutlint.records import Shape3

TACTIC_REACH = 3
"""How many lines after an autotuner line its tactic still applies to an error without one."""


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
        number = int(raw) if re.fullmatch(r"-?\d+", raw) else None
        runner = groups.get("runner") or groups.get("runner_name")
        return _Tactic(line_no, number, raw, runner, groups.get("op"))
    return None


def _site(line: str) -> LogSite | None:
    """The last `(<file>:<line>)` on the line: TLLM appends it after the message."""
    found = list(patterns.SITE.finditer(line))
    if not found:
        return None
    m = found[-1]
    path = m["path"]
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    return LogSite(path=path, name=name, line=int(m["line"]))


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
        fields = {"smem_required": int(g["required"]), "smem_available": int(g["available"])}
    elif kind in (
        LogEventKind.INIT_FAILED,
        LogEventKind.CAN_IMPLEMENT_FAILED,
        LogEventKind.RUN_FAILED,
    ):
        fields = {"status": g["status"]}
    elif kind is LogEventKind.STICKY_CUDA_ERROR:
        fields = {"cu_result": patterns.STICKY_ERRORS[g["sticky"]]}
    elif kind is LogEventKind.TMA_DESCRIPTOR:
        fields = {"cu_result": int(g["cu_result"])}
    elif kind is LogEventKind.UNSUPPORTED_TILE:
        fields = {
            "tile": Shape3(m=int(g["m"]), n=int(g["n"]), k=int(g["k"])),
            "cluster": Shape3(m=int(g["cm"]), n=int(g["cn"]), k=int(g["ck"])),
            "arch_sm": int(g["sm"]),
        }
    elif kind is LogEventKind.SKIPPED_SUMMARY:
        fields = {"count": int(g["count"])}
        op = g["op"]
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
    events: list[LogEvent] = []
    pending: list[LogEvent] = []
    versions: list[str] = []
    last_tactic: _Tactic | None = None
    op: str | None = None
    lines = text.splitlines()
    for line_no, line in enumerate(lines, start=1):
        while pending and line_no - pending[0].line_no > TACTIC_REACH:
            events.append(pending.pop(0))  # no failure followed it: unrecognized for good
        for v in patterns.FLASHINFER_CACHE.finditer(line):
            if v["version"] not in versions:
                versions.append(v["version"])
        tuning = patterns.TUNING_OP.search(line)
        if tuning:
            op, last_tactic = tuning["op"], None
        here = _tactic_on(line, line_no)
        if here is not None:
            last_tactic = here
        found = _failure(line)
        if found is None:
            if _signals_failure(line):
                pending.append(_unrecognized(line, line_no, here, op))
            continue
        kind, m = found
        near = (
            last_tactic if last_tactic and line_no - last_tactic.line_no <= TACTIC_REACH else None
        )
        if kind is LogEventKind.SKIPPED_SUMMARY:
            near = None  # a summary counts tactics; it names none
        if kind is not LogEventKind.SKIPPED_SUMMARY and pending:
            # The line above that said "failed" without a message was this failure's start: the
            # one that named the tactic this failure takes, else the nearest within reach.
            near_at = near.line_no if near is not None else None
            started = [p for p in pending if p.line_no == near_at] or [
                p for p in pending[-1:] if line_no - p.line_no <= TACTIC_REACH
            ]
            pending = [p for p in pending if p not in started]
        events.append(_event(kind, m, line, line_no, near, op))
        if kind is LogEventKind.SKIPPED_SUMMARY:
            op = None  # the op's tuning is over
    events = sorted([*events, *pending], key=lambda e: e.line_no)
    return LogFile(
        path=path, lines=len(lines), events=tuple(events), flashinfer_versions=tuple(versions)
    )


def read_log(path: Path) -> LogFile:
    """Read and parse a log file. Undecodable bytes are replaced: logs mix encodings."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise LogReadError(f"{path}: cannot read the log: {e.strerror or e}") from e
    if b"\0" in raw[:65536]:
        raise LogReadError(f"{path}: holds NUL bytes; not a text log")
    return parse_log(raw.decode("utf-8", errors="replace"), str(path))
