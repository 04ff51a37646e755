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

and lives in `$CUTLINT_CACHE/check/v<SCHEMA>/<key[:2]>/<key>.json`. Writes go to a temporary
file in the same directory and are moved into place with `os.replace`, so a concurrent run reads
a whole entry or none. A read is never trusted: an entry that is not JSON, has another schema or
key, or does not validate as a `FileResult` is a miss (and is overwritten), never an error.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from cutlint import inputs
from cutlint.build_context import BuildContext
from cutlint.cache_dir import cache_dir
from cutlint.context.arch_macros import guard_defines
from cutlint.engine.options import CheckOptions
from cutlint.engine.tool import ENV_OFF as ENV_OFF
from cutlint.engine.tool import enabled as enabled
from cutlint.engine.tool import tool_key as tool_key
from cutlint.records import FileResult, Recipe, Resources

SCHEMA = 3
"""The layout of an entry; a new one is a new directory, so old entries are never read. (2: lines
that pydantic validates from their bytes; 3: the context and each resources on a line of
its own.)"""


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
    parts = (
        os.path.abspath(path),
        path,  # results carry the path as given
        _options_part(options),
        _context_json(build or _resolve(path, options)),
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


_OPTIONS_PART: dict[int, tuple[CheckOptions, str, str]] = {}
"""id(options) -> (the options, the working directory, their part of a key): every file of a run
keys the same options, and their part was made again for each (with the context's JSON below, a
fifth of a cutlass_library file's key: 81 to 64 us)."""


def _options_part(options: CheckOptions) -> str:
    """The options the judge reads, as text: the same for every file of one run. Kept by the
    options (frozen) and, where they name no root, the working directory, the root's default."""
    cwd = str(options.root or Path.cwd())
    held = _OPTIONS_PART.get(id(options))
    if held is not None and held[0] is options and held[1] == cwd:
        return held[2]
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
    _OPTIONS_PART.clear()  # one run's options at a time
    _OPTIONS_PART[id(options)] = (options, cwd, part)
    return part


_CONTEXT_JSON: dict[int, tuple[BuildContext, str]] = {}
"""id(context) -> (the context, its JSON): the files of one directory built by one command share
one resolved context (context/resolve.py), whose JSON was made again for each."""


def _context_json(build: BuildContext) -> str:
    held = _CONTEXT_JSON.get(id(build))
    if held is not None and held[0] is build:  # the same object: frozen, so the same JSON
        return held[1]
    if len(_CONTEXT_JSON) >= 4096:
        _CONTEXT_JSON.clear()
    text = build.model_dump_json()
    _CONTEXT_JSON[id(build)] = (build, text)
    return text


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

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def has(self, key: str) -> bool:
        """Whether an entry is kept under `key` (what it holds is `load`'s to judge)."""
        return os.path.isfile(self._entry(key))

    def load(self, key: str) -> FileResult | str | None:
        """The kept result, or None: missing, unreadable, foreign or corrupt all read as a miss."""
        try:
            raw = self._entry(key).read_bytes()
        except OSError:
            return None
        try:
            return decode(raw, key)
        except (ValueError, TypeError, KeyError, AttributeError, ImportError):
            return None  # ValidationError and JSON errors are ValueErrors

    def store(self, key: str, encoded: bytes) -> None:
        """Keep an entry `encode(result, key)` made; a cache that cannot be written is no error
        (the run is still right)."""
        inputs.write_atomically(self._entry(key), encoded)


def encode(result: FileResult | str, key: str) -> bytes:
    """The entry, in lines: a header (schema, key, whether the file has a build context, and per
    instantiation whether it has resources and the class of its recipe: JSON would write a
    family's recipe fields without saying which record they belong to), the result with its
    context, resources and recipes left null, then the context, then each instantiation's resources and
    recipe. JSON strings hold no raw newline, so the lines split back exactly, and each is
    validated by pydantic straight from its bytes (a third less than validating the decoded
    objects); the context and the resources on lines of their own are decoded once for all
    the files that share them (`_shared`). For a file that is no instantiation file (a
    FlashInfer JIT source), the header alone, with its path."""
    if isinstance(result, str):
        return to_json({"schema": SCHEMA, "key": key, "skipped": result})
    rows = result.instantiations
    names = [_recipe_name(r.recipe) for r in rows]
    header = to_json(
        {
            "schema": SCHEMA,
            "key": key,
            "context": result.context is not None,
            "resources": [r.resources is not None for r in rows],
            "recipes": names,
        }
    )
    bare = tuple(r.model_copy(update={"recipe": None, "resources": None}) for r in rows)
    body = result.model_copy(update={"instantiations": bare, "context": None}).model_dump_json()
    lines = [header, body.encode()]
    if result.context is not None:
        lines.append(result.context.model_dump_json().encode())
    for r in rows:
        if r.resources is not None:
            lines.append(r.resources.model_dump_json().encode())
        if r.recipe is not None:
            lines.append(r.recipe.model_dump_json().encode())
    return b"\n".join(lines)


def _recipe_name(recipe: Recipe | None) -> str | None:
    return None if recipe is None else f"{type(recipe).__module__}:{type(recipe).__qualname__}"


def decode(raw: bytes, key: str) -> FileResult | str | None:
    """What `encode(result, key)` wrote, validated; None for an entry of another schema or key.
    Raises ValueError (and its kin) for one that is corrupt."""
    header, _, rest = raw.partition(b"\n")
    data = from_json(header)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
        return None
    if "skipped" in data:
        skipped = data["skipped"]
        return skipped if isinstance(skipped, str) and not rest else None
    names: list[str | None] = data["recipes"]
    has_resources: list[bool] = data["resources"]
    body, _, rest = rest.partition(b"\n")
    result = FileResult.model_validate_json(body)
    parts = iter(rest.split(b"\n") if rest else [])
    rows = result.instantiations
    if not (isinstance(names, list) and isinstance(has_resources, list)):
        return None
    if not len(names) == len(has_resources) == len(rows):
        return None
    if any(r.recipe is not None or r.resources is not None for r in rows):
        return None
    context = _shared(BuildContext, next(parts)) if data["context"] is True else None
    typed = []
    for row, resources, name in zip(rows, has_resources, names, strict=True):
        update: dict[str, object] = {}
        if resources is True:
            update["resources"] = _shared(Resources, next(parts))
        if name is not None:
            update["recipe"] = recipe_class(name).model_validate_json(next(parts))
        typed.append(row.model_copy(update=update) if update else row)
    if next(parts, None) is not None:
        return None
    return result.model_copy(update={"instantiations": tuple(typed), "context": context})


SHARED_KEPT = 2048
"""Decoded contexts and resources kept by their bytes. Files of one build share their context,
and kernels of one tactic their resources (the judge's recipe memo): decoded once, they are one
record in this process as they were in the one that judged them, which the reports' caches of
dumped parts key on (report/json.py). On 1,138 files of the hundred-thousand set, 17 distinct
contexts; a resources line is 14 KB of the 16 KB a cutlass_library file's entry has."""

_kept: dict[tuple[type[BaseModel], bytes], BaseModel] = {}
_M = TypeVar("_M", bound=BaseModel)


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
