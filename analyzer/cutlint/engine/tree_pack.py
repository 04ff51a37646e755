"""The check cache's answer for a whole unchanged tree: every file's result in one file, the parts
that files share stored and validated once.

A re-check of an unchanged tree already knows every file's entry key from the tree manifest
(engine/tree_manifest.py) without reading a file; what was left was loading the entries, one
file each, 18 KB of JSON per cutlass_library kernel (a 27,680-kernel 100a build: 504 MB),
validated into records: two thirds of the cached re-run. Most of those bytes say the same thing
again: every kernel of the build has the same arch table and build context, and a few hundred
shared-memory layouts and stage counts serve its 27,680 kernels (measured: 1 arch, 1 context,
417 layouts, 354 stage counts in 5,869 kernels). The pack keeps each such part once and each
file's result without them, so a re-run validates a part once and the records share it (as the
first run's memo made them share it: less memory, and the JSON report dumps a shared part once).

The pack is named by the tree manifest's configuration and holds a digest of the (path, entry
key) of every file of the run, in order: it answers only a run whose files and keys are exactly
those, and then for all of them at once; any other run reads the entries as before and writes a
new pack as its results stream out. It is data, never trusted: one that is corrupt, foreign or
does not validate is ignored whole (the entries answer), and it is written to a temporary file
moved into place only when the run had every file's result, so a concurrent run reads a whole
pack or none.

    header   {"schema": 1, "digest": ..., "files": N}
    parts    P<kind> <json>          a shared part, numbered in its kind's order of appearance
    a file   F{"path", "parts": {field: n}, "resources": [{field: n} | null, ...], "recipes"}
             the FileResult's JSON without its context, resources and recipes
             <resources' own fields, one line per instantiation that has resources>
             <one line per recipe>
    or       F{"skipped": path}      a FlashInfer JIT source (CheckResult.skipped)
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Generator, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from cutlint.build_context import BuildContext
from cutlint.engine.cache import recipe_class
from cutlint.records import (
    ArchLimits,
    FileResult,
    Resources,
    SmemLayout,
    StageCount,
    TmaPlan,
)

SCHEMA = 1
"""The layout of a pack; another one is another directory."""

SHARED: dict[str, type[BaseModel]] = {
    "arch": ArchLimits,
    "stage_count": StageCount,
    "layout": SmemLayout,
    "tma": TmaPlan,
}
"""The Resources fields kept as parts: the bulk of an entry's bytes (arch 4.2 KB, layout 4.8,
stage count 3.4, TMA plan 1.1 of 18 KB), and few distinct ones in a tree."""

CONTEXT = "context"
"""The FileResult field kept as a part: one per build directory, not per file."""

Outcome = FileResult | str

_BARE = {"resources": None, "recipe": None}
"""A row as its file's line has it: its resources and recipe are lines of their own."""


def digest(files: Sequence[tuple[str, str | None]]) -> str:
    """What a pack answers for: each file's path and entry key, in the run's order."""
    h = hashlib.blake2b(f"pack {SCHEMA}".encode(), digest_size=16)
    for path, key in files:
        h.update(f"\0{path}\0{key}".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


KEPT: set[Path] = set()
"""The packs that, in this process, answered a run whole (`read`) or were written whole by one
(`Writer.commit`): every file's result of that run is kept, none is a parser crash or time-out.
A check is kept for replay only then (engine/replay.py)."""


def location(entries: Path, name: str) -> Path:
    """The pack of manifest `name` of the cache whose entries are in `entries`."""
    return entries.parent / f"packs-v{SCHEMA}" / f"{name}.pack"


class Broken(Exception):
    """A pack found corrupt, cut short or unreadable after its head had answered."""


_ERRORS = (
    OSError,
    ValueError,  # ValidationError and JSON errors are ValueErrors
    TypeError,
    KeyError,
    AttributeError,
    ImportError,
    IndexError,
    StopIteration,
)


class Packed:
    """A pack whose head answers the run: its outcomes, decoded one file at a time as they are
    taken (`outcomes`), so that a run holds one file's records, not the whole tree's (a
    100,099-kernel pack is 586 MB of lines). A pack that turns out bad part-way raises Broken:
    the outcomes taken before it validated each on its own, and the caller answers the rest from
    the entries (`discard` removes the pack, so the next run writes a new one)."""

    def __init__(self, path: Path, f: IO[bytes], files: int) -> None:
        self.path = path
        self._f = f
        self.outcomes = self._stream(files)

    def _stream(self, files: int) -> Generator[Outcome, None, None]:
        try:
            yield from _decode(_lines(self._f), files)
        except _ERRORS as err:
            raise Broken(str(self.path)) from err
        finally:
            self._f.close()

    def finish(self) -> None:
        """Every file was taken: the pack answered the run whole (KEPT) if nothing bad follows;
        one with more after them is removed, as one found bad before."""
        try:
            next(self.outcomes)
        except StopIteration:
            KEPT.add(self.path)
            return
        except Broken:
            pass
        self.discard()

    def discard(self) -> None:
        self.outcomes.close()
        with suppress(OSError):
            self.path.unlink()


def read(path: Path, wanted: str) -> Packed | None:
    """The pack at `path` if its head answers for `wanted` (a `digest`), else None: missing, of
    another run, or a head that does not parse all read as None."""
    try:
        f = path.open("rb")
    except OSError:
        return None
    try:
        head = f.readline()  # another run's pack is not read further
        if _answers(head, wanted):
            return Packed(path, f, wanted_files(head))
    except _ERRORS:
        pass
    f.close()
    return None


def _lines(f: IO[bytes]) -> Iterator[bytes]:
    for line in f:
        yield line[:-1] if line.endswith(b"\n") else line


def _answers(head: bytes, wanted: str) -> bool:
    try:
        data = from_json(head)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("schema") == SCHEMA and data.get("digest") == wanted


def wanted_files(head: bytes) -> int:
    files = from_json(head)["files"]
    if not isinstance(files, int):
        raise TypeError("a count of files")
    return files


def _decode(lines: Iterator[bytes], files: int) -> Iterator[Outcome]:
    parts: dict[bytes, list[Any]] = {}
    seen: _Seen = {}
    count = 0
    for line in lines:
        if line.startswith(b"P"):
            kind, _, data = line[1:].partition(b" ")
            parts.setdefault(kind, []).append(_part_class(kind).model_validate_json(data))
        elif line.startswith(b"F"):
            count += 1
            if count > files:
                raise ValueError("more files than the head says")
            yield _file(from_json(line[1:]), lines, parts, seen)
        elif line:
            raise ValueError("not a pack line")
    if count != files:
        raise ValueError("a pack cut short")


def _part_class(kind: bytes) -> type[BaseModel]:
    name = kind.decode()
    return BuildContext if name == CONTEXT else SHARED[name]


_Seen = dict[tuple[bytes, tuple[tuple[str, int], ...]], Resources]
"""Resources made so far, by their own line and their parts."""


def _file(head: dict[str, Any], lines: Any, parts: dict[bytes, list[Any]], seen: _Seen) -> Outcome:
    if "skipped" in head:
        skipped = head["skipped"]
        if not isinstance(skipped, str):
            raise TypeError("a skipped file's path is a string")
        return skipped
    result = FileResult.model_validate_json(next(lines))
    if result.context is not None:
        raise ValueError("the context is a part")
    rows = []
    for row, refs, name in zip(
        result.instantiations, head["resources"], head["recipes"], strict=True
    ):
        if row.resources is not None or row.recipe is not None:
            raise ValueError("resources and recipes are lines of their own")
        update: dict[str, Any] = {}
        if refs is not None:
            update["resources"] = _resources(next(lines), refs, parts, seen)
        if name is not None:
            update["recipe"] = recipe_class(name).model_validate_json(next(lines))
        rows.append(row.model_copy(update=update) if update else row)
    update = {"instantiations": tuple(rows)}
    ctx = head["parts"].get(CONTEXT)
    if ctx is not None:
        update[CONTEXT] = parts[CONTEXT.encode()][ctx]
    if result.path != head["path"]:
        raise ValueError("the file line and its result disagree")
    return result.model_copy(update=update)


def _resources(
    line: bytes, refs: dict[str, int], parts: dict[bytes, list[Any]], seen: _Seen
) -> Resources:
    """A row's resources: its own fields and its shared parts, one record for equal ones (kept
    under the `resources` kind: the rows of one tactic share it, as the first run's memo made
    them, and the JSON report dumps it once)."""
    if not isinstance(refs, dict):
        raise TypeError("the parts of resources are an object")
    key = (line, tuple(sorted(refs.items())))
    found = seen.get(key)
    if found is None:
        own = from_json(line)
        if not isinstance(own, dict):
            raise TypeError("resources are an object")
        for field, n in refs.items():
            own[field] = parts[field.encode()][n]
        found = seen[key] = Resources.model_validate(own)
    return found


class Writer:
    """A pack written as a run's outcomes stream out, moved into place by `commit` only when
    every file's outcome was added; `abandon` (a result not to keep: a parser crash or time-out)
    or an unfinished run leaves the old pack, or none."""

    def __init__(self, path: Path, wanted: str, files: int) -> None:
        self.path = path
        self.expected = files
        self.count = 0
        self.numbers: dict[str, dict[bytes, int]] = {}
        self.held: dict[int, tuple[object, str, int]] = {}
        """id(part) -> (the part, its kind, its number): a part shared by object is dumped once
        (the part is held so that its id is not reused)."""
        self.out: IO[bytes] | None = None
        self.tmp = ""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, self.tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pack")
            self.out = os.fdopen(fd, "wb")
            self.out.write(to_json({"schema": SCHEMA, "digest": wanted, "files": files}))
        except OSError:
            self.abandon()

    def add(self, outcome: Outcome) -> None:
        if self.out is None:
            return
        try:
            self._add(outcome)
        except (OSError, ValueError):
            self.abandon()  # a result JSON cannot hold (a path that is not UTF-8)

    def _add(self, outcome: Outcome) -> None:
        assert self.out is not None
        self.count += 1
        if isinstance(outcome, str):
            self.out.write(b"\nF" + to_json({"skipped": outcome}))
            return
        lines: list[bytes] = []
        context = outcome.context
        refs: list[dict[str, int] | None] = []
        names: list[str | None] = []
        for row in outcome.instantiations:
            res, recipe = row.resources, row.recipe
            names.append(None if recipe is None else recipe_name(recipe))
            if res is None:
                refs.append(None)
            else:
                shared = {f: self._part(f, getattr(res, f)) for f in SHARED}
                own = res.model_dump_json(exclude=set(shared)).encode()
                refs.append({f: n for f, n in shared.items() if n is not None})
                lines.append(own)
            if recipe is not None:
                lines.append(recipe.model_dump_json().encode())
        head = {
            "path": outcome.path,
            "parts": {CONTEXT: self._part(CONTEXT, context)},
            "resources": refs,
            "recipes": names,
        }
        bare = tuple(r.model_copy(update=_BARE) for r in outcome.instantiations)
        body = outcome.model_copy(update={"instantiations": bare, CONTEXT: None}).model_dump_json()
        self.out.write(b"".join(b"\n" + line for line in [b"F" + to_json(head), body.encode()]))
        for line in lines:
            self.out.write(b"\n" + line)

    def _part(self, kind: str, part: BaseModel | None) -> int | None:
        """The number of `part` in its kind, written first where it is new."""
        if part is None:
            return None
        assert self.out is not None
        held = self.held.get(id(part))
        if held is not None and held[1] == kind:
            return held[2]
        data = part.model_dump_json().encode()
        numbers = self.numbers.setdefault(kind, {})
        n = numbers.get(data)
        if n is None:
            n = numbers[data] = len(numbers)
            self.out.write(b"\nP" + kind.encode() + b" " + data)
        self.held[id(part)] = (part, kind, n)
        return n

    def abandon(self) -> None:
        if self.out is not None:
            with suppress(OSError):
                self.out.close()
            self.out = None
        if self.tmp:
            with suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = ""

    def commit(self) -> None:
        """Move the pack into place if every file was added; else drop it."""
        if self.out is None or self.count != self.expected:
            self.abandon()
            return
        try:
            self.out.write(b"\n")
            self.out.close()
            self.out = None
            os.replace(self.tmp, self.path)
            self.tmp = ""
            KEPT.add(self.path)
        except OSError:
            self.abandon()


def recipe_name(recipe: BaseModel) -> str:
    return f"{type(recipe).__module__}:{type(recipe).__qualname__}"
