"""The parse stage: CUTLASS instantiation sources -> `ParsedFile` records.

    parse_paths(paths)            files and directories; libclang runs in worker processes
    parse_source(path, text)      one file's bytes, in this process (tests, editors)

Nothing here knows about arches or shared memory: the records say what is written in the files,
under which `#if`, and what could not be read (CUT001-CUT007, see `problems`). Importing this
package does not load libclang; the first file with an `#if` does, in the process parsing it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cutlint.parse.defines import DEFAULT_DEFINES
    from cutlint.parse.extract import parse_source
    from cutlint.parse.paths import parse_paths
    from cutlint.parse.pool import DEFAULT_LIMITS, Limits
    from cutlint.parse.problems import PROBLEM_NAMES

# Resolved on first use (PEP 562): importing a submodule (`cutlint.parse.cachepath`) does not
# import the parser and the records.
_WHERE = {
    "DEFAULT_DEFINES": "cutlint.parse.defines",
    "parse_source": "cutlint.parse.extract",
    "parse_paths": "cutlint.parse.paths",
    "DEFAULT_LIMITS": "cutlint.parse.pool",
    "Limits": "cutlint.parse.pool",
    "PROBLEM_NAMES": "cutlint.parse.problems",
}


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


__all__ = [
    "DEFAULT_DEFINES",
    "DEFAULT_LIMITS",
    "PROBLEM_NAMES",
    "Limits",
    "parse_paths",
    "parse_source",
]
