"""What one line of a log says, whatever the lines around it: its text without the loggers'
prefixes, whether it is worth reading, the tactic an autotuner line names, and the event a
grammar's message makes of it (its fields from the message's named groups). The reader
(logs/reader.py) keeps what carries from line to line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cutlint.logs import grammar, patterns
from cutlint.logs.events import LogEvent, LogEventKind, LogSite
from cutlint.logs.grammar import LogMessage
from cutlint.records import Shape3

SIZE_MAX = 2**64 - 1
"""What the launchers print byte counts as (size_t)."""
INT_MAX = 2**31 - 1
"""What they print tile and cluster sizes, arch numbers, CUresults and line numbers as (int)."""


@dataclass(frozen=True)
class Tactic:
    line_no: int
    tactic: int | None
    text: str
    runner: str | None
    op: str | None


def tactic_on(line: str, line_no: int) -> Tactic | None:
    for pattern in patterns.TACTIC_CONTEXT:
        m = pattern.search(line)
        if m is None:
            continue
        groups = m.groupdict()
        raw = groups["tactic"]
        number = _int(raw)
        runner = groups.get("runner") or groups.get("runner_name")
        return Tactic(line_no, number, raw, runner, groups.get("op"))
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


class Unreadable(Exception):
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


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,16}")


def same_as(text: str) -> str:
    """What decides that two lines say the same thing: the text without its object addresses
    (`<...MoERunner object at 0x7c70ccce8350>` differs from process to process)."""
    return _ADDRESS.sub("0x", text) if "0x" in text else text


_PREFIX_START = frozenset("([0123456789DIWEFC")
"""The first characters of patterns.PREFIX's alternatives: a line starting otherwise has none."""


def body(line: str) -> str:
    """The line without the loggers' prefixes (patterns.PREFIX, cut repeatedly): the prefix is
    the framework's, the rest is the message, shown as logged."""
    for _ in range(4):
        if line[:1] not in _PREFIX_START:
            break
        m = patterns.PREFIX.match(line)
        if m is None or not m.end():
            break
        line = line[m.end() :]
    return line.strip()


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


_NUMBERS = {
    "bytes": SIZE_MAX, "limit": SIZE_MAX, "count": SIZE_MAX, "cu_result": INT_MAX,
    "m": INT_MAX, "n": INT_MAX, "k": INT_MAX, "cm": INT_MAX, "cn": INT_MAX, "ck": INT_MAX,
    "sm": INT_MAX, "capability": INT_MAX, "config": INT_MAX, "activation": INT_MAX,
    "line": INT_MAX,
}  # fmt: skip
"""The numeric fields, each bounded by the C++ type its printer holds it in."""

_TILE_SIZES = (8, 16, 32, 64, 128, 256, 512)


def tile_config(number: int) -> Shape3 | None:
    """CutlassTileConfigSM100's value -> its CtaShape (M, N, K in bytes): the enum writes the three
    one after another (`CtaShape256x256x128B = 256256128`, cutlass_extensions/gemm_configs.h).
    None when the digits split more than one way or none."""
    text = str(number)
    found = []
    for i in range(1, len(text)):
        for j in range(i + 1, len(text)):
            parts = (text[:i], text[i:j], text[j:])
            if all(p[0] != "0" and int(p) in _TILE_SIZES for p in parts):
                found.append(Shape3(m=int(parts[0]), n=int(parts[1]), k=int(parts[2])))
    return found[0] if len(found) == 1 else None


def _numbers(g: dict[str, str | None]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, bound in _NUMBERS.items():
        raw = g.get(name)
        if raw is None:
            continue
        value = _int(raw, bound)
        if value is None:
            raise Unreadable
        out[name] = value
    return out


def _fields(message: LogMessage, m: re.Match[str], line: str) -> dict[str, object]:
    """The event's fields from the message's named groups (grammar.FIELDS)."""
    g = m.groupdict()
    n = _numbers(g)
    fields: dict[str, object] = {"grammar": message.id}
    if "bytes" in n:
        fields["smem_required"] = n["bytes"]
    if "limit" in n:
        fields["smem_available"] = n["limit"]
    for name in ("status", "step", "detail"):
        if g.get(name) is not None:
            fields[name] = g[name]
    said = g.get("detail") or ""
    if said.startswith("kError") and "status" not in fields:
        # the enumerator's name -> cutlassGetStatusString's words (kErrorNotSupported -> Error
        # Not Supported), so that one status reads the same however it was printed
        fields["status"] = "Error " + " ".join(re.findall(r"[A-Z][a-z]+", said[len("kError") :]))
    for name in ("cu_result", "count", "capability", "activation"):
        if name in n:
            fields[name] = n[name]
    if "sm" in n:
        fields["arch_sm"] = n["sm"]
    if {"m", "n", "k"} <= n.keys():
        fields["tile"] = Shape3(m=n["m"], n=n["n"], k=n["k"])
    if {"cm", "cn", "ck"} <= n.keys():
        fields["cluster"] = Shape3(m=n["cm"], n=n["cn"], k=n["ck"])
    if "config" in n:
        fields["detail"] = str(n["config"])
        fields["tile"] = tile_config(n["config"])
    if g.get("path") is not None and "line" in n:
        path = g["path"] or ""
        fields["site"] = LogSite(path=path, name=_name(path), line=n["line"])
    if g.get("op") is not None:
        fields["custom_op"] = g["op"]
    if message.id.startswith("cuda."):
        errors, said = grammar.cuda_error_by_key(), g["detail"] or ""
        error = errors.get(said) or errors[said.lower()]
        fields.update(kind=error.kind, cu_result=error.number, detail=error.name)
    if message.event_kind is LogEventKind.GEMM_RUNNER_FAILED:
        text = line[m.start() :].strip()
        status = patterns.RUNNER_STATUS.search(text)
        fields.update(runner_message=text, status=status["status"] if status else None)
    return fields


@dataclass(frozen=True)
class Context:
    """What the lines above say about the one being read (set by the reader)."""

    tactic: Tactic | None = None
    op: str | None = None
    exception: str | None = None
    frame: str | None = None
    smem: tuple[int, int] | None = None
    """(bytes, line) of the last `Setting smem size to N` within SMEM_REACH lines."""


def make_event(
    message: LogMessage,
    m: re.Match[str],
    text: str,
    line_no: int,
    here: Context,
) -> LogEvent:
    fields = _fields(message, m, text)
    kind = fields.pop("kind", message.event_kind)
    assert isinstance(kind, LogEventKind)
    site = fields.pop("site", None) or _site(text)
    assert site is None or isinstance(site, LogSite)
    joined: tuple[int, ...] = ()
    if message.id == "cutlass.func-set-attribute-error" and here.smem is not None:
        fields["smem_required"], at = here.smem
        joined = (at,)
    if "arch_sm" not in fields:
        fields["arch_sm"] = _arch_from_site(site)
    tactic = here.tactic
    op = fields.pop("custom_op", None) or (tactic.op if tactic and tactic.op else None) or here.op
    return LogEvent(
        kind=kind,
        line_no=line_no,
        text=text,
        tactic=tactic.tactic if tactic else None,
        tactic_text=tactic.text if tactic and tactic.tactic is None else None,
        runner=tactic.runner if tactic else None,
        custom_op=op,
        site=site,
        exception=here.exception,
        frame=here.frame,
        joined=joined,
        **fields,
    )


def signals_failure(text: str, low: str | None = None) -> bool:
    """Whether the line says something failed: patterns.FLOOR's words, or FAILURE_SIGNALS."""
    low = text.lower() if low is None else low
    if any(w in low for w in patterns.FLOOR_WORDS) and patterns.FLOOR.search(text):
        return True
    return any(s in low for s in patterns.FAILURE_SIGNALS)


def worth_reading(low: str) -> bool:
    """Whether the (lower-cased) line holds a word any message, the floor or the context needs."""
    return any(w in low for w in patterns.WORTH_READING)


def unrecognized(text: str, line_no: int, here: Context) -> LogEvent:
    tactic = here.tactic
    return LogEvent(
        kind=LogEventKind.UNRECOGNIZED,
        line_no=line_no,
        text=text,
        tactic=tactic.tactic if tactic else None,
        tactic_text=tactic.text if tactic and tactic.tactic is None else None,
        runner=tactic.runner if tactic else None,
        custom_op=(tactic.op if tactic and tactic.op else None) or here.op,
        site=_site(text),
        exception=here.exception,
        frame=here.frame,
    )
