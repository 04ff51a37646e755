"""The translation-unit front end: a `.cu` read with its build's flags by libclang, and every
CUTLASS kernel it instantiates, with the dispatch path that selects it (`cutlint tu`)."""

from __future__ import annotations

from cutlint.parse.tu.command import from_compile_commands, from_flags
from cutlint.parse.tu.front import FrontEndError, read_tu

__all__ = ["FrontEndError", "from_compile_commands", "from_flags", "read_tu"]
