"""The one reader of user-named files: sources, logs, baselines, configs, CUTLASS's version.h.

Every file cutlint reads because a user named it (on the command line, in a config, by pointing
at a directory) is opened here, so the same refusals hold everywhere:

- only regular files are read. The file is opened with O_NONBLOCK, so that even a FIFO swapped in
  after the directory walk cannot block the open, and the opened descriptor's fstat decides:
  a FIFO, socket, device or directory is refused before a byte is read;
- size is bounded per kind of file (`Limit`): a larger file is refused unread, and one that grows
  while it is read is cut at the limit and refused;
- time is bounded: reading gives up at a deadline (a stalled network file system);
- a path longer than PATH_MAX is opened one directory at a time (openat), so a deep tree is read
  like any other;
- JSON and TOML are decoded with bounds on nesting and on the digits of a number
  (`load_json`, `load_toml`): Python's own decoders raise RecursionError or ValueError there.

Every failure is an `InputError`: one line that names the file and says why.
"""

from __future__ import annotations

import errno
import functools
import itertools
import json
import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_CHUNK = 1 << 20
_PATH_MAX = 4000
"""Paths at least this long (in bytes) are opened a directory at a time. Below Linux's PATH_MAX
(4096) with room to spare; macOS's is 1024, where ENAMETOOLONG takes the same route."""

NUMBER_DIGITS = 20
"""The most digits a number in a baseline or config may have: 2**64 - 1 has 20. Python refuses
to convert strings of more than 4,300 digits at all (sys.get_int_max_str_digits)."""

NESTING = 64
"""The deepest nesting of arrays and tables a baseline or config may have (theirs is 3)."""


class InputError(Exception):
    """A user-named file that cannot be read as asked; the message names it and says why."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = str(path)
        self.why = why


@dataclass(frozen=True)
class Limit:
    """What one kind of file may cost to read."""

    what: str
    """The kind, for messages: "source file", "log", "baseline", ..."""
    max_bytes: int
    seconds: float = 120.0
    """Wall-clock time the read may take (a regular file on a local disk takes milliseconds)."""


SOURCE = Limit("source file", 256 << 20)
"""A generated instantiation file is tens of KB; 256 MiB leaves room for any real one."""
LOG = Limit("log", 1 << 30, seconds=600.0)
BASELINE = Limit("baseline", 64 << 20)
CONFIG = Limit("config file", 4 << 20)
HEADER = Limit("header", 4 << 20)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _why(err: OSError) -> str:
    if err.errno == errno.ENOENT:
        return "does not exist"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if err.errno == errno.ELOOP:
        return "a symlink loop: its links never reach a file"
    if err.errno == errno.EISDIR:
        return "is a directory"
    return err.strerror or type(err).__name__


def describe(err: OSError) -> str:
    """Why an OSError happened, in the words of this module's messages."""
    return _why(err)


def _is_long(path: str | Path) -> bool:
    return len(os.fsencode(path)) >= _PATH_MAX


@contextmanager
def _parent(path: str | Path) -> Iterator[tuple[int | None, str]]:
    """(dir_fd, name) for `path`: (None, path) for an ordinary path; for a long one, a descriptor
    of its directory opened one component at a time, and the last component."""
    if not _is_long(path):
        yield None, str(path)
        return
    text = os.fspath(path)
    head, name = os.path.split(text.rstrip(os.sep) or text)
    with _LAST_LOCK:
        yield _directory_fd(head, os.path.isabs(text)), name or "."


_LAST_LOCK = threading.Lock()
_last: tuple[str, int] | None = None
"""The long directory opened last and its descriptor, kept open: a walk down a deep tree asks
for the directory it asked for before, or one below it, so each level opens one component
instead of all of them (3,500 levels took minutes, each open walking the whole path again)."""


def _directory_fd(head: str, absolute: bool) -> int:
    """A descriptor of directory `head` (owned by the cache: do not close it)."""
    global _last
    if _last is not None and (head == _last[0] or head.startswith(_last[0] + os.sep)):
        base, fd = _last[0], _last[1]
        rest = head[len(base) :]
    else:
        base, rest = "", head
        fd = os.open(os.sep if absolute else ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in (p for p in rest.split(os.sep) if p):
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            if _last is None or fd != _last[1]:
                os.close(fd)
            fd = nxt
    except BaseException:
        if _last is None or fd != _last[1]:
            os.close(fd)
        raise
    if _last is not None and fd != _last[1]:
        os.close(_last[1])
    _last = (head, fd)
    return fd


def stat_path(path: str | Path) -> os.stat_result:
    """os.stat (following links) that also works for a path longer than PATH_MAX."""
    try:
        if _is_long(path):
            with _parent(path) as (fd, name):
                st = os.stat(name, dir_fd=fd)
        else:  # without the context manager: every file of a walk is stat'ed
            st = os.stat(path)
    except BaseException:
        looked_at(path)
        raise
    looked_at(path, st)
    return st


def is_link(path: str | Path) -> bool:
    """Whether `path` itself is a symlink (False when it cannot be lstat'ed)."""
    try:
        with _parent(path) as (fd, name):
            return stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode)
    except (OSError, ValueError):
        return False


def listdir_links(path: str | Path) -> list[tuple[str, bool]]:
    """os.listdir that also works for a path longer than PATH_MAX, each name with whether it is
    a symlink, from its directory entry's type where the file system keeps one (no lstat of each
    name: a 100,000-file walk spent 0.7 s on them)."""
    looked_at(path)  # a name added or removed is a change of the directory's own stat
    if not _is_long(path):
        return _listed(str(path))
    with _parent(path) as (fd, name):
        sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        try:
            return _listed(sub)
        finally:
            os.close(sub)


def _listed(directory: str | int) -> list[tuple[str, bool]]:
    with os.scandir(directory) as listing:
        return [(e.name, _entry_is_link(e)) for e in listing]


def _entry_is_link(entry: os.DirEntry[str]) -> bool:
    """As `is_link`: False where it cannot be lstat'ed (a type the entry does not keep)."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


_RECORDERS: list[set[str]] = []
"""The open `recording()`s: each collects the paths read or probed while it is open."""

Signature = tuple[int, int, int, int]
"""(size, mtime_ns, inode, ctime_ns): the stat that says a file or directory is unchanged."""

_STATS: list[dict[str, Signature | None]] = []
"""The open `recording_stats()`s: each keeps every path's stat as it was when first looked at."""


def forget_recordings() -> None:
    """A forked worker's reads are not its parent's to record: the parent's open recordings
    (the replay's stats, inherited by the fork) are dropped in the child, which otherwise stat'ed
    every file it parsed into a copy nobody reads (0.9 s of the worker's CPU on a first run of
    100,000 kernels)."""
    _RECORDERS.clear()
    _STATS.clear()


def signature(path: str | Path) -> Signature | None:
    """The stat that says a path is unchanged, or None where nothing is (or it cannot be read)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


@contextmanager
def recording() -> Iterator[set[str]]:
    """The absolute paths this process reads through this module, or probes with `looked_at`,
    while the block runs: what a result made in it depends on (the check cache's tree manifest,
    engine/tree_manifest.py). A path that was not there is among them: its appearing is a
    change too."""
    seen: set[str] = set()
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:
        _RECORDERS.remove(seen)


@contextmanager
def recording_stats() -> Iterator[dict[str, Signature | None]]:
    """As `recording()`, with each path's `signature` taken when it was first looked at, before
    it was read or listed: a file or directory that changes while the run reads it is then
    another stat than the one kept (the check's replayed reports, engine/replay.py)."""
    seen: dict[str, Signature | None] = {}
    _STATS.append(seen)
    try:
        yield seen
    finally:
        _STATS.remove(seen)


def looked_at(path: str | Path, st: os.stat_result | None = None) -> None:
    """Tell the open recordings that `path` was read or probed (whether or not it exists);
    `st`: its stat, where the caller has just taken it (the walk stats every file)."""
    if _RECORDERS or _STATS:
        try:
            absolute = os.path.abspath(path)
        except ValueError:  # a NUL in the name: nothing there to depend on
            return
        for seen in _RECORDERS:
            seen.add(absolute)
        for stats in _STATS:
            if absolute not in stats:
                stats[absolute] = (
                    signature(absolute)
                    if st is None
                    else (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
                )


def package_dirs() -> list[str]:
    """The directories of sys.path, where installed distributions are looked up, but the working
    directory (`python -m` puts it first): a run's own output written there must not read as an
    install."""
    import sys

    here = os.getcwd()
    out = [os.path.abspath(d) for d in sys.path if d]
    return [d for d in out if d != here]


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to `path` through a temporary file in its directory moved into place, so
    that a concurrent reader sees the whole file or the old one. False where it cannot be
    written (a cache that cannot be written is no error)."""
    try:
        fd, tmp = _temporary(path)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


_TEMPORARY: dict[int, tuple[str, Iterator[int]]] = {}
"""Per process id: a random token and a counter, the names of its temporary files."""


def _temporary(path: Path) -> tuple[int, str]:
    """A new file beside `path`, created exclusively (O_EXCL), and its name: what
    `tempfile.mkstemp` makes, at a third of its cost (it draws a random name for each file:
    measured when each check cache entry was a file of its own). The token is drawn once per
    process (a fork draws its own): runs on several machines may share a cache directory, and a
    name taken all the same is passed over for the next."""
    pid = os.getpid()
    if pid not in _TEMPORARY:
        _TEMPORARY[pid] = (os.urandom(6).hex(), itertools.count())
    token, counter = _TEMPORARY[pid]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    folder = str(path.parent)
    for _ in range(100):
        tmp = f"{folder}{os.sep}.tmp-{token}-{next(counter)}{path.suffix}"
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:  # no directory yet: made when missing, not tried per file
            path.parent.mkdir(parents=True, exist_ok=True)
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def _open(path: str | Path, limit: Limit) -> tuple[int, os.stat_result]:
    looked_at(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        if _is_long(path):
            with _parent(path) as (dir_fd, name):
                fd = os.open(name, flags, dir_fd=dir_fd)
        else:  # without the context manager: every file is read twice (its key, its parse)
            fd = os.open(path, flags)
    except OSError as err:
        raise InputError(path, f"{_why(err)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(path, f"is {_kind(st.st_mode)}, not a {limit.what}; not read")
        if st.st_size > limit.max_bytes:
            raise InputError(path, _too_large(st.st_size, limit))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _too_large(size: int | None, limit: Limit) -> str:
    has = f"is {size:,} bytes" if size is not None else "grew while it was read"
    return f"{has}; cutlint reads a {limit.what} of at most {limit.max_bytes:,} bytes"


def _chunks(fd: int, path: str | Path, limit: Limit) -> Iterator[bytes]:
    deadline = time.monotonic() + limit.seconds
    total = 0
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError as err:
            raise InputError(path, f"cannot be read: {_why(err)}") from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit.max_bytes:
            raise InputError(path, _too_large(None, limit))
        if time.monotonic() > deadline:
            raise InputError(path, f"reading took longer than {limit.seconds:g} s; given up")
        yield chunk


def read_bytes(path: str | Path, limit: Limit) -> bytes:
    """The whole file, if it is a regular file within `limit`."""
    fd, _ = _open(path, limit)
    try:
        return b"".join(_chunks(fd, path, limit))
    finally:
        os.close(fd)


def read_text(path: str | Path, limit: Limit) -> str:
    """The whole file as UTF-8 text (a BOM is dropped); invalid UTF-8 is an InputError."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InputError(
            path, f"not UTF-8 text: byte 0x{data[err.start]:02x} at line {line}"
        ) from None


def lines(path: str | Path, limit: Limit, max_line: int) -> Iterator[tuple[bytes, bool]]:
    """The file's lines (without their line ends), streamed: (line, cut). A line longer than
    `max_line` bytes is yielded cut to that length with `cut` set, and the rest of it skipped,
    so that memory stays bounded by the longest line kept, not by the file."""
    fd, _ = _open(path, limit)
    try:
        pending = b""  # the start of the line the previous chunks did not finish
        skipping = False  # that line is longer than max_line: only its head is kept
        for chunk in _chunks(fd, path, limit):
            pieces = chunk.split(b"\n")
            rest = pieces.pop()  # after the chunk's last newline: a line not finished yet
            for i, piece in enumerate(pieces):
                if i == 0:
                    if skipping:
                        yield pending, True
                        pending, skipping = b"", False
                        continue
                    piece, pending = pending + piece, b""
                yield _line(piece, max_line)
            if pieces:
                pending = rest
            elif not skipping:
                pending += rest
            if not skipping and len(pending) > max_line:
                pending, skipping = pending[:max_line], True
        if skipping:
            yield pending, True
        elif pending:
            yield _line(pending, max_line)
    finally:
        os.close(fd)


def _line(piece: bytes, max_line: int) -> tuple[bytes, bool]:
    if len(piece) > max_line:
        return piece[:max_line], True
    return (piece[:-1] if piece.endswith(b"\r") else piece), False


# --- structured files ------------------------------------------------------------------------


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-+").lstrip("0")) > NUMBER_DIGITS:
        raise ValueError(f"a number of {len(digits):,} digits (at most {NUMBER_DIGITS})")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _depth(text: str, openers: str, closers: str) -> int:
    """The deepest bracket nesting of `text`, ignoring brackets in double-quoted strings. A
    coarse bound, checked before the decoder recurses (it counts `[` inside TOML's single-quoted
    strings too, which only makes it stricter). Done in string methods, so that Python visits
    only the brackets (a character loop took 2.8 s on a cutlass_library build's
    compile_commands.json, a regular expression that cut out its strings 0.15 s, this 0.04 s):
    a backslash escapes the next character (JSON's and TOML's basic strings), so the escaped
    backslashes go first, then the escaped quotes; of the rest only quotes and brackets are
    kept, and every other piece between two quotes is a string's (one left open runs to the
    end)."""
    brackets = openers + closers
    plain = text.replace("\\\\", "").replace('\\"', "") if "\\" in text else text
    outside = "".join(plain.translate(_only(brackets)).split('"')[::2])
    step = dict.fromkeys(openers, 1) | dict.fromkeys(closers, -1)
    found = _brackets(brackets).findall(outside)
    return max(0, max(itertools.accumulate(map(step.__getitem__, found)), default=0))


@functools.cache
def _only(brackets: str) -> dict[int, None]:
    """A str.translate table that drops every ASCII character but the quote and `brackets`."""
    return {c: None for c in range(128) if chr(c) not in '"' + brackets}


@functools.cache
def _brackets(brackets: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(brackets) + "]")


def _check_nesting(path: str | Path, text: str, openers: str, closers: str) -> None:
    # Only text with many brackets is scanned: a real file has few.
    if sum(text.count(c) for c in openers) > NESTING and _depth(text, openers, closers) > NESTING:
        raise InputError(path, f"nested deeper than {NESTING} levels; not read")


def load_json(path: str | Path, limit: Limit) -> Any:
    """A JSON file, decoded with every number bounded and the nesting bounded."""
    text = read_text(path, limit)
    _check_nesting(path, text, "[{", "]}")
    try:
        return json.loads(
            text, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_no_constant
        )
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON: {err}") from None
    except (ValueError, RecursionError) as err:
        raise InputError(path, f"not read: {err}") from None


def _bounded_float(text: str) -> float:
    if len(text) > 64:
        raise ValueError(f"a number of {len(text):,} characters")
    return float(text)


def load_toml(path: str | Path, limit: Limit) -> dict[str, Any]:
    """A TOML file, decoded with the nesting bounded; a number Python refuses to convert (over
    4,300 digits) is an InputError like any other bad value."""
    import tomllib  # a config file's: not imported by a check that reads none

    text = read_text(path, limit)
    _check_nesting(path, text, "[{", "]}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(path, f"not valid TOML: {err}") from None
    except (ValueError, RecursionError) as err:
        raise InputError(path, f"not read: {err}") from None


def is_regular(path: str | Path) -> bool:
    """Whether `path` (links followed) is a regular file; False for anything that cannot be
    stat'ed. For discovery (is there a pyproject.toml here?), never for reading."""
    try:
        return stat.S_ISREG(stat_path(path).st_mode)
    except OSError:
        return False
