"""Where a build says how it compiles a file: `compile_commands.json` (CMake's
`CMAKE_EXPORT_COMPILE_COMMANDS`, Bear; the JSON Compilation Database format clang-tidy reads with
`-p BUILD_DIR`) and FlashInfer's JIT build files.

FlashInfer's JIT writes a module's sources to `<ws>/<version>/<archdir>/generated/<module>/` and
its build file to `<ws>/<version>/<archdir>/cached_ops/<module>/build.ninja` (flashinfer/jit/
core.py `JitSpec.ninja_path`; flashinfer/jit/env.py `FLASHINFER_GEN_SRC_DIR`, `FLASHINFER_JIT_DIR`),
written by flashinfer/jit/cpp_ext.py `generate_ninja_build_for_op`: top-level `cuda_cflags = ...`
(with `$`-newline continuations) and a `build <obj>: cuda_compile <source>` line per source, a
source's own `cuda_cflags` indented under it when it has them. The fused-MoE module's generated
files lie in `generated/cutlass_instantiations/<dev>/` while its module directory is
`fused_moe_<dev>` (flashinfer/jit/fused_moe.py), so a file is matched by the `build` lines that
name it, whichever module directory holds them.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from cutlint import inputs
from cutlint.context.command import CompileCommand, parse_command

COMPILE_COMMANDS = "compile_commands.json"
BUILD_FILE = inputs.Limit("build file", 1 << 30, seconds=300.0)
"""A whole project's compile_commands.json (TensorRT-LLM's) is hundreds of MB."""


@cache
def _database(path: Path) -> dict[str, tuple[str, tuple[str, ...] | str]]:
    """compile_commands.json: absolute source path -> (directory, arguments or command). An
    argument list is kept with its own source and object file named by placeholders
    (`_shared`), so that the many entries of one build share one list and one reading."""
    entries = inputs.load_json(path, BUILD_FILE)
    out: dict[str, tuple[str, tuple[str, ...] | str]] = {}
    if not isinstance(entries, list):
        return out
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("file"), str):
            continue
        directory = str(e.get("directory", path.parent))
        args = e.get("arguments")
        cmd: tuple[str, ...] | str | None = (
            _shared([str(a) for a in args], e["file"])
            if isinstance(args, list)
            else e.get("command")
        )
        if cmd is None:
            continue
        source = os.path.normpath(os.path.join(directory, e["file"]))
        out[source] = (directory, cmd)
    return out


def from_database(build_dir: Path, source: str) -> CompileCommand | None:
    """The command `build_dir/compile_commands.json` holds for `source`, if any."""
    db = build_dir / COMPILE_COMMANDS if is_dir(build_dir) else build_dir
    try:
        entries = _database(db)
    except (inputs.InputError, OSError):
        return None
    entry = entries.get(os.path.normpath(os.path.abspath(source)))
    if entry is None:
        return None
    directory, cmd = entry
    return _parsed(cmd, f"{db}", directory)


SOURCE, OBJECT = "\0source", "\0object"
"""What an argument list holds in place of its own source and `-o` object file."""


def _shared(argv: list[str], source: str) -> tuple[str, ...]:
    """`argv` with the entry's source file and its `-o` object file as placeholders: both are
    positional to what parse_command reads (includes, defines, targets), and they are what sets
    one entry's list apart from the next (a cutlass_library build has one entry per kernel,
    27,000 for 100a). An argument that a flag before it takes as its value is left as it is."""
    out = list(argv)
    for i, a in enumerate(argv):
        if a.startswith("-") or i == 0:
            continue
        before = argv[i - 1]
        if before == "-o":
            out[i] = OBJECT
        elif a == source and (before == "-c" or not before.startswith("-")):
            out[i] = SOURCE
    return tuple(out)


@cache
def _parsed(command: tuple[str, ...] | str, where: str, directory: str) -> CompileCommand:
    """A module's files share one command line: read it once."""
    return parse_command(command, where, directory)


_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w.-]*)\s*=\s?(.*)$")
_BUILD = re.compile(r"^build\s+(.+?):\s*(\S+)\s+(.*)$")
_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)|\$\$|\$ |\$:")


def _logical_lines(text: str) -> list[str]:
    """Ninja lines with `$`-newline continuations joined."""
    return re.sub(r"\$\n\s*", "", text).splitlines()


def _expand(value: str, scope: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m[1] or m[2]
        if name:
            return scope.get(name, "")
        return m[0][1:]

    return _VAR.sub(sub, value)


@cache
def _ninja(path: Path) -> dict[str, str]:
    """build.ninja: absolute source path -> its expanded `cuda_cflags` (the nvcc flags)."""
    text = inputs.read_bytes(path, BUILD_FILE).decode("utf-8", "replace")
    scope: dict[str, str] = {}
    out: dict[str, str] = {}
    current: str | None = None
    for line in _logical_lines(text):
        b = _BUILD.match(line)
        if b:
            current = None
            if b[2] == "cuda_compile":
                current = os.path.normpath(_expand(b[3].split(" | ")[0].strip(), scope))
                out[current] = scope.get("cuda_cflags", "")
            continue
        a = _ASSIGN.match(line)
        if not a:
            continue
        indented, name, value = bool(a[1]), a[2], a[3]
        if indented:
            if current is not None and name == "cuda_cflags":
                out[current] = _expand(value, scope)
            continue
        current = None
        scope[name] = _expand(value, scope)
    return out


def flashinfer_build_files(source: str) -> tuple[Path, ...]:
    """The `cached_ops/*/build.ninja` files beside the `generated/` directory above `source`."""
    for parent in Path(os.path.abspath(source)).parents:
        if parent.name == "generated":
            return _build_files_of(parent.parent / "cached_ops")
    return ()


@cache
def _build_files_of(cached_ops: Path) -> tuple[Path, ...]:
    try:
        if not is_dir(cached_ops):
            return ()
        for module in cached_ops.iterdir():  # a build file added to a module is a change
            inputs.looked_at(module)
        return tuple(sorted(cached_ops.glob("*/build.ninja")))
    except OSError:  # a path the OS refuses (beyond PATH_MAX): no build file there
        return ()


@cache
def database_above(directory: Path) -> Path | None:
    """The nearest compile_commands.json in `directory` or above it (as clangd looks)."""
    for d in (directory, *directory.parents):
        if exists(d / COMPILE_COMMANDS):
            return d / COMPILE_COMMANDS
    return None


def is_dir(path: Path) -> bool:
    """Whether `path` is a directory; False for a path the OS refuses (ENAMETOOLONG)."""
    inputs.looked_at(path)
    try:
        return path.is_dir()
    except OSError:
        return False


def exists(path: Path) -> bool:
    """Whether `path` is a regular file; False for a path the OS refuses (ENAMETOOLONG)."""
    inputs.looked_at(path)
    try:
        return path.is_file()
    except OSError:
        return False


def from_flashinfer_build(source: str) -> CompileCommand | None:
    """The nvcc command FlashInfer's JIT build file holds for `source`, if one names it."""
    key = os.path.normpath(os.path.abspath(source))
    files = flashinfer_build_files(source)
    found = _named(files, key)
    if found is None and files:
        # a cache reached through a link: the build file names the real path (realpath costs a
        # stat per component, so it is asked only when the path as given is not named)
        real = os.path.realpath(key)
        found = _named(files, real) if real != key else None
    return found


def _named(files: tuple[Path, ...], source: str) -> CompileCommand | None:
    """The command of the first of `files` whose `build` lines name `source`."""
    for ninja in files:
        try:
            flags = _ninja(ninja)
        except (inputs.InputError, OSError):
            continue
        hit = flags.get(source)
        if hit is not None:
            return _parsed(hit, str(ninja), str(ninja.parent))
    return None
