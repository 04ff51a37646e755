"""The check cache: one file's result kept between runs, as ruff keeps one.

An entry is keyed by everything its result depends on:

    the file's bytes          (blake2b of its content, never its time stamp)
    the headers beside it     (those whose `#define`s its macro calls are read by:
                               `parse/macro_params.headers_read`, their paths and bytes)
    its build context         (`context_key`: the path as reported, the options the judge
                               reads: arch, CUTLASS version, defines, FlashInfer release,
                               selection, fingerprint root)
    cutlint itself            (`tool_key`: its version and the bytes of its own sources, rule
                               files and data tables, so that an edited model or rule is a
                               different key, not a stale answer)

and lives in `$CUTLINT_CACHE/check/v<SCHEMA>/`, appended to a log of the process that wrote it
(engine/entry_log.py: a first run creates two files, not one per checked file), whose index line
is written after the entry's bytes, so a concurrent run reads a whole entry or none. A read is
never trusted: an entry that is not JSON, has another schema or key, or does not validate as a
`FileResult` is a miss (and is appended again), never an error.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from cutlint import inputs
from cutlint.build_context import BuildContext
from cutlint.cache_dir import cache_dir
from cutlint.context.arch_macros import guard_defines
from cutlint.engine.entry_log import EntryLogs
from cutlint.engine.options import CheckOptions
from cutlint.engine.tool import ENV_OFF as ENV_OFF
from cutlint.engine.tool import enabled as enabled
from cutlint.engine.tool import tool_key as tool_key
from cutlint.identity import ByIdentity
from cutlint.records import (
    ArchLimits,
    FileResult,
    Recipe,
    Resources,
    SmemLayout,
    StageCount,
    TmaPlan,
)

_M = TypeVar("_M", bound=BaseModel)

SCHEMA = 5
"""The layout of an entry and of where it is kept; a new one is a new directory, so old entries
are never read. (2: lines that pydantic validates from their bytes; 3: the context and each
resources on a line of its own; 4: a resources' PARTS on lines of their own, which the tree pack
keeps once; 5: entries appended to logs, engine/entry_log.py, not a file each.)"""

PARTS: dict[str, type[BaseModel]] = {
    "arch": ArchLimits,
    "stage_count": StageCount,
    "layout": SmemLayout,
    "tma": TmaPlan,
}
"""The fields of a resources kept on lines of their own: the bulk of an entry's bytes (arch 4.2
KB, layout 4.8, stage count 3.4, TMA plan 1.1 of 18 KB), and few distinct ones in a tree (a
100a build's 5,869 kernels: 1 arch table, 417 layouts, 354 stage counts)."""


def check_dir() -> Path:
    return cache_dir() / "check" / f"v{SCHEMA}"


def _resolve(path: str, options: CheckOptions) -> BuildContext:
    """The file's resolved build context (cutlint.context.resolve), as the judge will see it: a
    build.ninja, compile_commands.json entry, version.h or installed package that changes is
    another key, though no option did."""
    from cutlint.context.resolve import resolve

    return resolve(path, options.build_info(), options.request())


def context_key(path: str, options: CheckOptions, build: BuildContext | None = None) -> str:
    """What the judge reads besides the file's bytes. The one place to re-point when the build
    context is resolved elsewhere: every field that can change a file's result must be here."""
    h = _shared_hash(_options_part(options), build or _resolve(path, options)).copy()
    # the path as given too: results carry it
    h.update(f"\0{os.path.abspath(path)}\0{path}".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


DUMPED_KEPT = 4096
"""Records whose lines a process keeps: a worker lives as long as the run, and repeats sit near
one another (a tactic's kernels, one build's context). Records are frozen."""

_SHARED_HASH: ByIdentity[hashlib.blake2b] = ByIdentity(bound=DUMPED_KEPT)
"""A hash of the options' part and a context, by (the context, the part): the files of one
directory built by one command share one resolved context (context/resolve.py), so each file's
key copies the hash and adds its path, where it hashed the options' part and the context's JSON
again (2 KB, 20 us a file)."""


def _shared_hash(part: str, build: BuildContext) -> hashlib.blake2b:
    return _SHARED_HASH.get(build, lambda: _hash_of(part, build), part)


def _hash_of(part: str, build: BuildContext) -> hashlib.blake2b:
    h = hashlib.blake2b(digest_size=16)
    # neither holds a NUL: a repr, and JSON (which escapes control characters)
    h.update(f"{part}\0".encode("utf-8", "surrogatepass"))
    h.update(_dumped(build))
    return h


_OPTIONS_PART: ByIdentity[str] = ByIdentity(bound=1)
"""The options' part of a key, by (the options, the working directory): every file of a run keys
the same options, and their part was made again for each (with the context's JSON, now dumped
once, `_dumped`: a fifth of a cutlass_library file's key, 81 to 64 us). One run's at a time."""


def _options_part(options: CheckOptions) -> str:
    """The options the judge reads, as text: the same for every file of one run. Kept by the
    options (frozen) and, where they name no root, the working directory, the root's default."""
    cwd = str(options.root or Path.cwd())
    return _OPTIONS_PART.get(options, lambda: _options_text(options, cwd), cwd)


def _options_text(options: CheckOptions, cwd: str) -> str:
    cutlass = options.cutlass_version
    version_h = b""
    if cutlass is not None and Path(cutlass).is_dir():  # a CUTLASS include directory
        header = Path(cutlass) / "cutlass" / "version.h"
        version_h = header.read_bytes() if header.is_file() else b"?"
    part = repr(
        (
            options.arch,
            cutlass,
            version_h.hex(),
            sorted(guard_defines(options.arch, options.compile_command, options.defines).items()),
            sorted(options.undefines),
            options.flashinfer_version,
            options.selection.select,
            options.selection.ignore,
            cwd,
            options.build_dir,
            options.compile_command,
            tuple(options.site_packages),
        )
    )
    return part


def _headers_read(path: str, data: bytes, build: BuildContext) -> list[tuple[str, bytes]]:
    if b"#" not in data or b"include" not in data:
        return []
    from cutlint.context import macros

    return macros.cache_headers(path, data, build)


@dataclass(frozen=True)
class ResultCache:
    """The cache of one run: its options' part of every key, computed once."""

    tool: str
    """tool_key(), computed once per run; a file's bytes and context complete the key."""
    directory: Path
    logs: EntryLogs = field(init=False, compare=False, repr=False)
    """Where the entries are (engine/entry_log.py): the indexes, read at the first lookup."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "logs", EntryLogs(self.directory, self.tool))

    @classmethod
    def open(cls, directory: Path | None = None) -> ResultCache:
        return cls(tool=tool_key(), directory=directory or check_dir())

    def key(self, path: str, options: CheckOptions) -> str | None:
        """The entry's key for the file's current bytes, or None when it cannot be read (the
        parser then reports why)."""
        try:
            data = inputs.read_bytes(path, inputs.SOURCE)
        except inputs.InputError:
            return None
        h = hashlib.blake2b(data, digest_size=20)
        # the headers whose #defines its macro calls are read by: beside it (parse/macro_params)
        # and on its build's include path (context/macros)
        build = _resolve(path, options)
        for header, text in _headers_read(path, data, build):
            h.update(f"\0{header}\0{len(text)}\0".encode())
            h.update(text)
        h.update(self.tool.encode())
        h.update(context_key(path, options, build).encode())
        return h.hexdigest()

    def has(self, key: str) -> bool:
        """Whether an entry is kept under `key` (what it holds is `load`'s to judge)."""
        return self.logs.has(key)

    def load(self, key: str) -> tuple[FileResult | str, bytes] | None:
        """The kept result and the entry's bytes (a tree pack keeps those), or None: missing,
        unreadable, foreign or corrupt all read as a miss."""
        for raw in self.logs.read(key):
            try:
                result = decode(raw, key)
            except (ValueError, TypeError, KeyError, AttributeError, ImportError):
                continue  # ValidationError and JSON errors are ValueErrors
            if result is not None:
                return result, raw
        return None

    def store(self, key: str, encoded: bytes) -> None:
        """Keep an entry `encode(result, key)` made; a cache that cannot be written is no error
        (the run is still right)."""
        self.logs.append(key, encoded)

    def close(self) -> None:
        """The run is done: this process's log is closed."""
        self.logs.close()


def encode(result: FileResult | str, key: str) -> bytes:
    """The entry, in lines: a header (schema, key, whether the file has a build context, and per
    instantiation the shared parts of its resources, if it has resources, and the class of its
    recipe: JSON would write a family's recipe fields without saying which record they belong
    to), the result with its context, resources and recipes left null, then the context, then
    each instantiation's resources (its own fields, then each of its PARTS) and recipe. JSON
    strings hold no raw newline, so the lines split back exactly, and each is validated by
    pydantic straight from its bytes (a third less than validating the decoded objects).

    The context and the resources' lines are the shared ones (`line_kinds`): equal lines are
    one record when decoded (`_shared`), and the tree pack (engine/tree_pack.py) keeps each once
    from the entry's bytes alone, so that the process a file's result reaches as an entry does
    not decode it to write the pack. A record dumped once is not dumped again for the next file
    that shares it (`_dumped`: the judge's memo shares a tactic's resources between its
    kernels). For a file that is no instantiation file (a FlashInfer JIT source), the header
    alone, with its path."""
    if isinstance(result, str):
        return to_json({"schema": SCHEMA, "key": key, "skipped": result})
    rows = result.instantiations
    lines: list[bytes] = []
    if result.context is not None:
        lines.append(_dumped(result.context))
    shared: list[list[str] | None] = []
    for r in rows:
        if r.resources is None:
            shared.append(None)
        else:
            kinds, own = _resources_lines(r.resources)
            shared.append(kinds)
            lines.extend(own)
        if r.recipe is not None:
            lines.append(r.recipe.model_dump_json().encode())
    header = to_json(
        {
            "schema": SCHEMA,
            "key": key,
            "context": result.context is not None,
            "resources": shared,
            "recipes": [_recipe_name(r.recipe) for r in rows],
        }
    )
    bare = tuple(r.model_copy(update={"recipe": None, "resources": None}) for r in rows)
    body = result.model_copy(update={"instantiations": bare, "context": None}).model_dump_json()
    return b"\n".join([header, body.encode(), *lines])


CONTEXT = "context"
RESOURCES = "resources"
"""The kinds of an entry's shared lines besides PARTS: its context, a resources' own fields."""


def line_kinds(header: dict[str, Any]) -> list[str | None]:
    """The kind of each line after the body of the entry whose header is `header`: CONTEXT,
    RESOURCES or a PARTS kind for a shared line, None for a recipe (its row's own)."""
    kinds: list[str | None] = [CONTEXT] if header["context"] is True else []
    for parts, name in zip(header["resources"], header["recipes"], strict=True):
        if parts is not None:
            if not isinstance(parts, list) or not set(parts) <= PARTS.keys():
                raise ValueError("a resources' parts are PARTS kinds")
            kinds.append(RESOURCES)
            kinds.extend(parts)
        if name is not None:
            kinds.append(None)
    return kinds


_LINE: ByIdentity[bytes] = ByIdentity(bound=DUMPED_KEPT)
_LINES: ByIdentity[tuple[list[str], list[bytes]]] = ByIdentity(bound=DUMPED_KEPT)


def _dumped(record: BaseModel) -> bytes:
    """The record's JSON line, dumped once for the files that share the record."""
    return _LINE.get(record, lambda: record.model_dump_json().encode())


def _resources_lines(res: Resources) -> tuple[list[str], list[bytes]]:
    """The PARTS a resources has, and its lines: its own fields, then each part's."""
    return _LINES.get(res, lambda: _lines_of(res))


def _lines_of(res: Resources) -> tuple[list[str], list[bytes]]:
    parts = [(kind, getattr(res, kind)) for kind in PARTS]
    kinds = [kind for kind, part in parts if part is not None]
    own = res.model_dump_json(exclude=set(PARTS)).encode()
    lines = [own, *(_dumped(part) for _, part in parts if part is not None)]
    return kinds, lines


def _recipe_name(recipe: Recipe | None) -> str | None:
    return None if recipe is None else f"{type(recipe).__module__}:{type(recipe).__qualname__}"


class Parts(Protocol):
    """Where an entry's shared lines become records: validated once for equal lines."""

    def record(self, cls: type[_M], line: bytes) -> _M:
        """The CONTEXT (or a PARTS kind's) line as a `cls` record."""
        ...

    def resources(self, own: bytes, parts: list[tuple[str, bytes]]) -> Resources:
        """A resources from its own fields' line and its PARTS' (kind, line)."""
        ...


def decode(raw: bytes, key: str) -> FileResult | str | None:
    """What `encode(result, key)` wrote, validated; None for an entry of another schema or key.
    Raises ValueError (and its kin) for one that is corrupt."""
    lines = iter(raw.split(b"\n"))
    result = decode_lines(lines, key, ENTRY_PARTS)
    if next(lines, None) is not None:
        return None
    return result


def decode_lines(lines: Iterator[bytes], key: str | None, parts: Parts) -> FileResult | str | None:
    """One entry taken from `lines` (its header first, and no line after its own), its shared
    lines made records by `parts`; None for one of another schema or (unless `key` is None, as
    in a tree pack, whose head answers for every key) another key. Raises ValueError (and its
    kin) for one that is corrupt."""
    data = from_json(_line(lines))
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    if key is not None and data.get("key") != key:
        return None
    if "skipped" in data:
        skipped = data["skipped"]
        return skipped if isinstance(skipped, str) else None
    names: list[str | None] = data["recipes"]
    shared: list[list[str] | None] = data["resources"]
    if not (isinstance(names, list) and isinstance(shared, list)):
        return None
    kinds = line_kinds(data)  # checks the parts' kinds
    result = FileResult.model_validate_json(_line(lines))
    rows = result.instantiations
    if not len(names) == len(shared) == len(rows):
        return None
    if any(r.recipe is not None or r.resources is not None for r in rows):
        return None
    context = parts.record(BuildContext, _line(lines)) if kinds[:1] == [CONTEXT] else None
    typed = []
    for row, held, name in zip(rows, shared, names, strict=True):
        update: dict[str, object] = {}
        if held is not None:
            own = _line(lines)
            update["resources"] = parts.resources(own, [(kind, _line(lines)) for kind in held])
        if name is not None:
            update["recipe"] = recipe_class(name).model_validate_json(_line(lines))
        typed.append(row.model_copy(update=update) if update else row)
    return result.model_copy(update={"instantiations": tuple(typed), "context": context})


def _line(lines: Iterator[bytes]) -> bytes:
    line = next(lines, None)
    if line is None:
        raise ValueError("an entry cut short")
    return line


SHARED_KEPT = 2048
"""Decoded contexts, resources and their parts kept by their bytes. Files of one build share
their context, and kernels of one tactic their resources (the judge's recipe memo): decoded
once, they are one record in this process as they were in the one that judged them, which the
reports' caches of dumped parts key on (report/json.py). On 1,138 files of the hundred-thousand
set, 17 distinct contexts; a resources' lines are 14 KB of the 16 KB a cutlass_library file's
entry has."""

_kept: dict[tuple[type[BaseModel], bytes], BaseModel] = {}


def _shared(cls: type[_M], line: bytes) -> _M:
    """`cls` validated from `line`, or the record an equal line gave before."""
    digest = hashlib.blake2b(line, digest_size=16).digest()
    kept = _kept.get((cls, digest))
    if isinstance(kept, cls):
        return kept
    if len(_kept) >= SHARED_KEPT:
        _kept.clear()
    record = _kept[cls, digest] = cls.model_validate_json(line)
    return record


def resources_of(own: bytes, parts: dict[str, BaseModel]) -> Resources:
    """A resources from its own fields' line and its PARTS' records (validated as they are:
    pydantic takes a record in a record's field without validating it again)."""
    fields = from_json(own)
    if not isinstance(fields, dict) or not fields.keys().isdisjoint(PARTS):
        raise ValueError("a resources' own fields are an object without its parts")
    fields.update(parts)
    return Resources.model_validate(fields)


class _EntryParts:
    """An entry's shared lines, kept by their bytes (`_shared`)."""

    def record(self, cls: type[_M], line: bytes) -> _M:
        return _shared(cls, line)

    def resources(self, own: bytes, parts: list[tuple[str, bytes]]) -> Resources:
        h = hashlib.blake2b(own, digest_size=16)
        for kind, line in parts:
            h.update(f"\0{kind}\0{len(line)}\0".encode())
            h.update(line)
        digest = h.digest()
        kept = _kept.get((Resources, digest))
        if isinstance(kept, Resources):
            return kept
        made = resources_of(own, {kind: _shared(PARTS[kind], line) for kind, line in parts})
        if len(_kept) >= SHARED_KEPT:
            _kept.clear()
        _kept[Resources, digest] = made
        return made


ENTRY_PARTS: Parts = _EntryParts()


@cache
def recipe_class(name: str) -> type[Recipe]:
    """A recipe record named by an entry: only a `Recipe` of cutlint's own modules (an entry is
    data, and names nothing else to import)."""
    module, _, qualname = name.partition(":")
    if not (module == "cutlint.records" or module.startswith("cutlint.families.")):
        raise ValueError(f"not a cutlint recipe module: {module}")
    cls = getattr(importlib.import_module(module), qualname, None)
    if not (isinstance(cls, type) and issubclass(cls, Recipe)):
        raise ValueError(f"not a recipe record: {name}")
    return cls
