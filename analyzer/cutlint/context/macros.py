"""A file's macro calls read by the `#define`s its build reaches.

The parser reads a call by the definition in the file or in a header quoted beside it
(`parse/macro_params.py`); it has no include path. Here the resolved context gives one: the
compile command's `-I`/`-isystem` directories (a `compile_commands.json` entry, FlashInfer's
`cached_ops/<module>/build.ninja`, `--compile-command`), else, for a file whose FlashInfer release
the installed package or its vendored tree says, the directories FlashInfer's JIT puts on its
include path (`FLASHINFER_JIT_INCLUDES`). A call whose definition is found there is read by it;
one whose definition is nowhere in reach is read as before (the family says which definition it
assumed). Every definition the calls are read by is a context field, `macros`, with its place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING

from cutlint import inputs
from cutlint.build_context import BuildContext, Origin, Sourced
from cutlint.records import FormKind, Instantiation, ParsedFile

# The scanners (parse/directives.py, macro_params.py, lexmask.py: their regular expressions) are
# imported where a file has a call left to read: a check of files that have none (every
# explicit instantiation and `using` chain) does not pay for them.
if TYPE_CHECKING:
    from cutlint.parse import macro_params

FLASHINFER_JIT_INCLUDES = (
    "csrc/nv_internal",
    "csrc/nv_internal/include",
    "csrc/nv_internal/tensorrt_llm/cutlass_extensions/include",
    "csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/include",
    "csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels",
    "include",
    "csrc",
)
"""The include path FlashInfer's JIT compiles its modules with, relative to the wheel's
`flashinfer/data/` (flashinfer/jit/env.py FLASHINFER_CSRC_DIR, FLASHINFER_INCLUDE_DIR; the `-I`
and `-isystem` list of every `cached_ops/<module>/build.ninja` it writes, e.g. fused_moe_120's:
nv_internal, nv_internal/include, its cutlass_extensions and cutlass_kernels directories, then
data/include and data/csrc)."""


def search_path(build: BuildContext) -> tuple[str, ...]:
    """Where the file's `#include`s are looked for: the compile command's include path, else the
    producer's vendored tree (FlashInfer's wheel, found by the CUTLASS it vendors beside it)."""
    if build.include_path is not None:
        return build.include_path.value
    inc = build.cutlass_include
    if inc is None or build.producer is None or build.producer.value != "flashinfer":
        return ()
    include = PurePath(inc.value)
    if include.parts[-3:] != ("data", "cutlass", "include"):
        return ()
    data = include.parent.parent
    return tuple(str(data / sub) for sub in FLASHINFER_JIT_INCLUDES)


def _unread(parsed: ParsedFile) -> set[str]:
    return {
        i.name
        for i in parsed.instantiations
        if i.form is FormKind.MACRO_CALL and i.parameters is None
    }


def read_by_definitions(parsed: ParsedFile, build: BuildContext) -> ParsedFile:
    """`parsed` with each macro call the parser found no `#define` for read by the one on the
    build's include path, when there is one (and only one parameter list)."""
    unread = _unread(parsed)
    path = search_path(build) if unread else ()
    if not path:
        return parsed
    try:
        text = inputs.read_bytes(parsed.path, inputs.SOURCE)
    except inputs.InputError:
        return parsed
    from cutlint.parse import directives, macro_params
    from cutlint.parse.lexmask import mask

    masked = mask(text)
    found = directives.scan(masked)
    lines = _line_of(text)
    macros = macro_params.visible(
        parsed.path, masked, found, lines, include_path=path, wanted=unread
    )
    insts = tuple(_read_by(i, macros) for i in parsed.instantiations)
    if insts == parsed.instantiations:
        return parsed
    return parsed.model_copy(update={"instantiations": insts})


def _read_by(inst: Instantiation, macros: dict[str, macro_params.MacroParameters]) -> Instantiation:
    got = macros.get(inst.name)
    if inst.form is not FormKind.MACRO_CALL or inst.parameters is not None or got is None:
        return inst
    return inst.model_copy(update={"parameters": got.parameters, "defined_at": got.defined_at})


def definitions(insts: Sequence[Instantiation]) -> Sourced[tuple[str, ...]] | None:
    """The context field `macros`: every `#define` the file's macro calls are read by, as
    `NAME(P1, P2, ...) at path:line`; None when no call was read by one."""
    seen = {
        f"{i.name}({', '.join(i.parameters)}) at {i.defined_at}": i.defined_at
        for i in insts
        if i.form is FormKind.MACRO_CALL and i.parameters is not None and i.defined_at
    }
    if not seen:
        return None
    where = "the #define of each macro, found in the file or on its include path"
    return Sourced(value=tuple(seen), origin=Origin.HEADER, where=where)


def cache_headers(path: str, text: bytes, build: BuildContext) -> list[tuple[str, bytes]]:
    """The headers a file's calls are read by, as `read_by_definitions` and the parser read them
    (the check cache's key holds their bytes)."""
    from cutlint.parse import macro_params

    return macro_params.headers_read(path, text, include_path=search_path(build))


def _line_of(text: bytes) -> Callable[[int], int]:
    """offset -> 1-based line (the `#define` lines of the file's own definitions)."""
    return lambda offset: text.count(b"\n", 0, offset) + 1


__all__ = [
    "FLASHINFER_JIT_INCLUDES",
    "cache_headers",
    "definitions",
    "read_by_definitions",
    "search_path",
]
