"""The log grammars: what each producer prints when a kernel fails, as data (logs/data/*.toml).

One file per producer (FlashInfer, TensorRT-LLM, vLLM, SGLang, CUTLASS, CuTe DSL,
TransformerEngine, xformers, PyTorch) holds its messages: the pattern, the kind of event it
makes, the failure class where the line alone decides it, the fields it carries, and the line of
that project's source that prints it. cuda.toml holds the CUDA runtime's errors by name, number
and text; the patterns that read them are built here from that table.

Everything is loaded and compiled once per process (`grammar()` is cached): the reader matches
lines against compiled patterns, never builds one per line.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from pydantic import Field

from cutlint.logs.events import LogEventKind
from cutlint.records import Record

CLASSES = ("A", "B", "C", "D", "E", "F", "G")
"""docs/failures.md's failure classes."""
NO_EVENT = ("hint", "context")
"""Kinds of a line that is read as no failure: `hint` repeats the failure above it (PyTorch's
`Search for cudaError...`), `context` is kept for the lines below it (CUTLASS's `Setting smem
size to N`, C++'s `terminate called after throwing`)."""
FIELDS = frozenset(
    {
        "bytes", "limit", "status", "cu_result", "m", "n", "k", "cm", "cn", "ck", "sm", "count",
        "op", "prefix", "capability", "config", "activation", "step", "detail", "path", "line",
    }
)  # fmt: skip
"""The named groups a pattern may have: each is a field of the LogEvent (lines.make_event)."""
PRODUCERS = (
    "pytorch",
    "cutlass",
    "cute_dsl",
    "trtllm",
    "flashinfer",
    "vllm",
    "sglang",
    "xformers",
    "transformer_engine",
)
"""The data files, in the order equal ranks are tried."""


class LogMessage(Record):
    """One message of a producer's grammar."""

    id: str = Field(description="`<producer>.<name>`, e.g. vllm.no-compiled-scaled-mm")
    producer: str = Field(description="who prints it, e.g. vLLM")
    kind: str = Field(description="a LogEventKind value, or `hint` / `context` (NO_EVENT)")
    failure_class: str | None = Field(
        default=None, description="A-G where the line alone decides the class, else None"
    )
    rank: int = Field(default=50, description="lower is tried first; ties in file order")
    pattern: str
    needles: tuple[str, ...] = Field(
        default=(),
        description="lower-case text of which the line must hold one for the pattern to be "
        "tried (a substring test is far cheaper than a search: most lines fail it)",
    )
    fields: tuple[str, ...] = ()
    source: str = Field(description="the line or symbol of the producer's code that prints it")
    means: str = Field(description="what the line says, in the field's words")
    context: str | None = Field(
        default=None, description="for kind `context`: what it carries (smem-size, exception)"
    )

    @property
    def event_kind(self) -> LogEventKind | None:
        return None if self.kind in NO_EVENT else LogEventKind(self.kind)


class CudaError(Record):
    """One CUDA runtime error (cuda.toml)."""

    name: str = Field(description="the cudaError_t enumerator, e.g. cudaErrorIllegalInstruction")
    number: int
    text: str = Field(description="what cudaGetErrorString returns")
    driver: str | None = Field(default=None, description="the CUresult of the same number")
    failure_class: str | None = None
    source: str
    means: str

    @property
    def kind(self) -> LogEventKind:
        """The event a line naming this error makes."""
        if self.number == 209:
            return LogEventKind.NO_KERNEL_IMAGE
        if self.failure_class == "G":
            return LogEventKind.STICKY_CUDA_ERROR
        if self.failure_class == "E":
            return LogEventKind.ARCH_UNSUPPORTED
        return LogEventKind.CUDA_ERROR


def _load(name: str) -> dict[str, Any]:
    with resources.files("cutlint.logs").joinpath("data", f"{name}.toml").open("rb") as f:
        return tomllib.load(f)


@cache
def cuda_errors() -> tuple[CudaError, ...]:
    data = _load("cuda")
    return tuple(
        CudaError(failure_class=e.pop("class", None), **e) for e in data["error"]
    )  # fmt: skip


@cache
def cuda_error_by_key() -> dict[str, CudaError]:
    """Name, driver name and text (lower-cased) -> the error."""
    out: dict[str, CudaError] = {}
    for e in cuda_errors():
        out[e.name] = e
        if e.driver:
            out[e.driver] = e
        out[e.text.lower()] = e
    return out


def _cuda_messages() -> list[LogMessage]:
    """The patterns that read cuda.toml's errors: by enum name (either API's), and by text."""
    errors = cuda_errors()
    names = "|".join(sorted({n for e in errors for n in (e.name, e.driver) if n}, key=len)[::-1])
    texts = "|".join(re.escape(e.text) for e in sorted(errors, key=lambda e: -len(e.text)))
    source = (
        "CUDA 13.0 include/driver_types.h `enum cudaError`, include/cuda.h `enum cudaError_enum`"
    )
    return [
        LogMessage(
            id="cuda.error-name",
            producer="CUDA runtime",
            kind=LogEventKind.CUDA_ERROR.value,
            rank=60,
            pattern=rf"\b(?P<detail>{names})\b",
            needles=("cudaerror", "cuda_error_"),
            fields=("detail",),
            source=source,
            means="a CUDA error by its enum name (cuda.toml gives its number and class)",
        ),
        LogMessage(
            id="cuda.error-text",
            producer="CUDA runtime",
            kind=LogEventKind.CUDA_ERROR.value,
            rank=61,
            pattern=rf"(?i:(?P<detail>{texts}))",  # `CUDA Error: Invalid argument` too
            needles=tuple(e.text.lower() for e in errors),
            fields=("detail",),
            source="cudaGetErrorString (" + source + ")",
            means="a CUDA error by cudaGetErrorString's text (cuda.toml gives its number and class)",
        ),
    ]


@cache
def messages() -> tuple[LogMessage, ...]:
    """Every message of every producer, in the order they are tried."""
    found: list[LogMessage] = []
    for name in PRODUCERS:
        data = _load(name)
        for m in data["message"]:
            found.append(
                LogMessage(producer=data["producer"], failure_class=m.pop("class", None), **m)
            )
    found += _cuda_messages()
    return tuple(sorted(found, key=lambda m: m.rank))  # stable: ties keep file order


@cache
def grammar() -> tuple[tuple[LogMessage, re.Pattern[str]], ...]:
    """The messages with their patterns, compiled once."""
    return tuple((m, re.compile(m.pattern)) for m in messages())


@cache
def needle_index() -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each needle with the indexes (in grammar() order) of the messages that need it."""
    found: dict[str, list[int]] = {}
    for i, (message, _) in enumerate(grammar()):
        for n in message.needles:
            found.setdefault(n, []).append(i)
    return tuple((n, tuple(ids)) for n, ids in found.items())


def match(text: str, low: str | None = None) -> tuple[LogMessage, re.Match[str]] | None:
    """The first message (in rank order) the text holds. Only messages one of whose needles is in
    the line are searched: one substring test per needle instead of one search per message."""
    low = text.lower() if low is None else low
    ids = {i for n, found in needle_index() if n in low for i in found}
    table = grammar()
    for i in sorted(ids):
        message, pattern = table[i]
        m = pattern.search(text)
        if m is not None:
            return message, m
    return None


@cache
def by_id() -> dict[str, LogMessage]:
    return {m.id: m for m in messages()}
