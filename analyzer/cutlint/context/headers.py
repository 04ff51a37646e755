"""What the headers and version files on a file's include path say: the CUTLASS version
(`cutlass/version.h`: CUTLASS_MAJOR/MINOR/PATCH) and the producer's release (FlashInfer's
`flashinfer/_build_meta.py` `__version__`, SGLang's `sglang/_version.py`, beside the `flashinfer/data/{csrc,include,cutlass}`
trees the JIT puts on its include path: flashinfer/jit/env.py `FLASHINFER_CSRC_DIR`,
`CUTLASS_INCLUDE_DIRS`; TensorRT-LLM's `tensorrt_llm/version.py`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from cutlint import inputs
from cutlint.context.build_files import exists, nearest
from cutlint.cutlass.versions import format_version, read_version_h

VERSION_FILES = (
    ("flashinfer", "flashinfer", ("_build_meta.py", "version.py")),
    ("tensorrt_llm", "tensorrt_llm", ("version.py",)),
    ("sglang", "sglang", ("_version.py",)),
)
"""(producer, package directory, version files in order): a `__version__ = "..."` line
(SGLang's is setuptools-scm's `sglang/_version.py`: `__version__ = version = '0.5.23'`)."""

_VERSION = re.compile(
    r"""^__version__\s*=\s*(?:version\s*=\s*)?["']([^"'\s]{1,64})["']""", re.MULTILINE
)


def _version_h(include_dir: str) -> str | None:
    return _version_h_in(os.path.abspath(include_dir))


@cache
def _version_h_in(include_dir: str) -> str | None:
    """Asked by absolute directory: a relative one is another directory in another working
    directory."""
    v = read_version_h(Path(include_dir))
    return format_version(v) if v is not None else None


def cutlass_on_path(include_dirs: Sequence[str]) -> tuple[str, str] | None:
    """(version, include dir) of the first `cutlass/version.h` on the include path, as the
    preprocessor finds it."""
    for d in include_dirs:
        v = _version_h(d)
        if v is not None:
            return v, d
    return None


def cutlass_in_package(path: str) -> tuple[str, str] | None:
    """The CUTLASS a file inside a source or package tree compiles with, found above it:
    FlashInfer's wheel vendors it at `flashinfer/data/cutlass/include`, nvidia-cutlass at
    `cutlass_library/source/include`, TensorRT-LLM at `3rdparty/cutlass/include` (its
    cpp/CMakeLists.txt puts `${3RDPARTY_DIR}/cutlass/include` on the include path), and
    CUTLASS's own build lies below its `include/` (tools/library/generated in the build tree)."""
    return nearest(Path(path).parent, _cutlass_at, _CUTLASS_ABOVE)


_CUTLASS_ABOVE: dict[tuple[str, str], tuple[str, str] | None] = {}


def _cutlass_at(directory: Path) -> tuple[str, str] | None:
    subs = ["3rdparty/cutlass/include", "include"]
    if directory.name == "flashinfer":
        subs.insert(0, "data/cutlass/include")
    if directory.name == "cutlass_library":
        subs.insert(0, "source/include")
    for sub in subs:
        if exists(directory / sub / "cutlass" / "version.h"):
            return cutlass_on_path([str(directory / sub)])
    return None


def _package_version(directory: Path) -> tuple[str, str, str] | None:
    """(producer, version, file) when `directory` is a producer's package directory."""
    for producer, package, files in VERSION_FILES:
        if directory.name != package:
            continue
        for name in files:
            if exists(directory / name):
                v = _read_version(directory / name)
                if v:
                    return producer, v, str(directory / name)
    return None


def _read_version(path: Path) -> str | None:
    try:
        text = inputs.read_text(path, inputs.HEADER)
    except inputs.InputError:
        return None
    m = _VERSION.search(text)
    return m[1] if m else None


def producer_release(directories: Iterable[str]) -> tuple[str, str, str] | None:
    """(producer, version, version file) of the first producer package in or above any of
    `directories` (the file's own, then its include directories)."""
    for start in directories:
        found = nearest(Path(start), _producer_at, _PRODUCER_ABOVE)
        if found is not None:
            return found
    return None


def _producer_at(directory: Path) -> tuple[str, str, str] | None:
    return _package_version(directory) or _checkout_version(directory)


_PRODUCER_ABOVE: dict[tuple[str, str], tuple[str, str, str] | None] = {}


def _checkout_version(directory: Path) -> tuple[str, str, str] | None:
    """A TensorRT-LLM checkout: its C++ sources (and its CMake build, `cpp/build/`) under
    `<repo>/cpp/`, its Python package beside them, `<repo>/tensorrt_llm/version.py` (which its
    setup.py reads for the wheel's version)."""
    if directory.name != "cpp":
        return None
    return _package_version(directory.parent / "tensorrt_llm")
