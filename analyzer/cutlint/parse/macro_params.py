"""The parameter lists of the function-like macros a file can see: its own `#define NAME(a, b)`
and those of the headers it includes with `#include "..."` that are found beside it (beside the
file, then beside each header, transitively, a bounded number of headers).

A macro's arguments mean what its definition's parameters say, not what its name suggests:
TensorRT-LLM's `INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, ...)` and FlashInfer's
`INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(T, ...)` share a name and differ in the first parameter.
The parser only records the names; which parameter means what is the families'. A macro defined
twice with different parameter lists (in two `#if` branches) is recorded as not known: which one
the build sees is not the parser's to guess.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from cutlint import inputs
from cutlint.parse import directives as scan_directives
from cutlint.parse.directives import Directive
from cutlint.parse.lexmask import MaskedText, mask

MAX_HEADERS = 32
"""Headers read per file at most: the macros of a producer's launcher sit one or two includes
away; a bound keeps a file's cost independent of how far its include graph reaches."""

_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)")
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*"([^"\n]+)"')
_SPLICE = re.compile(rb"\\[ \t]*\r?\n")
_PARAM = re.compile(r"[A-Za-z_]\w*|\.\.\.")

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True)
class MacroParameters:
    """A function-like macro's parameter names, and where it was defined."""

    parameters: tuple[str, ...]
    defined_at: str
    """`path:line` of the `#define`."""


_CONFLICT = MacroParameters((), "")
"""Two definitions with different parameter lists: not known."""


def read_header(path: str) -> bytes | None:
    """A header's bytes through `cutlint.inputs` (its header limits), or None when it cannot be
    read: a header that is missing or refused only leaves its macros unknown."""
    try:
        return inputs.read_bytes(path, inputs.HEADER)
    except inputs.InputError:
        return None


def _directive_text(masked: MaskedText, d: Directive) -> bytes:
    return _SPLICE.sub(b" ", masked.code[d.start : d.end])


def _scan(
    path: str, masked: MaskedText, directives: Sequence[Directive], line_of: Callable[[int], int]
) -> tuple[dict[str, MacroParameters], list[str]]:
    defined: dict[str, MacroParameters] = {}
    included: list[str] = []
    for d in directives:
        if d.kind == "define":
            m = _DEFINE.match(_directive_text(masked, d))
            if m is None:
                continue
            name = m.group(1).decode("ascii")
            params = tuple(_PARAM.findall(m.group(2).decode("utf-8", "replace")))
            _add(defined, name, MacroParameters(params, f"{path}:{line_of(d.start)}"))
        elif d.kind == "include":
            # the quoted name is masked as a string literal: read it from the text itself
            m = _INCLUDE.match(_SPLICE.sub(b" ", masked.uncommented[d.start : d.end]))
            if m is not None:
                included.append(m.group(1).decode("utf-8", "replace"))
    return defined, included


def _add(defined: dict[str, MacroParameters], name: str, got: MacroParameters) -> None:
    before = defined.get(name)
    if before is None:
        defined[name] = got
    elif before.parameters != got.parameters:
        defined[name] = _CONFLICT


def visible(
    path: str,
    masked: MaskedText,
    directives: Sequence[Directive],
    line_of: Callable[[int], int],
    read: Reader = read_header,
) -> dict[str, MacroParameters]:
    """Every function-like macro the file defines or finds defined in the headers it includes
    (quoted includes resolved beside the including file), by name; conflicting ones left out."""
    defined, included = _scan(path, masked, directives, line_of)
    for _header, _text, got in _headers(path, included, read):
        for name, params in got.items():
            if name not in defined:  # the file's own definition is the one it sees first
                _add(defined, name, params)
            elif defined[name] is not _CONFLICT and defined[name].parameters != params.parameters:
                defined[name] = _CONFLICT
    return {name: p for name, p in defined.items() if p is not _CONFLICT}


def _headers(
    path: str, included: Sequence[str], read: Reader
) -> Iterator[tuple[str, bytes, dict[str, MacroParameters]]]:
    """The headers found from `path`'s quoted includes, beside the including file, breadth first,
    at most MAX_HEADERS: each path, its bytes and the macros it defines."""
    queue = [os.path.join(os.path.dirname(path), name) for name in included]
    seen: set[str] = set()
    while queue and len(seen) < MAX_HEADERS:
        header = os.path.normpath(queue.pop(0))
        if header in seen:
            continue
        seen.add(header)
        text = read(header)
        if text is None:
            continue
        header_masked = mask(text)
        lines = _line_counter(text)
        got, more = _scan(header, header_masked, scan_directives.scan(header_masked), lines)
        yield header, text, got
        queue += [os.path.join(os.path.dirname(header), name) for name in more]


def headers_read(path: str, text: bytes, read: Reader = read_header) -> list[tuple[str, bytes]]:
    """The headers whose macros a file's calls are read by, with their bytes: what a result kept
    for the file depends on besides its own bytes (the check cache's key)."""
    if b"#" not in text or b"include" not in text:
        return []
    masked = mask(text)
    _, included = _scan(path, masked, scan_directives.scan(masked), lambda offset: 0)
    return [(header, data) for header, data, _ in _headers(path, included, read)]


def _line_counter(text: bytes) -> Callable[[int], int]:
    return lambda offset: text.count(b"\n", 0, offset) + 1


__all__ = ["MAX_HEADERS", "MacroParameters", "Reader", "headers_read", "read_header", "visible"]
