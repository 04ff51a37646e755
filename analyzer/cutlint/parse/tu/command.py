"""A translation unit's compile command, as libclang's CUDA host pass takes it.

nvcc's and clang's spellings both come in (a `compile_commands.json` entry, a `-gencode` list,
or flags a user types); what reaches libclang is the part that decides the kernel types: include
directories, defines, the language standard and forced includes. The device targets are kept
apart: the kernel types and their `SharedStorage` are those of the host pass, which is what
`GemmUniversalAdapter::initialize()` hands to `cudaFuncSetAttribute`, and the target only picks
the opt-in limit they are judged against (and the `--cuda-gpu-arch` the host pass is parsed for).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cutlint.tu_records import CompileCommand

# Flags whose value is the next argument (or joined): kept as they are.
_KEPT_WITH_VALUE = ("-I", "-isystem", "-D", "-U", "-include", "-iquote", "-idirafter")
_LONG_NVCC = {
    "--include-path": "-I",
    "--system-include": "-isystem",
    "--define-macro": "-D",
    "--undefine-macro": "-U",
    "--pre-include": "-include",
}
# `sm_120a`, `compute_120a`, `120a`, `sm_100f`: the target in any of nvcc's and clang's spellings.
_TARGET = re.compile(r"(?:sm_|compute_)?(\d{2,3}[af]?)$")
_CODE = re.compile(r"code=\[?([^\]]+)\]?")


def _target(text: str) -> str | None:
    m = _TARGET.match(text.strip())
    return f"sm_{m.group(1)}" if m else None


def _gencode_targets(value: str) -> list[str]:
    """`arch=compute_120a,code=[sm_120a,compute_120a]` -> the real targets (sm_120a)."""
    m = _CODE.search(value)
    codes = m.group(1).split(",") if m else [value.split("arch=")[-1].split(",")[0]]
    out = [_target(c) for c in codes if c.strip().startswith("sm_") or not m]
    return [t for t in out if t is not None]


def normalize(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(clang flags that decide the types, device targets) from an nvcc or clang command line.

    Everything else (optimization, code generation, warnings, `-o`, the compiler itself) is
    dropped: it does not change a type's layout.
    """
    flags: list[str] = []
    arches: list[str] = []
    it = iter(argv)
    for arg in it:
        name, eq, value = arg.partition("=")
        if name in _LONG_NVCC:
            flags += [_LONG_NVCC[name], value if eq else next(it, "")]
            continue
        if name in ("-gencode", "--generate-code"):
            arches += _gencode_targets(value if eq else next(it, ""))
            continue
        if name in ("-arch", "--gpu-architecture", "--cuda-gpu-arch", "--offload-arch"):
            t = _target(value if eq else next(it, ""))
            arches += [t] if t else []
            continue
        if name.startswith("-std"):
            flags.append(f"-std={value}" if eq else arg)
            continue
        for flag in _KEPT_WITH_VALUE:
            if arg == flag:
                flags += [flag, next(it, "")]
                break
            if arg.startswith(flag) and flag in ("-I", "-D", "-U"):
                flags.append(arg)
                break
    return flags, list(dict.fromkeys(arches))


def from_flags(file: Path, argv: Sequence[str], origin: str = "flags") -> CompileCommand:
    flags, arches = normalize(argv)
    return CompileCommand(
        file=str(file.resolve()), args=tuple(flags), arches=tuple(arches), origin=origin
    )


def from_compile_commands(database: Path, file: Path) -> CompileCommand | None:
    """The entry for `file` in a `compile_commands.json` (CMake's, with
    `-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`), or None when the database does not list it.

    With `CompileDatabase`, which reads one for many files, the one place cutlint reads a
    compile database for a TU: a build-context resolver can take its place without the front
    end noticing.
    """
    return CompileDatabase(database).command(file)


class CompileDatabase:
    """A `compile_commands.json` read once, its entries by their files' real paths: what
    `check -p` asks of every checked file (reading the database again for each, and resolving
    every entry's path each time, made that quadratic: hours for a cutlass_library build).
    Raises OSError, ValueError or KeyError when the database cannot be read."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._entries: dict[Path, dict[str, Any]] = {}
        for entry in json.loads(database.read_text()):
            directory = Path(entry.get("directory", "."))
            path = Path(entry["file"])
            path = path if path.is_absolute() else directory / path
            self._entries.setdefault(path.resolve(), entry)  # the first entry of a file

    def command(self, file: Path) -> CompileCommand | None:
        """`file`'s compile command, or None when the database does not list it. Raises
        ValueError when its command line does not split (unbalanced quotes)."""
        entry = self._entries.get(file.resolve())
        if entry is None:
            return None
        directory = Path(entry.get("directory", "."))
        argv = entry.get("arguments") or shlex.split(entry["command"])
        # Relative include directories are relative to the entry's directory.
        absolute = [_absolute(a, directory) for a in argv[1:]]
        return from_flags(file, absolute, origin=str(self.database))


def _absolute(arg: str, directory: Path) -> str:
    if arg.startswith("-I") and len(arg) > 2 and not arg[2:].startswith("/"):
        return f"-I{directory / arg[2:]}"
    return arg


__all__ = ["CompileDatabase", "from_compile_commands", "from_flags", "normalize"]
