"""What a file is parsed with: the define set, checked before any parser process sees it.

Light on purpose (no libclang, no records): the parent process imports this to check the
user's -D/-U and to describe a run's job, while the parser itself (libclang, the scanners)
is imported in the worker processes only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cutlint.records import ParsedFile

DEFAULT_DEFINES: Mapping[str, str] = MappingProxyType(
    {"ENABLE_FP4": "1", "ENABLE_FP8": "1", "ENABLE_BF16": "1"}
)
"""What FlashInfer compiles the generated files with: `-DENABLE_BF16 -DENABLE_FP8 -DENABLE_FP4`
in flashinfer/jit/fused_moe.py (`gen_cutlass_fused_moe_sm120_module` and its siblings).
Read-only, so that no caller changes everyone's default."""


class Stage(Protocol):
    """A job's later stage (`Job.then`): what becomes of a parsed file. `note`: what the run's
    parent said of the file when it sent it (pool.stream's `notes`), or None."""

    def __call__(self, parsed: ParsedFile, note: object = None) -> object: ...


@dataclass(frozen=True)
class Job:
    """What every file of a run is parsed with."""

    defines: Mapping[str, str]
    undefines: Sequence[str]
    then: Stage | None = None
    """A later stage the worker runs on each file it parsed, sending back its output instead
    (the engine's judge: judging on every core, not on the parent's alone). Pickled with each
    batch by reference to its module, so the parse stage imports nothing of it. An equal one
    is kept across batches, so a stage may memoize (the judge's memo)."""
    named: frozenset[str] = frozenset()
    """The files the user named one by one: a header among them is read even when it holds no
    kernel (its `#error`, its "no instantiations"), where a header found in a directory walk
    that holds none is skipped (sources/kernel_headers.py)."""


SECONDS_PER_FILE = 20.0
"""The CPU time one file may take in a parser worker before it is stopped (CUT007), unless the
run says otherwise (`--parse-timeout`; parse/pool.py `Limits`). Here, so that a run's options
have their default without importing the pool (multiprocessing)."""


def in_process(jobs: int | None) -> bool:
    """Whether a run parses its files in this process: only when asked (`--jobs 0`). A pool costs
    a fork, `multiprocessing` and each file's trip through JSON (30-40 ms of CPU of a one-file
    check's ~0.5 s on the 2-core machine), but a file parsed in this process has no time or
    memory limit and a libclang crash ends the run: the worker is what turns a pathological
    file into CUT007 instead of a hang or a traceback, so one file gets one too."""
    return jobs is not None and jobs <= 0


READY = "ready"
"""What a parser worker sends once it is set up (its limits set, the parser imported): here, with
the Job, so that the worker (parse/worker.py) and its pool (parse/pool.py) share it without
importing each other."""


# Parsed as C++17 host code, as nvcc's host pass sees these files, with no header search path:
# the headers are not needed and a missing one must not change what is found.
_BASE_ARGS = ("-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-w")


_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def define_problem(name: str, value: str | None = None) -> str | None:
    """Why `-D name=value` (or `-U name`) cannot be given to the preprocessor, or None.

    libclang turns `-DNAME=VALUE` into the line `#define NAME VALUE` of its predefines buffer, so
    a newline in either would add directives of the user's choosing (`#include "/dev/zero"`); a
    name must be an identifier ([cpp.replace]) and a value one line of printable text."""
    if not _MACRO_NAME.fullmatch(name):
        return f"macro name {name!r} is not an identifier (letters, digits and _)"
    if value is not None and any(not c.isprintable() for c in value):
        return f"the value of {name} holds a control character (a newline, a tab, ...): {value!r}"
    return None


def command_line(defines: Mapping[str, str], undefines: Sequence[str]) -> list[str]:
    """libclang's arguments for a define set. Raises ValueError for a define `define_problem`
    refuses (callers check first and say so in their own words)."""
    for name, value in defines.items():
        why = define_problem(name, value)
        if why is not None:
            raise ValueError(why)
    for name in undefines:
        why = define_problem(name)
        if why is not None:
            raise ValueError(why)
    args = list(_BASE_ARGS)
    args += [f"-D{name}={value}" for name, value in defines.items()]
    args += [f"-U{name}" for name in undefines]  # after the -D's, so an undefine wins
    return args
