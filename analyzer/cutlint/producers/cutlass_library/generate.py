"""Run CUTLASS's own kernel generator (`cutlass_library.generator`, from the `nvidia-cutlass`
wheel) as CUTLASS's CMake build does, and write its kernel files: real inputs, never committed.

The generator is pure Python (standard library only). It runs in a child process: it is third-party
code that prints, writes and keeps module state, and its manifest is global to the process.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cutlint.cache_dir import wheels_dir
from cutlint.producers import wheels

DEFAULT_VERSION = "4.2.0.0"
"""The newest `nvidia-cutlass` on PyPI: CUTLASS 4.2.0's generator and headers."""
CUDA_VERSION = "13.0"
"""The CUDA version the generator is told: it emits SM100/SM120 kernels only for CUDA >= 12.8
(generator.py, `CudaToolkitVersionSatisfies`), as CMake tells it from the toolkit found."""


class CutlassLibraryError(Exception):
    """The wheel could not be fetched or the generator failed; says why."""


def wheel_root(version: str = DEFAULT_VERSION) -> Path:
    """Where the unpacked wheel lives in cutlint's cache (whether or not it is there yet)."""
    return wheels_dir() / f"nvidia-cutlass-{version}"


def download(
    version: str = DEFAULT_VERSION,
    progress: Callable[[str], None] | None = None,
    meter: wheels.Meter | None = None,
) -> Path:
    """The unpacked `nvidia-cutlass` wheel (the directory that holds `cutlass_library/`)."""
    try:
        return wheels.download_wheel(
            "nvidia-cutlass",
            version,
            wheel_root(version),
            "cutlass_library/generator.py",
            "6 MB",
            progress,
            meter,
        )
    except wheels.WheelError as e:
        raise CutlassLibraryError(str(e)) from e


def version_of(root: Path) -> str | None:
    """The nvidia-cutlass version unpacked at `root` (its dist-info), or None."""
    for dist in importlib.metadata.distributions(path=[str(root)]):
        if dist.metadata["Name"] in ("nvidia-cutlass", "nvidia_cutlass"):
            return dist.version
    return None


def include_dir(root: Path) -> Path:
    """The CUTLASS headers the wheel carries (`cutlass_library/source/include`)."""
    return root / "cutlass_library" / "source" / "include"


def generator_arguments(
    archs: str, build_dir: str, kernels: str = "", ignore: str = "", exclude: str = ""
) -> list[str]:
    """The generator's command line as CUTLASS's CMake build gives it (tools/library/
    CMakeLists.txt): `--operations all --architectures ARCHS --generator-target library
    --cuda-version 13.0 --curr-build-dir DIR`, with CUTLASS's own kernel filter (`--kernels`,
    CUTLASS_LIBRARY_KERNELS), and its exclusions: `--ignore-kernels`
    (CUTLASS_LIBRARY_IGNORE_KERNELS, which only acts with a `--kernels` filter) and
    `--exclude-kernels` (CUTLASS_LIBRARY_EXCLUDE_KERNELS, which always does)."""
    cmd = [
        "--operations",
        "all",
        "--architectures",
        archs,
        "--generator-target",
        "library",
        "--cuda-version",
        CUDA_VERSION,
        "--curr-build-dir",
        build_dir,
    ]
    if kernels:
        cmd += ["--kernels", kernels]
    if ignore:
        cmd += ["--ignore-kernels", ignore]
    if exclude:
        cmd += ["--exclude-kernels", exclude]
    return cmd


def generate(
    root: Path, out: Path, archs: str, kernels: str = "", ignore: str = "", exclude: str = ""
) -> Path:
    """`python -m cutlass_library.generator` with `generator_arguments(...)`, into `out` (as
    `--curr-build-dir`). Returns `out/generated`, which holds the kernel files."""
    out.mkdir(parents=True, exist_ok=True)
    args = generator_arguments(archs, str(out), kernels, ignore, exclude)
    cmd = [sys.executable, "-m", "cutlass_library.generator", *args]
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise CutlassLibraryError(f"cutlass_library's generator failed: {tail[0][:500]}")
    write_compile_commands(root, out, archs)
    return out / "generated"


def write_compile_commands(root: Path, out: Path, archs: str) -> Path:
    """`out/compile_commands.json` for the generated kernel files, as CUTLASS's CMake build
    writes it with CMAKE_EXPORT_COMPILE_COMMANDS: the headers on the include path (include/,
    tools/library/include, tools/util/include; CUTLASS's CMakeLists.txt
    `CUTLASS_INCLUDE_DIR`) and one `-gencode` per architecture of CUTLASS_NVCC_ARCHS
    (`120a` -> `arch=compute_120a,code=sm_120a`; CUDA.cmake `cutlass_apply_cuda_gencode_flags`).
    A check of the build then reads its CUTLASS and targets from here (cutlint.context)."""
    import json

    source = root / "cutlass_library" / "source"
    includes = [source / "include", source / "tools" / "library" / "include"]
    includes += [source / "tools" / "util" / "include"]
    gencode = [
        f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs.replace(",", ";").split(";") if a
    ]
    flags = ["nvcc", *(f"-I{d.resolve()}" for d in includes), *gencode, "-std=c++17"]
    entries = [
        {
            "directory": str(out.resolve()),
            "file": str(f.resolve()),
            "arguments": [*flags, "-c", str(f.resolve())],
        }
        for f in sorted((out / "generated").rglob("*.cu"))
    ]
    path = out / "compile_commands.json"
    path.write_text(json.dumps(entries, indent=1))
    return path
