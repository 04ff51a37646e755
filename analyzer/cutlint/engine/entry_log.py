"""The check cache's entries, appended to logs: each writing process keeps one log of entries and
one index of where in it each entry lies, so that a first run creates two files, not one per
checked file.

A file each was what the first run of a big tree paid most for: on the 2-core machine, creating a
file took about 240 us of system time (ext4, and several times that while the other core was
busy), so that writing the 27,680 entries of a 100a `cutlass_library` build took the parent 6 to
9 s; appended to one log, 18 KB each, they take 0.3 s. That build's first run, 3 alternating
pairs: 21.8 to 22.7 s wall and 36.0 to 39.0 s of CPU with a file each, 19.0 to 19.2 s and 31.6 to
32.2 s with logs.

    <tool>-<token>.entries    the entries' bytes (engine/cache.py `encode`), one after another
    <tool>-<token>.index      a line per entry, written once its bytes are: "<key> <offset>
                              <length>"

`<tool>` is the cutlint that wrote them (engine/tool.py `tool_key`, which every entry's key
hashes): a run reads only its own cutlint's indexes, so the logs an older cutlint (or an edited
checkout) left are never read again, and the indexes a run reads grow only with the files that
changed under one cutlint, not with every version the cache has seen.

Safe under concurrent runs without a lock: a log has one writer (its token is drawn by the
process that creates it, exclusively), which appends an entry's index line only after its bytes,
so a reader never finds a line whose bytes are not there yet; an index line cut short (its
writer stopped, or is writing it) is not read. Nothing a log holds is trusted: an entry is
decoded and checked against the key it was looked up by (engine/cache.py `decode`), and one that
does not decode is a miss. Where several entries are named for one key (a corrupt one was
judged again and appended again, or two runs judged one file at once), they are tried the last
written first until one decodes.

The indexes are read once per run, at its first lookup (`has`, `read`), and what the run appends
is for the runs after it: a run answered by its tree pack (engine/tree_pack.py) or replayed
(engine/replay.py) reads none, and a first run holds no index of what it wrote. The logs only
grow; deleting the directory (or any log with its index) at any time is safe.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

LOG = ".entries"
INDEX = ".index"

_Location = tuple[str, int, int]
"""A log's path, and where an entry lies in it: its offset and its length."""

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)


class EntryLogs:
    """The logs in one directory: what their indexes said at the first lookup, and this
    process's own log, made at its first append. Not shared across a fork: a forked process (a
    parser worker that keeps its entries) makes its own log, and a pickled one is made afresh."""

    def __init__(self, directory: Path, tool: str) -> None:
        self.directory = directory
        self.tool = tool
        """The cutlint whose logs these are (`tool_key`): the start of their names."""
        self._index: dict[str, _Location] | None = None
        self._older: dict[str, list[_Location]] = {}
        """The keys named more than once: their entries before the last, in order."""
        self._writer: _Writer | None = None
        self._unwritable = 0
        """The pid of a process that could not make or write its log: it writes no more."""

    def __reduce__(self) -> tuple[type[EntryLogs], tuple[Path, str]]:
        return (EntryLogs, (self.directory, self.tool))

    def has(self, key: str) -> bool:
        """Whether an index names an entry for `key` (what it holds is the caller's to judge)."""
        return key in self._locations()

    def keys(self) -> list[str]:
        """Every key an index names."""
        return list(self._locations())

    def read(self, key: str) -> Iterator[bytes]:
        """The entries the indexes name for `key`, the last written first (where one turns out
        corrupt, the caller takes the next), each one that can be read whole."""
        newest = self._locations().get(key)
        if newest is None:
            return
        for path, offset, length in (newest, *reversed(self._older.get(key, ()))):
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                continue
            try:
                data = os.pread(fd, length, offset)
            except OSError:
                continue
            finally:
                os.close(fd)
            if len(data) == length:
                yield data

    def append(self, key: str, data: bytes) -> bool:
        """Keep `data` under `key` in this process's log; False where it cannot be written (a
        cache that cannot be written is no error: the run is still right)."""
        pid = os.getpid()
        if self._unwritable == pid:
            return False
        writer = self._writer
        if writer is None or writer.pid != pid:
            writer = self._writer = _Writer.make(self.directory, self.tool, pid)
            if writer is None:
                self._unwritable = pid
                return False
        if not writer.append(key, data):
            self._unwritable = pid
            writer.close()
            self._writer = None
            return False
        return True

    def close(self) -> None:
        """Close this process's log (a later append opens another)."""
        if self._writer is not None and self._writer.pid == os.getpid():
            self._writer.close()
        self._writer = None

    def _locations(self) -> dict[str, _Location]:
        if self._index is None:
            self._index = _read_indexes(self.directory, self.tool, self._older)
        return self._index


class _Writer:
    """This process's log and index, open for appending."""

    def __init__(self, pid: int, entries: int, index: int) -> None:
        self.pid = pid
        self.entries = entries
        self.index = index
        self.offset = 0

    @classmethod
    def make(cls, directory: Path, tool: str, pid: int) -> _Writer | None:
        for _ in range(100):
            stem = str(directory / f"{tool}-{os.urandom(8).hex()}")
            try:
                entries = _create(stem + LOG, directory)
            except FileExistsError:
                continue  # another process drew this token
            except OSError:
                return None
            try:
                index = os.open(stem + INDEX, _FLAGS, 0o600)
            except OSError:
                os.close(entries)
                with suppress(OSError):
                    os.unlink(stem + LOG)
                return None
            return cls(pid, entries, index)
        return None

    def append(self, key: str, data: bytes) -> bool:
        """Write the entry, then its index line; False where a write failed (the index then
        names nothing that is not whole)."""
        try:
            _write(self.entries, data)
            _write(self.index, f"{key} {self.offset} {len(data)}\n".encode())
        except OSError:
            return False
        self.offset += len(data)
        return True

    def close(self) -> None:
        for fd in (self.entries, self.index):
            with suppress(OSError):
                os.close(fd)


def _create(path: str, directory: Path) -> int:
    try:
        return os.open(path, _FLAGS, 0o600)
    except FileNotFoundError:  # no directory yet
        directory.mkdir(parents=True, exist_ok=True)
        return os.open(path, _FLAGS, 0o600)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _name(
    index: dict[str, _Location], older: dict[str, list[_Location]], key: str, where: _Location
) -> None:
    before = index.get(key)
    if before is not None:
        older.setdefault(key, []).append(before)
    index[key] = where


def _read_indexes(
    directory: Path, tool: str, older: dict[str, list[_Location]]
) -> dict[str, _Location]:
    """Every index of cutlint `tool`, its lines, the indexes in the order they were last written: a
    key's last line is its newest entry, its earlier ones go to `older`. A line that is not whole,
    or not three fields of a key and two counts, is passed over."""
    try:
        with os.scandir(directory) as listing:
            names = [e for e in listing if e.name.startswith(f"{tool}-") and e.name.endswith(INDEX)]
    except OSError:
        return {}
    found: list[tuple[int, str, bytes]] = []
    for e in names:
        try:
            with open(e.path, "rb") as f:
                found.append((os.fstat(f.fileno()).st_mtime_ns, e.name, f.read()))
        except OSError:
            continue
    index: dict[str, _Location] = {}
    for _, name, data in sorted(found):
        log = str(directory / (name[: -len(INDEX)] + LOG))
        whole = data[: data.rfind(b"\n") + 1]
        for line in whole.splitlines():
            fields = line.split(b" ")
            if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
                continue
            try:
                key = fields[0].decode("ascii")
            except UnicodeDecodeError:
                continue
            _name(index, older, key, (log, int(fields[1]), int(fields[2])))
    return index
