"""`parse_paths`: expand the inputs, parse the files in worker processes, keep the input order."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from cutlint.parse import pool, walk
from cutlint.parse.defines import DEFAULT_DEFINES, Job, command_line
from cutlint.records import ParsedFile

MAX_DEFAULT_JOBS = 2
"""Workers when the caller does not say: each holds a libclang (~40 MB resident), and the
files are small, so two keep up with the rest of the pipeline."""


def parse_paths(
    paths: Sequence[Path | str],
    defines: Mapping[str, str] = DEFAULT_DEFINES,
    undefines: Sequence[str] = (),
    jobs: int | None = None,
    limits: pool.Limits = pool.DEFAULT_LIMITS,
    exclude: Sequence[str] = (),
) -> list[ParsedFile]:
    """One ParsedFile per input file, in input order (directories: their `*.cu`, in natural
    order, less the files and directories an `exclude` glob matches).

    `jobs`: worker processes; None for min(2, CPUs); 0 parses in this process, without the
    protection against libclang crashes (for debugging). Raises ValueError for a define that is
    no macro name or whose value holds a control character (defines.define_problem).
    """
    if isinstance(paths, str | Path):
        paths = [paths]  # a str is a Sequence[str] too: one path, not one per character
    command_line(defines, undefines)  # ValueError now, for a define it would refuse
    entries = walk.expand(paths, exclude)
    files = [e.path for e in entries if e.problem is None]
    job = Job(defines=dict(defines), undefines=tuple(undefines), named=walk.named_files(paths))
    if jobs is None:
        jobs = min(MAX_DEFAULT_JOBS, os.cpu_count() or 1)
    if jobs <= 0:
        from cutlint.parse.worker import parse_file

        parsed = [parse_file(f, job) for f in files]
    else:
        parsed = pool.run(files, job, jobs, limits)
    by_order = iter(parsed)
    return [
        ParsedFile(path=e.path, problems=(e.problem,)) if e.problem is not None else next(by_order)
        for e in entries
    ]
