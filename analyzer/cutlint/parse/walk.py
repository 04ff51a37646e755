"""Expand the paths given on the command line into the files to parse, in a fixed order.

A file given by name is parsed whatever its name; a directory contributes every `*.cu` below it,
in natural order (`group2` before `group10`, as a reader counts), less what `--exclude` names. Nothing here raises: a missing path, a directory that cannot be listed, a `*.cu`
that is a directory or a FIFO (reading one would block the run), a symlink loop, all become a
CUT001 entry in place, so the output still has one entry per input in a predictable order.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.parse.problems import NO_INSTANTIATIONS, UNREADABLE_INPUT, problem
from cutlint.records import InputProblem


@dataclass(frozen=True)
class Entry:
    path: str
    problem: InputProblem | None = None
    """Set when the path cannot be parsed at all; None for a regular file to parse."""


# Messages are read after the path (`path: CUT001 unreadable-input: <message>`), so they do not
# repeat it.
def _stat_problem(path: str, err: OSError) -> InputProblem:
    if err.errno == errno.ELOOP:
        why = "a symlink loop: its links never reach a file"
    elif err.errno == errno.ENOENT:
        why = "a dangling symlink" if os.path.islink(path) else "does not exist"
    elif err.errno in (errno.EACCES, errno.EPERM):
        why = "permission denied"
    else:
        why = f"cannot be read: {err.strerror}"
    return problem(UNREADABLE_INPUT, path, why)


def _not_regular(path: str, mode: int) -> InputProblem:
    if stat.S_ISDIR(mode):
        why = "is a directory named like a source file (its contents are checked)"
    else:
        why = "is not a regular file (a FIFO, socket or device), so it is not read"
    return problem(UNREADABLE_INPUT, path, why)


def natural_key(name: str) -> tuple[tuple[int, str], ...]:
    """`group10` after `group2`: digit runs compare as numbers, the rest as text."""
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part) for part in _DIGITS.split(name) if part
    )


_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class Exclude:
    """`--exclude` globs, as ruff reads them: a pattern without `/` matches a file or directory
    name anywhere in the tree (`*_test.cu`, `gemm`); one with `/` matches the path relative to
    the working directory or the absolute path (`build/*`, `*/120/*group1*`)."""

    patterns: tuple[str, ...] = ()

    def __call__(self, path: str) -> bool:
        if not self.patterns:
            return False
        name = os.path.basename(path.rstrip(os.sep))
        full = os.path.abspath(path)
        relative = os.path.relpath(full)
        for p in self.patterns:
            if "/" not in p.rstrip("/"):
                if fnmatch.fnmatchcase(name, p.rstrip("/")):
                    return True
            elif any(fnmatch.fnmatchcase(x, p.rstrip("/")) for x in (relative, full)):
                return True
        return False


def expand(paths: Sequence[Path | str], exclude: Sequence[str] = ()) -> list[Entry]:
    out: list[Entry] = []
    seen: set[tuple[int, int]] = set()
    excluded = Exclude(tuple(exclude))
    for given in paths:
        path = str(given)
        try:
            st = os.stat(path)
        except OSError as err:
            out.append(Entry(path, _stat_problem(path, err)))
            continue
        if stat.S_ISDIR(st.st_mode):
            if path.rstrip(os.sep).endswith(".cu"):
                out.append(Entry(path, _not_regular(path, st.st_mode)))  # and walked all the same
            found = list(_walk(path, st, seen, excluded))
            if not found:
                # A directory with no source at all is said out loud: `cutlint check wrong/dir`
                # must not pass in silence.
                found = [
                    Entry(
                        path, problem(NO_INSTANTIATIONS, path, "no `*.cu` file in this directory")
                    )
                ]
            out.extend(found)
        elif not stat.S_ISREG(st.st_mode):
            out.append(Entry(path, _not_regular(path, st.st_mode)))
        elif (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out.append(Entry(path))
    return out


def _walk(
    root: str, root_st: os.stat_result, seen: set[tuple[int, int]], excluded: Exclude
) -> Iterator[Entry]:
    """Depth-first in name order, iterative (a deep tree must not hit the recursion limit).

    Directory symlinks are followed, so a link back to an ancestor is a loop: it is reported
    and not entered. `seen` keeps a file reached twice (two links, or a file also named on the
    command line) from being parsed twice.
    """
    # Each frame: the directory's remaining entries, and the (dev, ino) chain of its ancestors.
    stack: list[tuple[Iterator[str], str, frozenset[tuple[int, int]]]] = []
    listing = _listing(root)
    if isinstance(listing, Entry):
        yield listing
        return
    stack.append((iter(listing), root, frozenset({(root_st.st_dev, root_st.st_ino)})))
    while stack:
        names, directory, ancestors = stack[-1]
        name = next(names, None)
        if name is None:
            stack.pop()
            continue
        path = os.path.join(directory, name)
        if excluded(path):
            continue
        try:
            st = os.stat(path)
        except OSError as err:
            if name.endswith(".cu") or err.errno == errno.ELOOP:
                yield Entry(path, _stat_problem(path, err))
            continue
        key = (st.st_dev, st.st_ino)
        if stat.S_ISDIR(st.st_mode):
            if name.endswith(".cu"):
                yield Entry(path, _not_regular(path, st.st_mode))
            if key in ancestors:
                loop = "a symlink loop: it leads back to a directory above it"
                yield Entry(path, problem(UNREADABLE_INPUT, path, loop))
                continue
            listing = _listing(path)
            if isinstance(listing, Entry):
                yield listing
            else:
                stack.append((iter(listing), path, ancestors | {key}))
        elif name.endswith(".cu"):
            if not stat.S_ISREG(st.st_mode):
                yield Entry(path, _not_regular(path, st.st_mode))
            elif key not in seen:
                seen.add(key)
                yield Entry(path)


def _listing(directory: str) -> list[str] | Entry:
    try:
        return sorted(os.listdir(directory), key=natural_key)
    except OSError as err:
        return Entry(directory, _stat_problem(directory, err))
