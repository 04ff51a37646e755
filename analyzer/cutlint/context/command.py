"""A compile command read as the compiler reads it: include path, defines, targets."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from cutlint.build_context import Target
from cutlint.context.targets import parse_targets


class CompileCommand(BaseModel):
    """One translation unit's command, and the file or flag it was read from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    where: str = Field(description="compile_commands.json, build.ninja, or --compile-command")
    directory: str = Field(description="the directory relative paths are resolved from")
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = Field(default=(), description="-D names, in order")
    undefines: tuple[str, ...] = ()
    targets: tuple[Target, ...] = ()


_INCLUDE = ("-I", "-isystem", "-iquote", "-idirafter", "--include-path")
_DEFINE = ("-D", "--define-macro")
_UNDEFINE = ("-U", "--undefine-macro")


def _flag(argv: Sequence[str], i: int, flags: tuple[str, ...]) -> tuple[str | None, int]:
    """The value of one of `flags` at argv[i] (`-Ix`, `-I x`, `--flag=x`) and the next index."""
    a = argv[i]
    for f in flags:
        if a == f:
            return (argv[i + 1], i + 2) if i + 1 < len(argv) else (None, i + 1)
        if f.startswith("--") and a.startswith(f + "="):
            return a[len(f) + 1 :], i + 1
        if not f.startswith("--") and a.startswith(f) and len(a) > len(f):
            return a[len(f) :].removeprefix("="), i + 1
    return None, i


def parse_command(args: Sequence[str] | str, where: str, directory: str) -> CompileCommand:
    """Read an nvcc (or clang/gcc) argument list; relative include dirs resolve from `directory`."""
    argv = shlex.split(args) if isinstance(args, str) else list(args)
    found: dict[tuple[str, ...], list[str]] = {_INCLUDE: [], _DEFINE: [], _UNDEFINE: []}
    i = 0
    while i < len(argv):
        for flags, values in found.items():
            value, j = _flag(argv, i, flags)
            if j != i:
                if value is not None:
                    values.append(value)
                i = j
                break
        else:
            i += 1
    includes = found[_INCLUDE]
    defines = [d.split("=", 1)[0] for d in found[_DEFINE]]
    undefines = found[_UNDEFINE]
    base = Path(directory)
    return CompileCommand(
        where=where,
        directory=directory,
        include_dirs=tuple(str(base / d) if not Path(d).is_absolute() else d for d in includes),
        defines=tuple(dict.fromkeys(defines)),
        undefines=tuple(dict.fromkeys(undefines)),
        targets=parse_targets(argv),
    )
