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

import gc
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TypeVar

from cutlint import inputs
from cutlint.context.command import CompileCommand, parse_command

T = TypeVar("T")

COMPILE_COMMANDS = "compile_commands.json"
BUILD_FILE = inputs.Limit("build file", 1 << 30, seconds=300.0)
"""A whole project's compile_commands.json (TensorRT-LLM's) is hundreds of MB."""


@cache
def _database(path: str) -> dict[str, tuple[str, tuple[str, ...] | str]]:
    """compile_commands.json: absolute source path -> (directory, arguments or command). An
    argument list is kept with its own source and object file named by placeholders
    (`_shared`), so that the many entries of one build share one list and one reading: one
    tuple and one directory string in memory (a cutlass_library build has one entry per
    kernel, 27,000 for 100a; its eight builds of 100,000 kernels held 102 MB, now 27 MB). One
    pass over the entries in string operations, with the cyclic garbage collector paused:
    decoding makes a container per entry, none in a cycle, and each collection it triggered
    walked them all again."""
    with _collector_paused():
        entries = inputs.load_json(path, BUILD_FILE)
        out: dict[str, tuple[str, tuple[str, ...] | str]] = {}
        if not isinstance(entries, list):
            return out
        beside = str(Path(path).parent)
        lists: dict[tuple[str, ...], tuple[str, ...]] = {}
        directories: dict[str, str] = {}
        for e in entries:
            if not isinstance(e, dict):
                continue
            file = e.get("file")
            if not isinstance(file, str):
                continue
            args = e.get("arguments")
            cmd: tuple[str, ...] | str | None
            if isinstance(args, list):
                argv = _shared(list(map(str, args)), file)
                cmd = lists.setdefault(argv, argv)
            else:
                cmd = e.get("command")
            if cmd is None:
                continue
            directory = e.get("directory", beside)
            directory = directory if isinstance(directory, str) else str(directory)
            directory = directories.setdefault(directory, directory)
            out[_source_key(directory, file)] = (directory, cmd)
        return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _source_key(directory: str, file: str) -> str:
    """os.path.normpath(os.path.join(directory, file)), without the call for an absolute path
    that is already normal (a generator's database names every file so)."""
    if file.startswith("/") and "//" not in file and "/." not in file and not file.endswith("/"):
        return file if os.sep == "/" else os.path.normpath(file)
    return os.path.normpath(os.path.join(directory, file))


def from_database(build_dir: Path, source: str) -> CompileCommand | None:
    """The command `build_dir/compile_commands.json` holds for `source`, if any."""
    return entry_in(str(database_in(build_dir)), source)


@cache
def database_in(build_dir: Path) -> Path:
    """`build_dir/compile_commands.json` for a build directory, else `build_dir` itself (the
    database named directly)."""
    return build_dir / COMPILE_COMMANDS if is_dir(build_dir) else build_dir


def entry_in(db: str, source: str) -> CompileCommand | None:
    """The command the compile database `db` holds for `source`, if any."""
    try:
        entries = _database(db)
    except (inputs.InputError, OSError):
        return None
    entry = entries.get(os.path.normpath(os.path.abspath(source)))
    if entry is None:
        return None
    directory, cmd = entry
    return _parsed(cmd, db, directory)


SOURCE, OBJECT = "\0source", "\0object"
"""What an argument list holds in place of its own source and `-o` object file."""


def _shared(argv: list[str], source: str) -> tuple[str, ...]:
    """`argv` with the entry's source file and its `-o` object file as placeholders: both are
    positional to what parse_command reads (includes, defines, targets), and they are what sets
    one entry's list apart from the next (a cutlass_library build has one entry per kernel,
    27,000 for 100a). An argument that a flag before it takes as its value is left as it is.
    (The source is found by list.index, not by a loop over every argument.)"""
    out = argv
    if "-o" in argv:
        for i, before in enumerate(argv[:-1]):
            if before == "-o" and not argv[i + 1].startswith("-"):
                out = out if out is not argv else list(argv)
                out[i + 1] = OBJECT
    if source.startswith("-"):
        return tuple(out)
    i = 0
    while True:
        try:
            i = argv.index(source, i + 1)  # from 1: argv[0] is the compiler
        except ValueError:
            return tuple(out)
        before = argv[i - 1]
        if before != "-o" and (before == "-c" or not before.startswith("-")):
            out = out if out is not argv else list(argv)
            out[i] = SOURCE


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
def database_above(directory: str) -> str | None:
    """The nearest compile_commands.json in the absolute `directory` or above it (as clangd
    looks). (A string, not a Path: asked for every file, and a Path's parsing and hashing
    were most of it.)"""
    start = Path(directory)
    for d in (start, *start.parents):
        if exists(d / COMPILE_COMMANDS):
            return str(d / COMPILE_COMMANDS)
    return None


def nearest(
    directory: Path, at: Callable[[Path], T | None], memo: dict[tuple[str, str], T | None]
) -> T | None:
    """The first answer of `at` in `directory` or a directory above it, as a walk up
    `directory` and its parents finds it; each directory asked once per process (`memo`, its
    caller's): a file's ancestors are its directory's, and of one tree the same few. A relative
    directory is remembered with the working directory it was asked from."""
    cwd = "" if directory.is_absolute() else os.getcwd()
    walked: list[tuple[str, str]] = []
    d, found = directory, None
    while True:
        key = (str(d), cwd)
        if key in memo:
            found = memo[key]
            break
        walked.append(key)
        found = at(d)
        if found is not None:
            break
        parent = d.parent
        if parent == d:
            break
        d = parent
    for key in walked:
        memo[key] = found
    return found


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
