"""The parameter lists of the function-like macros a file can see: its own `#define NAME(a, b)`
and those of the headers it includes, found as the preprocessor finds them: a quoted
`#include "..."` beside the including file, then on the include path; an `#include <...>` on the
include path only (the build's `-I`/`-isystem` directories, which the parser itself is not given:
`cutlint.context.macros` passes the resolved context's). Transitively, a bounded number of
headers, and no further than the names asked for are found.

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
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from cutlint import inputs
from cutlint.parse import directives as scan_directives
from cutlint.parse.directives import Directive
from cutlint.parse.lexmask import MaskedText, mask

MAX_HEADERS = 32
"""Headers read per file at most: the macros of a producer's launcher sit one or two includes
away; a bound keeps a file's cost independent of how far its include graph reaches."""

_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)")
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)')
_SPLICE = re.compile(rb"\\[ \t]*\r?\n")
_PARAM = re.compile(r"[A-Za-z_]\w*|\.\.\.")

MAX_LOOKUPS = 8 * MAX_HEADERS
"""Places a header is looked for at most per file (each a failed open or a read): an include
path of many directories costs a bounded number of them."""

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


Include = tuple[str, bool]
"""A header name as an `#include` writes it, and whether it is quoted (`"..."`, looked for beside
the including file first) rather than angled (`<...>`)."""


def _scan(
    path: str, masked: MaskedText, directives: Sequence[Directive], line_of: Callable[[int], int]
) -> tuple[dict[str, MacroParameters], list[Include]]:
    defined: dict[str, MacroParameters] = {}
    included: list[Include] = []
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
                quoted = m.group(1) is not None
                name = m.group(1) if quoted else m.group(2)
                included.append((name.decode("utf-8", "replace"), quoted))
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
    include_path: Sequence[str] = (),
    wanted: Collection[str] | None = None,
) -> dict[str, MacroParameters]:
    """Every function-like macro the file defines or finds defined in the headers it includes
    (quoted includes beside the including file, then on `include_path`; angled ones on
    `include_path`), by name; conflicting ones left out. With `wanted`, the headers are read
    until each of those names is found (the rest of the include graph cannot change them but by
    a conflict the build would reject)."""
    defined, included = _scan(path, masked, directives, line_of)
    for _header, _text, got in _headers(path, included, read, include_path, wanted, defined):
        for name, params in got.items():
            if name not in defined:  # the file's own definition is the one it sees first
                _add(defined, name, params)
            elif defined[name] is not _CONFLICT and defined[name].parameters != params.parameters:
                defined[name] = _CONFLICT
    return {name: p for name, p in defined.items() if p is not _CONFLICT}


def _candidates(includer: str, name: str, quoted: bool, include_path: Sequence[str]) -> list[str]:
    """Where the preprocessor looks for `name` included from `includer`, in order (GCC's and
    nvcc's rule: a quoted name beside the including file first, then the `-I` path)."""
    beside = [os.path.join(os.path.dirname(includer), name)] if quoted else []
    if os.path.isabs(name):
        return [name]
    return beside + [os.path.join(d, name) for d in include_path]


def _headers(
    path: str,
    included: Sequence[Include],
    read: Reader,
    include_path: Sequence[str] = (),
    wanted: Collection[str] | None = None,
    defined: Mapping[str, object] | None = None,
) -> Iterator[tuple[str, bytes, dict[str, MacroParameters]]]:
    """The headers found from `path`'s includes, breadth first, at most MAX_HEADERS read: each
    path, its bytes and the macros it defines. An angled include is followed only with an
    include path; with `wanted`, no header is read once all of them are defined."""
    queue = [(path, name, quoted) for name, quoted in included if quoted or include_path]
    seen: set[str] = set()
    found: set[str] = set(defined or ())
    lookups = 0
    while queue and len(seen) < MAX_HEADERS and lookups < MAX_LOOKUPS:
        if wanted is not None and found.issuperset(wanted):
            return
        includer, name, quoted = queue.pop(0)
        for candidate in _candidates(includer, name, quoted, include_path):
            header = os.path.normpath(candidate)
            if header in seen:
                break
            lookups += 1
            text = read(header)
            if text is None:
                continue
            seen.add(header)
            got, more = _scan_header(header, text)
            found.update(got)
            yield header, text, got
            queue += [(header, n, q) for n, q in more if q or include_path]
            break


_SCANNED: dict[tuple[str, bytes], tuple[dict[str, MacroParameters], list[Include]]] = {}
"""A header's macros and includes by (path, bytes), per process: the files of one module include
the same headers (a run scans each once; a header whose bytes changed is scanned again)."""


def _scan_header(header: str, text: bytes) -> tuple[dict[str, MacroParameters], list[Include]]:
    key = (header, text)
    got = _SCANNED.get(key)
    if got is None:
        header_masked = mask(text)
        lines = _line_counter(text)
        got = _scan(header, header_masked, scan_directives.scan(header_masked), lines)
        if len(_SCANNED) >= 256:  # bounds the bytes kept (a module's headers are tens of KB)
            _SCANNED.clear()
        _SCANNED[key] = got
    return got


def headers_read(
    path: str,
    text: bytes,
    read: Reader = read_header,
    include_path: Sequence[str] = (),
) -> list[tuple[str, bytes]]:
    """The headers whose macros a file's calls are read by, with their bytes: what a result kept
    for the file depends on besides its own bytes (the check cache's key). With an include path,
    only as far as the file's macro calls need (`wanted`), as `visible` reads them."""
    if b"#" not in text or b"include" not in text:
        return []
    if include_path and not _may_call(text):
        return []  # nothing wanted: no header is read (what the masked scan below finds too)
    masked = mask(text)
    defined, included = _scan(path, masked, scan_directives.scan(masked), lambda offset: 0)
    wanted = called(masked) if include_path else None
    return [
        (header, data)
        for header, data, _ in _headers(path, included, read, include_path, wanted, defined)
    ]


_CALL = re.compile(rb"\b((?:INSTANTIATE|INSTANCE)_\w*)\s*\(")


def _may_call(text: bytes) -> bool:
    """Whether `called` can find a name in `text`: the masked code only blanks comments and
    strings, so a name it finds is in the raw bytes too. A file without one (a cutlass_library
    kernel) is not masked and scanned just to learn that its cache key reads no header."""
    return b"INSTANTIATE_" in text or b"INSTANCE_" in text


def called(masked: MaskedText) -> set[str]:
    """The instantiation macros a file calls (the scanner's `INSTANTIATE_`/`INSTANCE_` names),
    outside comments and strings: the names worth following an include path for."""
    return {m.group(1).decode("ascii") for m in _CALL.finditer(masked.code)}


def _line_counter(text: bytes) -> Callable[[int], int]:
    return lambda offset: text.count(b"\n", 0, offset) + 1


__all__ = [
    "MAX_HEADERS",
    "MacroParameters",
    "Reader",
    "called",
    "headers_read",
    "read_header",
    "visible",
]
