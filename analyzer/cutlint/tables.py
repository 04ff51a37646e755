"""cutlint's data tables (TOML files shipped in the package) read through a JSON copy kept in the
cache: tomllib is pure Python, and a one-file check reads five or six tables (the arches, the
family's, the release's section of releases.toml, ...): 7-15 ms of its start-up on the 2-core
machine, where json's C decoder reads the same data in well under a millisecond.

    $CUTLINT_CACHE/tables/<blake2b of the TOML text>.json

The copy is named by the text it was made from, so an edited table is another file and never
answers for the old one. It is data, never trusted past that: one that does not decode to a
table is ignored (and written again), a table JSON cannot hold (a TOML date) is not kept, and
with the cache off (`CUTLINT_NO_CACHE`) nothing is read or written."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cutlint import inputs
from cutlint.cache_dir import ENV_OFF, cache_dir

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def data_file(package: str, name: str) -> Path:
    """`data/<name>` in `package`'s directory, as the import system found it: the file that
    importlib.resources.files(package) names for a package on the file system, as cutlint's
    are, without its first call's imports and set-up (8-20 ms of a one-file check on the 2-core
    machine, which reads four such tables)."""
    return Path(next(iter(importlib.import_module(package).__path__))) / "data" / name


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, from its kept JSON copy where there is one."""
    if os.environ.get(ENV_OFF):
        return _parsed(text)
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    kept = cache_dir() / "tables" / f"{key}.json"
    try:
        table = json.loads(kept.read_bytes())
    except (OSError, ValueError):
        table = None
    if isinstance(table, dict):
        return table
    parsed = _parsed(text)
    try:
        copy = json.dumps(parsed).encode("ascii")  # every string escaped: any text round-trips
    except (TypeError, ValueError):  # a date or time: JSON has none, so it is parsed each time
        return parsed
    inputs.write_atomically(kept, copy)
    return parsed


def _parsed(text: str) -> dict[str, Any]:
    # tomllib is imported only where no copy answers: its import (it compiles its regular
    # expressions) was 8 ms of a one-file check on the 2-core machine, which needs no TOML
    import tomllib

    return tomllib.loads(text)


def load(file: Path | Traversable) -> dict[str, Any]:
    """`tomllib.load` of the TOML file `file` (its bytes as UTF-8, as tomllib reads them)."""
    return loads(file.read_bytes().decode())


__all__ = ["data_file", "load", "loads"]
