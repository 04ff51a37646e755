"""The front end's results, kept by content and flags: a second read of an unchanged TU is a
file read, not a parse.

The key hashes what decides the result before any file is opened: the compile command, the
target, the main file's bytes and the libclang release. An entry also lists every file the TU
included with its size and modification time; it is used only while all of them are unchanged,
so an edited CUTLASS header or `*_dispatch.cuh` invalidates it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from cutlint.cache_dir import cache_dir
from cutlint.parse.tu.toolkit import libclang_version
from cutlint.tu_records import CompileCommand, TuRead

FORMAT = 3
"""Bumped when the front end's output changes for the same input."""


def _dir() -> Path:
    return cache_dir() / "tu"


@functools.cache
def front_end() -> str:
    """A digest of the front end's own sources and data (this package): an entry read by an
    earlier front end (a development checkout keeps one version number) is another key, so a
    fixed reading is never answered by a stale one."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for p in sorted(here.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".h", ".toml", ".json"):
            h.update(p.relative_to(here).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def key(command: CompileCommand, arch: str) -> str:
    h = hashlib.sha256()
    h.update(
        json.dumps(
            [FORMAT, command.file, command.args, arch, libclang_version(), front_end()]
        ).encode()
    )
    try:
        h.update(Path(command.file).read_bytes())
    except OSError:
        pass
    return h.hexdigest()[:32]


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def load(entry_key: str) -> TuRead | None:
    path = _dir() / f"{entry_key}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if data.get("format") != FORMAT:
        return None
    for dep, stamp in data["deps"]:
        if _stamp(dep) != stamp:
            return None
    read = TuRead.model_validate(data["read"])
    return read.model_copy(update={"cached": True, "seconds": 0.0})


def store(entry_key: str, read: TuRead, deps: Sequence[str]) -> None:
    directory = _dir()
    directory.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "deps": [[d, _stamp(d)] for d in deps],
        "read": read.model_dump(mode="json"),
    }
    tmp = directory / f"{entry_key}.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(data))
    tmp.replace(directory / f"{entry_key}.json")


__all__ = ["key", "load", "store"]
