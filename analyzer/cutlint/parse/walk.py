"""Expand the paths given on the command line into the files to parse, in a fixed order.

A file given by name is parsed whatever its name; a directory contributes every `*.cu` below it,
and every `.cuh`/`.h`/`.hpp` (a header that holds no kernel is skipped by the parser), in sorted
order, leaving out a vendored CUTLASS or CCCL tree found inside it (`sources/kernel_headers.py`). Nothing here raises: a missing path, a directory that cannot be listed, a `*.cu`
that is a directory or a FIFO (reading one would block the run), a symlink loop, all become a
CUT001 entry in place, so the output still has one entry per input in a predictable order.

One file reached twice is parsed once, under the name that reaches it without a symlink: a link
named so that it sorts first (`a_link.cu -> real.cu`) must not take the real file's entry, or its
fingerprints, which are made from the path. Identity is the file's real path, not its inode: two
hard links are two names a build compiles separately, so each keeps its own entry and its own
fingerprints. Directories are listed and stat'ed through `cutlint.inputs`, so a tree deeper than
PATH_MAX is walked like any other.
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

from cutlint import inputs
from cutlint.parse.problems import NO_INSTANTIATIONS, UNREADABLE_INPUT, problem
from cutlint.records import InputProblem
from cutlint.sources import kernel_headers


@dataclass(frozen=True)
class Entry:
    path: str
    problem: InputProblem | None = None
    """Set when the path cannot be parsed at all; None for a regular file to parse."""
    real: str = ""
    """The file's real path (links resolved): its identity."""
    via_link: bool = False
    """Whether a symlink lies on the way from what was named to the file."""


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
        why = f"cannot be read: {err.strerror or type(err).__name__}"
    return problem(UNREADABLE_INPUT, path, why)


def _not_regular(path: str, mode: int) -> InputProblem:
    if stat.S_ISDIR(mode):
        why = "is a directory named like a source file (its contents are checked)"
    else:
        why = "is not a regular file (a FIFO, socket or device), so it is not read"
    return problem(UNREADABLE_INPUT, path, why)


def _realpath(path: str) -> str:
    """The path with every symlink resolved; never raises (a loop is left as it is)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def natural_key(name: str) -> str:
    """`group10` after `group2`: ASCII digit runs compare as numbers, the rest as text (`²` or
    `६४` in a name is text: `str.isdigit()` accepts them and `int()` refuses some). One string
    that sorts as the tuple of runs would, `(-1, text)` or `(number, "")` each, where a text run is
    `\\x01 text \\x00` (a text before a number, a shorter text before a longer one that starts the
    same) and a number `\\x02`, its count of digits, its digits (leading zeros left out: `01`
    ties with `1`). Compared as one string, a sort of a 100a build's 27,680 names took half the
    time of the tuples."""
    # split() on a captured group alternates text and digit runs: the odd parts are the runs
    parts = _DIGITS.split(name)
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            digits = p.lstrip("0")
            out.append(f"\x02{chr(0x30 + len(digits))}{digits}")
        elif p:
            out.append(f"\x01{p}\x00")
    return "".join(out)


_DIGITS = re.compile(r"([0-9]+)")


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
    excluded = Exclude(tuple(exclude))
    real_dirs: dict[str, str] = {}
    for given in paths:
        path = str(given)
        try:
            st = inputs.stat_path(path)
        except OSError as err:
            out.append(Entry(path, _stat_problem(path, err)))
            continue
        if stat.S_ISDIR(st.st_mode):
            if path.rstrip(os.sep).endswith(".cu"):
                out.append(Entry(path, _not_regular(path, st.st_mode)))  # and walked all the same
            found = list(_walk(path, st, excluded))
            if not found:
                # A directory with no source at all is said out loud: `cutlint check wrong/dir`
                # must not pass in silence.
                found = [
                    Entry(
                        path,
                        problem(NO_INSTANTIATIONS, path, "no `*.cu` or header in this directory"),
                    )
                ]
            out.extend(found)
        elif not stat.S_ISREG(st.st_mode):
            out.append(Entry(path, _not_regular(path, st.st_mode)))
        else:
            link = inputs.is_link(path)
            out.append(Entry(path, real=_real_named(path, link, real_dirs), via_link=link))
    return _once(out)


def _real_named(path: str, link: bool, real_dirs: dict[str, str]) -> str:
    """`_realpath(path)` of a file named on the command line, its directory resolved once per
    directory (`real_dirs`, one expand's: a list of thousands of files of a few directories
    lstat'ed every component of each). A file that is no symlink is its real directory joined
    with its name, as realpath resolves a path component by component; `is_link` is False also
    where the file cannot be lstat'ed, and realpath then keeps the name as it is too."""
    if link:
        return _realpath(path)
    head, name = os.path.split(os.path.abspath(path))
    if not name:
        return _realpath(path)
    real = real_dirs.get(head)
    if real is None:
        real = real_dirs[head] = _realpath(head)
    return os.path.join(real, name)


def _once(entries: list[Entry]) -> list[Entry]:
    """Each real file once, under the first name that reaches it without a link (else the
    first name), at that name's place in the order."""
    keep: dict[str, int] = {}
    for i, e in enumerate(entries):
        if e.problem is not None:
            continue
        held = keep.get(e.real)
        if held is None or (entries[held].via_link and not e.via_link):
            keep[e.real] = i
    kept = set(keep.values())
    return [e for i, e in enumerate(entries) if e.problem is not None or i in kept]


@dataclass
class _Frame:
    names: Iterator[tuple[str, bool]]
    """Its names, each with whether it is a symlink."""
    directory: str
    real: str
    key: tuple[int, int]
    """(st_dev, st_ino) of the directory: removed from the ancestors when the frame is done."""


def _walk(root: str, root_st: os.stat_result, excluded: Exclude) -> Iterator[Entry]:
    """Depth-first in name order, iterative (a deep tree must not hit the recursion limit).

    A symlink to a directory below the root is not entered, as ripgrep and ruff's walker do not
    by default: one that leads inside the tree would list its files a second time (thirty
    directories with five links each to others made the paths explode), one that leads out of it
    (`x -> /`, `x -> /proc`) would walk the whole file system. Name the target on the command
    line to check it. A link back to a directory above it is reported as a loop (CUT001), since
    the tree then has no end for any tool that follows links. The ancestors are a set kept as the
    walk goes down and up, so each level costs the same however deep the tree is.
    """
    listing = _listing(root)
    if isinstance(listing, Entry):
        yield listing
        return
    root_key = (root_st.st_dev, root_st.st_ino)
    stack = [_Frame(iter(listing), root, _realpath(root), root_key)]
    # A CUTLASS or CCCL tree inside the tree checked is theirs, not the project's: left out. One named
    # on the command line is what the user asked for.
    leave_vendored = not kernel_headers.vendored_library(root)
    ancestors = {root_key}
    while stack:
        frame = stack[-1]
        listed = next(frame.names, None)
        if listed is None:
            stack.pop()
            ancestors.discard(frame.key)
            continue
        name, link = listed
        path = os.path.join(frame.directory, name)
        if excluded(path):
            continue
        try:
            st = inputs.stat_path(path)
        except OSError as err:
            # A dangling link that is no source is nothing; anything else may hide sources.
            if name.endswith(".cu") or err.errno != errno.ENOENT:
                yield Entry(path, _stat_problem(path, err))
            continue
        real = _realpath(path) if link else os.path.join(frame.real, name)
        if real == path:  # one string, not two equal ones, for a file named by its real path
            real = path
        if stat.S_ISDIR(st.st_mode):
            if name.endswith(".cu"):
                yield Entry(path, _not_regular(path, st.st_mode))
            key = (st.st_dev, st.st_ino)
            if key in ancestors:
                loop = "a symlink loop: it leads back to a directory above it"
                yield Entry(path, problem(UNREADABLE_INPUT, path, loop))
                continue
            if link:
                continue  # see the docstring: not entered
            if leave_vendored and kernel_headers.vendored_library(path):
                continue
            listing = _listing(path)
            if isinstance(listing, Entry):
                yield listing
            else:
                stack.append(_Frame(iter(listing), path, real, key))
                ancestors.add(key)
        elif kernel_headers.is_source(name):
            if not stat.S_ISREG(st.st_mode):
                yield Entry(path, _not_regular(path, st.st_mode))
            else:
                yield Entry(path, real=real, via_link=link)


def _listing(directory: str) -> list[tuple[str, bool]] | Entry:
    """The directory's names in natural order, each with whether it is a symlink."""
    try:
        return sorted(inputs.listdir_links(directory), key=lambda listed: natural_key(listed[0]))
    except OSError as err:
        return Entry(directory, _stat_problem(directory, err))


def named_files(paths: Sequence[str | Path]) -> frozenset[str]:
    """The paths named one by one (not found in a directory), as `expand` spells their entries."""
    return frozenset(str(p) for p in paths if not os.path.isdir(p))
