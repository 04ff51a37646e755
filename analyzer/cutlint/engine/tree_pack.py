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

A file's lines are its entry's (engine/cache.py `encode`), each shared line (a context, a
resources' own fields, or one of its parts: arch table, stage count, layout, TMA plan) kept once
and named by its number. The pack is written from the entries' bytes: the process that writes
it decodes none of the results its parser workers judged.

    header   {"schema": 2, "digest": ..., "files": N}
    a part   P<line>             a shared line, numbered from 0 in order of appearance
    a file   F<entry header>     then the entry's other lines, each shared one as its number
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Generator, Iterator, Sequence
from contextlib import suppress
from itertools import chain
from pathlib import Path
from typing import IO, TypeVar

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from cutlint.engine import cache
from cutlint.records import FileResult, Resources

SCHEMA = 2
"""The layout of a pack; another one is another directory. (2: entries' lines, the shared ones
by number.)"""

Outcome = FileResult | str
_M = TypeVar("_M", bound=BaseModel)


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
    parts = _PackParts()
    count = 0
    for line in lines:
        if line.startswith(b"P"):
            parts.lines.append(line[1:])
        elif line.startswith(b"F"):
            count += 1
            if count > files:
                raise ValueError("more files than the head says")
            # the file's lines are taken from `lines` itself: the loop goes on after them
            outcome = cache.decode_lines(chain((line[1:],), lines), None, parts)
            if outcome is None:
                raise ValueError("an entry of another schema")
            yield outcome
        elif line:
            raise ValueError("not a pack line")
    if count != files:
        raise ValueError("a pack cut short")


class _PackParts:
    """A pack's shared lines, each validated once (as the `cls` its first use asks for), and a
    resources made once for equal own fields and parts: the records of the tree share them, as
    the first run's memo made them share them (less memory, and the JSON report dumps a shared
    part once)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self._records: dict[tuple[int, type[BaseModel]], BaseModel] = {}
        self._resources: dict[tuple[bytes, ...], Resources] = {}

    def record(self, cls: type[_M], line: bytes) -> _M:
        n = int(line)
        kept = self._records.get((n, cls))
        if isinstance(kept, cls):
            return kept
        made = self._records[n, cls] = cls.model_validate_json(self._line(line))
        return made

    def _line(self, number: bytes) -> bytes:
        n = int(number)
        if n < 0:
            raise IndexError("a part's number counts from 0")
        return self.lines[n]

    def resources(self, own: bytes, parts: list[tuple[str, bytes]]) -> Resources:
        key = (own, *(b"%s=%s" % (kind.encode(), n) for kind, n in parts))
        kept = self._resources.get(key)
        if kept is None:
            records = {kind: self.record(cache.PARTS[kind], n) for kind, n in parts}
            kept = self._resources[key] = cache.resources_of(self._line(own), records)
        return kept


class Writer:
    """A pack written as a run's entries stream out, moved into place by `commit` only when
    every file's entry was added; `abandon` (a result not to keep: a parser crash or time-out)
    or an unfinished run leaves the old pack, or none."""

    def __init__(self, path: Path, wanted: str, files: int) -> None:
        self.path = path
        self.expected = files
        self.count = 0
        self.numbers: dict[bytes, int] = {}
        """Each shared line written, by its bytes: its number."""
        self.out: IO[bytes] | None = None
        self.tmp = ""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, self.tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pack")
            self.out = os.fdopen(fd, "wb")
            self.out.write(to_json({"schema": SCHEMA, "digest": wanted, "files": files}))
        except OSError:
            self.abandon()

    def add(self, entry: bytes) -> None:
        """The next file's entry (`cache.encode`)."""
        if self.out is None:
            return
        try:
            self._add(entry)
        except (OSError, ValueError, TypeError, KeyError):
            self.abandon()

    def _add(self, entry: bytes) -> None:
        assert self.out is not None
        self.count += 1
        lines = entry.split(b"\n")
        header = from_json(lines[0])
        if "skipped" in header:
            self.out.write(b"\nF" + lines[0])
            return
        kinds = cache.line_kinds(header)
        if len(kinds) != len(lines) - 2:
            raise ValueError("an entry's lines and its header disagree")
        out = [b"F" + lines[0], lines[1]]
        for kind, line in zip(kinds, lines[2:], strict=True):
            out.append(line if kind is None else self._number(line))
        self.out.write(b"\n" + b"\n".join(out))

    def _number(self, line: bytes) -> bytes:
        """The number of a shared line, written first where it is new."""
        assert self.out is not None
        n = self.numbers.get(line)
        if n is None:
            n = self.numbers[line] = len(self.numbers)
            self.out.write(b"\nP" + line)
        return b"%d" % n

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
