"""The parse stage: CUTLASS instantiation sources -> `ParsedFile` records.

    parse_paths(paths)            files and directories; libclang runs in worker processes
    parse_source(path, text)      one file's bytes, in this process (tests, editors)

Nothing here knows about arches or shared memory: the records say what is written in the files,
under which `#if`, and what could not be read (CUT001-CUT007, see `problems`). Importing this
package does not load libclang; the first file with an `#if` does, in the process parsing it.
"""

from cutlint.parse.extract import DEFAULT_DEFINES, parse_source
from cutlint.parse.paths import parse_paths
from cutlint.parse.pool import DEFAULT_LIMITS, Limits
from cutlint.parse.problems import PROBLEM_NAMES

__all__ = [
    "DEFAULT_DEFINES",
    "DEFAULT_LIMITS",
    "PROBLEM_NAMES",
    "Limits",
    "parse_paths",
    "parse_source",
]
