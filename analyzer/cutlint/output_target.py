"""Where `-o/--output-file` may write, and how: a regular file, written whole or not at all.
Every file cutlint writes goes this way: the report (`-o`), a baseline (`--write-baseline`),
FlashInfer's blocklist (`pregen flashinfer --emit-blocklist`) and the generator's exclusion
(`pregen cutlass-library --write-ignore`), each through `write_text`.

What is refused, before a byte is written, each with one line that says why (exit 2):

- a file that is one of the checked inputs (the same file, by device and inode, whatever the
  name or link that reaches it): `cutlint check gen/ -o gen/x.cu` would replace a source with the
  report;
- anything that is not a regular file: a FIFO (opening one for writing blocks until a reader
  comes: the run would hang), a socket, a device (`/dev/full` fails every write), a directory.
  `/dev/null` is the one device taken, as every tool takes it: writing there discards;
- a path in `/proc` or `/sys`: their files look regular and are not (`/proc/self/mem`).

What is written goes to a temporary file beside the target, renamed over it when complete
(rename is atomic within a file system, POSIX rename(2)): a run that fails or is interrupted
half-way leaves the previous report, not half a new one. A link named by `-o` is followed: the
file it points to is replaced, and the link stays.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

_PSEUDO_FILE_SYSTEMS = ("/proc", "/sys")


class OutputError(Exception):
    """An output path that cannot be written as asked; the message names it and says why."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe): opening it would wait for a reader"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def check(path: Path, inputs: Iterable[str] = (), what: str = "the report") -> Path:
    """The file to write for `-o path` (links resolved), or OutputError saying why not."""
    text = os.fspath(path)
    try:
        real = os.path.realpath(text)
    except (OSError, ValueError) as err:
        raise OutputError(f"{text}: cannot write: {err}") from None
    if real == os.devnull:
        return Path(real)
    if any(real == p or real.startswith(p + os.sep) for p in _PSEUDO_FILE_SYSTEMS):
        raise OutputError(
            f"{text}: cannot write: {real.split(os.sep)[1]} is a kernel interface, not a place "
            "for a report"
        )
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as err:
        raise OutputError(
            f"{text}: cannot write: {getattr(err, 'strerror', None) or err}"
        ) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{text}: cannot write: it is {_kind(st.st_mode)}")
    if st is not None:
        target = (st.st_dev, st.st_ino)
        for given in inputs:
            if _identity(given) == target:
                raise OutputError(
                    f"{text}: refusing to write {what} over {given}, one of the checked inputs"
                )
    return Path(real)


@contextlib.contextmanager
def opened(path: Path, inputs: Iterable[str] = (), what: str = "the report") -> Iterator[TextIO]:
    """A text stream whose content replaces `path` when the block ends without an exception."""
    target = check(path, inputs, what)
    if str(target) == os.devnull:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            yield sink
        return
    directory = target.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name[:100]}.", dir=directory)
    except OSError as err:
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
        with contextlib.suppress(OSError):
            # mkstemp makes the file 0600; a report is read by others as any file the user
            # writes (the umask decides), or keeps the mode of the report it replaces.
            mode = os.stat(target).st_mode if target.exists() else 0o666 & ~_umask()
            os.chmod(temporary, stat.S_IMODE(mode))
        os.replace(temporary, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: Path, text: str, inputs: Iterable[str] = (), what: str = "the report") -> None:
    """Replace `path` with `text`, whole or not at all, refusing what `check` refuses."""
    with opened(path, inputs, what) as out:
        out.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
