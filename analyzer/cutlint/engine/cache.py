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
from importlib import resources
from pathlib import Path

from pydantic_core import from_json, to_json

from cutlint import __version__, inputs
from cutlint.build_context import BuildContext
from cutlint.cache_dir import cache_dir
from cutlint.context.arch_macros import guard_defines
from cutlint.engine.options import CheckOptions
from cutlint.records import FileResult, Recipe

SCHEMA = 2
"""The layout of an entry; a new one is a new directory, so old entries are never read. (2: lines
that pydantic validates from their bytes.)"""

ENV_OFF = "CUTLINT_NO_CACHE"
"""Set (to anything but empty) to bypass the cache, as `--no-cache` does (the test suite sets it:
tests that replace a stage in-process must not be answered from disk)."""

_PACKAGE = Path(__file__).resolve().parents[1]


def enabled(no_cache: bool = False) -> bool:
    return not no_cache and not os.environ.get(ENV_OFF)


def check_dir() -> Path:
    return cache_dir() / "check" / f"v{SCHEMA}"


@cache
def tool_key() -> str:
    """cutlint's version and the content of every source, data table and rule file it ships (the
    rules are `cutlint.rules`, which an editable install maps outside the package): a
    development checkout keeps one version number across many models and rules."""
    h = hashlib.blake2b(f"cutlint {__version__} schema {SCHEMA}".encode(), digest_size=16)
    for path in sorted(_PACKAGE.rglob("*")):
        if path.suffix in (".py", ".toml", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(path.read_bytes())
    rules = resources.files("cutlint.rules")
    for group in sorted(rules.iterdir(), key=lambda g: g.name):
        if group.is_dir():
            for f in sorted(group.iterdir(), key=lambda f: f.name):
                h.update(f"rules/{group.name}/{f.name}".encode())
                h.update(f.read_bytes())
    return h.hexdigest()


def _resolve(path: str, options: CheckOptions) -> BuildContext:
    """The file's resolved build context (cutlint.context.resolve), as the judge will see it: a
    build.ninja, compile_commands.json entry, version.h or installed package that changes is
    another key, though no option did."""
    from cutlint.context.resolve import resolve

    return resolve(path, options.build_info(), options.request())


def context_key(path: str, options: CheckOptions, build: BuildContext | None = None) -> str:
    """What the judge reads besides the file's bytes. The one place to re-point when the build
    context is resolved elsewhere: every field that can change a file's result must be here."""
    cutlass = options.cutlass_version
    version_h = b""
    if cutlass is not None and Path(cutlass).is_dir():  # a CUTLASS include directory
        header = Path(cutlass) / "cutlass" / "version.h"
        version_h = header.read_bytes() if header.is_file() else b"?"
    parts: tuple[object, ...] = (
        os.path.abspath(path),
        path,  # results carry the path as given
        options.arch,
        cutlass,
        version_h.hex(),
        sorted(guard_defines(options.arch, options.compile_command, options.defines).items()),
        sorted(options.undefines),
        options.flashinfer_version,
        options.selection.select,
        options.selection.ignore,
        str(options.root or Path.cwd()),
        options.build_dir,
        options.compile_command,
        tuple(options.site_packages),
        (build or _resolve(path, options)).model_dump_json(),
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


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
    """The entry, in lines: a header (schema, key, and the class of each recipe: JSON would
    write a family's recipe fields without saying which record they belong to), the result
    without its recipes, then each recipe. JSON strings hold no raw newline, so the lines split
    back exactly, and each is validated by pydantic straight from its bytes (a third less than
    validating the decoded objects). For a file that is no instantiation file (a FlashInfer JIT
    source), the header alone, with its path."""
    if isinstance(result, str):
        return to_json({"schema": SCHEMA, "key": key, "skipped": result})
    recipes = [r.recipe for r in result.instantiations]
    names = [None if r is None else f"{type(r).__module__}:{type(r).__qualname__}" for r in recipes]
    header = to_json({"schema": SCHEMA, "key": key, "recipes": names})
    body = result.model_dump_json(exclude={"instantiations": {"__all__": {"recipe"}}})
    kept = [r.model_dump_json().encode() for r in recipes if r is not None]
    return b"\n".join([header, body.encode(), *kept])


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
    body, _, rest = rest.partition(b"\n")
    result = FileResult.model_validate_json(body)
    kept = rest.split(b"\n") if rest else []
    if not isinstance(names, list) or len(names) != len(result.instantiations):
        return None
    if sum(1 for n in names if n is not None) != len(kept):
        return None
    recipes = iter(kept)
    typed = []
    for row, name in zip(result.instantiations, names, strict=True):
        if row.recipe is not None:
            return None
        if name is not None:
            recipe = _recipe_class(name).model_validate_json(next(recipes))
            row = row.model_copy(update={"recipe": recipe})
        typed.append(row)
    return result.model_copy(update={"instantiations": tuple(typed)})


@cache
def _recipe_class(name: str) -> type[Recipe]:
    """A recipe record named by an entry: only a `Recipe` of cutlint's own modules (an entry is
    data, and names nothing else to import)."""
    module, _, qualname = name.partition(":")
    if not (module == "cutlint.records" or module.startswith("cutlint.families.")):
        raise ValueError(f"not a cutlint recipe module: {module}")
    cls = getattr(importlib.import_module(module), qualname, None)
    if not (isinstance(cls, type) and issubclass(cls, Recipe)):
        raise ValueError(f"not a recipe record: {name}")
    return cls
