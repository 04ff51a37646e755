"""Run cutlass_library's own manifest enumeration in-process, without writing a file.

What `python -m cutlass_library.generator --operations all --architectures ARCHS
--generator-target library --cuda-version 13.0 --kernels F` does (generator.py, its `__main__`
block): build a `Manifest` from the parsed arguments, call `GenerateSM50` ... `GenerateSM90`
(and `GenerateSM100`, `GenerateSM120` when an arch of its `blackwell_arch_list` is asked for),
each of which `manifest.append`s its operations through `Manifest.filter` (compute capability,
`--kernels`, `--ignore-kernels`, `--exclude-kernels`), then `manifest.emit(GeneratorTarget.
Library)`, which writes one file per configuration with the emitters of each operation kind
(`EmitGemmConfigurationLibrary` ...) and the `all_*_operations.cu` manifests.

Here the same module code runs on the arguments its own `define_parser()` parses, and the emit
path runs too, with the file system its modules see (`open`, `os`, `shutil`, their module
globals) replaced by one in memory: every file it would write is captured as text, at the path
it would have (relative: the build directory is ""), and nothing is written. The modules are
imported from the wheel into a private namespace that is removed from `sys.modules` afterwards,
with `sys.argv` (the generator parses it at import) and `sys.path` restored.
"""

from __future__ import annotations

import builtins
import importlib
import io
import logging
import os
import posixpath
import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cutlint.producers.cutlass_library.generate import (
    CutlassLibraryError,
    generator_arguments,
)

PACKAGE = "cutlass_library"
GENERATOR = "cutlass_library.generator"
BUILD_DIR = ""
"""The `--curr-build-dir` given: files are captured at `generated/<kind>/<cc>/...`."""
GENERATED = "generated"
"""Where `Manifest.emit` writes, under the build directory (`os.path.join(curr_build_dir,
'generated')`): the tree kept in memory."""

GENERATE = (
    "GenerateSM50",
    "GenerateSM60",
    "GenerateSM61",
    "GenerateSM70",
    "GenerateSM75",
    "GenerateSM80",
    "GenerateSM89",
    "GenerateSM90",
)
"""The functions generator.py's `__main__` calls for every build, in its order."""
GENERATE_BLACKWELL = ("GenerateSM100", "GenerateSM120")
"""The ones it calls when an arch of its `blackwell_arch_list` is asked for."""
BLACKWELL_ARCHS = frozenset(
    ("100a", "100f", "101a", "101f", "103a", "103f", "110a", "110f", "120a", "120f", "121a", "121f")
)
"""generator.py `__main__`, `blackwell_arch_list`."""


@dataclass(frozen=True)
class GeneratedKernel:
    """One operation the manifest kept, with the file the generator would write it into."""

    name: str
    """Its `procedural_name()`: the name `--kernels` and `--ignore-kernels` match."""
    configuration: str
    """Its `configuration_name()`: the file's stem and its `initialize_<configuration>`."""
    kind: str
    """The operation kind's directory (`OperationKindNames`): gemm, conv2d, rank_k, ..."""
    path: str
    """Where the generator writes it: `generated/<kind>/<min cc>/<extended name>/<config>.cu`."""


@dataclass(frozen=True)
class Enumeration:
    kernels: tuple[GeneratedKernel, ...]
    """Every operation kept, in the order the generator emits them."""
    files: Mapping[str, str]
    """Every file `manifest.emit` would write (kernel files, manifests, manifest.cmake), by path."""


PathArg = str | os.PathLike[str]


class _MemoryFile(io.StringIO):
    """A file opened for writing: its text is kept under its name when it is closed."""

    def __init__(self, name: str, files: dict[str, str]) -> None:
        super().__init__()
        self.name = name
        self._files = files

    def close(self) -> None:
        if not self.closed:
            self._files[self.name] = self.getvalue()
        super().close()


class _MemoryFs:
    """The calls the generator's modules make on the file system, answered in memory: files
    opened for writing are captured, directories are remembered (so that `os.makedirs` without
    exist_ok fails as it would in a fresh build directory); anything else that would change the
    disk is refused."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.dirs: set[str] = set()

    def open(self, path: PathArg, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(c in mode for c in "wax+"):
            name = os.fspath(path)
            if posixpath.dirname(name) not in self.dirs | {""}:
                raise FileNotFoundError(2, "No such directory (in memory)", name)
            return _MemoryFile(name, self.files)
        return builtins.open(path, mode, *args, **kwargs)

    def captured(self, path: PathArg) -> bool:
        """Whether `path` is in the build's `generated/` tree, which lives in memory."""
        name = os.fspath(path)
        return name == GENERATED or name.startswith(GENERATED + "/")

    def exists(self, path: PathArg) -> bool:
        if not self.captured(path):
            return os.path.exists(path)
        return os.fspath(path) in self.dirs or os.fspath(path) in self.files

    def isdir(self, path: PathArg) -> bool:
        return os.fspath(path) in self.dirs if self.captured(path) else os.path.isdir(path)

    def isfile(self, path: PathArg) -> bool:
        return os.fspath(path) in self.files if self.captured(path) else os.path.isfile(path)

    def mkdir(self, path: PathArg, *_args: Any, **_kwargs: Any) -> None:
        name = os.fspath(path)
        if name in self.dirs:
            raise FileExistsError(17, "File exists (in memory)", name)
        self.dirs.add(name)

    def makedirs(self, path: PathArg, mode: int = 0o777, exist_ok: bool = False) -> None:
        name = os.fspath(path)
        if name in self.dirs and not exist_ok:
            raise FileExistsError(17, "File exists (in memory)", name)
        while name and name not in self.dirs:
            self.dirs.add(name)
            name = posixpath.dirname(name)

    def rmtree(self, path: PathArg, *_args: Any, **_kwargs: Any) -> None:
        name = os.fspath(path)
        self.dirs = {d for d in self.dirs if d != name and not d.startswith(name + "/")}
        self.files = {f: t for f, t in self.files.items() if not f.startswith(name + "/")}

    def refuse(self, what: str) -> Any:
        def refused(*args: Any, **_kwargs: Any) -> None:
            raise CutlassLibraryError(f"cutlass_library called {what}{args!r} while enumerating")

        return refused

    def modules(self) -> dict[str, types.ModuleType]:
        """Stand-ins for `os`, `os.path` and `shutil` as the generator's modules see them."""
        path = _Proxy(
            "os.path", posixpath, exists=self.exists, isdir=self.isdir, isfile=self.isfile
        )
        fake_os = _Proxy("os", os, path=path, mkdir=self.mkdir, makedirs=self.makedirs)
        for name in ("remove", "unlink", "rmdir", "rename", "replace", "removedirs", "symlink"):
            setattr(fake_os, name, self.refuse(f"os.{name}"))
        fake_shutil = _Proxy("shutil", types.ModuleType("shutil"), rmtree=self.rmtree)
        for name in ("copy", "copy2", "copyfile", "copytree", "move"):
            setattr(fake_shutil, name, self.refuse(f"shutil.{name}"))
        return {"os": fake_os, "shutil": fake_shutil}


class _Proxy(types.ModuleType):
    """A module whose named attributes are replaced and whose others are `real`'s."""

    def __init__(self, name: str, real: types.ModuleType, **replaced: Any) -> None:
        super().__init__(name)
        self._real = real
        for key, value in replaced.items():
            setattr(self, key, value)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _wheel_module(module: types.ModuleType, root: Path) -> bool:
    where = getattr(module, "__file__", None)
    return where is not None and Path(where).resolve().is_relative_to(root.resolve())


@contextmanager
def _private_import(root: Path) -> Iterator[types.ModuleType]:
    """generator.py, imported from the wheel at `root` into a namespace of its own; afterwards
    `sys.modules`, `sys.path`, `sys.argv` and `builtins.CUTLASS_IGNORE_PACKAGE` (which the
    generator sets at import) are as they were."""
    mine = [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]
    saved_modules = {n: sys.modules.pop(n) for n in mine}
    before = set(sys.modules)
    saved_path, saved_argv = list(sys.path), sys.argv
    had_flag = hasattr(builtins, "CUTLASS_IGNORE_PACKAGE")
    flag = getattr(builtins, "CUTLASS_IGNORE_PACKAGE", None)
    # generator.py parses sys.argv at import (parse_known_args, --disable-cutlass-package-imports)
    # and the package __init__ skips importing it when "-m" is in sys.argv: give it a plain one.
    sys.argv = [GENERATOR]
    sys.path.insert(0, str(root))
    try:
        try:
            with redirect_stdout(io.StringIO()):
                gen = importlib.import_module(GENERATOR)
        except SystemExit as e:  # an exit on import is the input's, never cutlint's exit code
            raise CutlassLibraryError(
                f"cannot import {GENERATOR} from {root}: it called sys.exit({e.code!r}) on import"
            ) from None
        except Exception as e:  # third-party code: report, do not crash
            raise CutlassLibraryError(f"cannot import {GENERATOR} from {root}: {e}") from e
        if not _wheel_module(gen, root):
            raise CutlassLibraryError(f"{GENERATOR} was not imported from {root}")
        yield gen
    finally:
        for name in set(sys.modules) - before:
            module = sys.modules[name]
            if name == PACKAGE or name.startswith(PACKAGE + ".") or _wheel_module(module, root):
                del sys.modules[name]
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
        sys.argv = saved_argv
        if had_flag:
            setattr(builtins, "CUTLASS_IGNORE_PACKAGE", flag)  # noqa: B010
        elif hasattr(builtins, "CUTLASS_IGNORE_PACKAGE"):
            delattr(builtins, "CUTLASS_IGNORE_PACKAGE")


@contextmanager
def _quiet_loggers() -> Iterator[None]:
    """The manifest logs one INFO line per configuration (`Emitting ...`); the CLI's and the
    caller's log output stay free of them."""
    logger = logging.getLogger(PACKAGE)
    saved = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(saved)


def _package_modules() -> list[types.ModuleType]:
    return [
        m
        for n, m in sys.modules.items()
        if (n == PACKAGE or n.startswith(PACKAGE + ".")) and isinstance(m, types.ModuleType)
    ]


def _kernels(gen: types.ModuleType, manifest: Any) -> list[GeneratedKernel]:
    """The kept operations with their files, as `Manifest.emit` and `EmitOperationKindLibrary.
    emit` place them: `generated/<OperationKindNames[kind]>/<min_cc>/<extended_name>/
    <configuration_name>.cu` (min_cc in sorted order, configurations in insertion order)."""
    out: list[GeneratedKernel] = []
    for kind, by_cc in manifest.operations.items():
        kind_name = gen.OperationKindNames[kind]
        for min_cc, configurations in sorted(by_cc.items()):
            for configuration, operations in configurations.items():
                extended = operations[0].extended_name()
                path = posixpath.join(
                    BUILD_DIR, GENERATED, kind_name, str(min_cc), extended, f"{configuration}.cu"
                )
                out += [
                    GeneratedKernel(op.procedural_name(), configuration, kind_name, path)
                    for op in operations
                ]
    return out


def enumerate_kernels(
    root: Path, archs: str, kernels: str = "", ignore: str = "", exclude: str = ""
) -> Enumeration:
    """Every kernel `generate(root, out, archs, kernels, ignore, exclude)` would write, with the
    text of every file it would write; nothing is written. `root` holds `cutlass_library/`."""
    if not (root / PACKAGE / "generator.py").is_file():
        raise CutlassLibraryError(f"{root}: no {PACKAGE}/generator.py")
    fs = _MemoryFs()
    with _private_import(root) as gen, _quiet_loggers(), redirect_stdout(io.StringIO()):
        stand_ins = fs.modules()
        for module in _package_modules():
            vars(module).update(open=fs.open, **stand_ins)
        try:
            args = gen.define_parser().parse_args(
                generator_arguments(archs, BUILD_DIR, kernels, ignore, exclude)
            )
            manifest = gen.Manifest(args)
            functions = list(GENERATE)
            if any(a in BLACKWELL_ARCHS for a in args.architectures.split(";")):
                functions += GENERATE_BLACKWELL
            for name in functions:
                getattr(gen, name)(manifest, args.cuda_version)
            manifest.emit(gen.GeneratorTarget.Library)
            found = _kernels(gen, manifest)
        except CutlassLibraryError:
            raise
        except (Exception, SystemExit) as e:  # third-party code (argparse exits): report it
            raise CutlassLibraryError(f"cutlass_library's enumeration failed: {e!r}") from e
    missing = [k.path for k in found if k.path not in fs.files]
    if missing:
        raise CutlassLibraryError(f"the generator wrote no {missing[0]} for its kernel")
    return Enumeration(kernels=tuple(found), files=dict(fs.files))
