"""The translation-unit front end: a `.cu` read with its build's flags by libclang, and every
CUTLASS kernel it instantiates, with the dispatch path that selects it (`cutlint tu`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cutlint.parse.tu.command import from_compile_commands, from_flags
    from cutlint.parse.tu.front import FrontEndError, read_tu

# Resolved on first use (PEP 562): a check that asks only which CUDA toolkit is here
# (`cutlint.parse.tu.toolkit`, context/arch_macros.py) does not import the front end.
_WHERE = {
    "FrontEndError": "cutlint.parse.tu.front",
    "read_tu": "cutlint.parse.tu.front",
    "from_compile_commands": "cutlint.parse.tu.command",
    "from_flags": "cutlint.parse.tu.command",
}


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


__all__ = ["FrontEndError", "from_compile_commands", "from_flags", "read_tu"]
