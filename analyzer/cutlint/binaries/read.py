"""Kernels and their resources from files: cubins, fatbins, objects, libraries, executables.

`read_paths` walks files and directories and returns, per kernel image, what its cubin records
(cubin.Kernel), and per file what could not be read and why. A compressed entry this reader
cannot decode is read with the toolkit's `cuobjdump --dump-resource-usage` when it is on PATH,
else reported (never guessed)."""

from __future__ import annotations

import mmap
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cutlint.binaries import fatbin
from cutlint.binaries.cubin import Kernel, kernels
from cutlint.binaries.elf import EM_CUDA, NotElf, read_elf

FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")
"""CUDA include/fatbinary_section.h: FATBIN_DATA_SECTION_NAME, FATBIN_PRELINK_DATA_SECTION_NAME."""

SUFFIXES = (".so", ".o", ".obj", ".cubin", ".fatbin", ".a", "")


@dataclass(frozen=True, slots=True)
class KernelImage:
    path: str
    kernel: Kernel
    origin: str
    """`cubin` (read from the ELF here) or `cuobjdump` (the fallback)."""


@dataclass(slots=True)
class Reading:
    kernels: list[KernelImage] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    files: int = 0


def _candidates(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            for root, _dirs, files in os.walk(p):
                for name in sorted(files):
                    f = Path(root, name)
                    if f.suffix in SUFFIXES or ".so." in name:
                        yield f
        else:
            yield p


def read_paths(paths: Iterable[str | os.PathLike[str]]) -> Reading:
    out = Reading()
    for path in _candidates(paths):
        try:
            with path.open("rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size < 16:
                    continue
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                    out.files += 1
                    _read_one(str(path), data, out)
        except (OSError, ValueError) as e:
            out.problems.append((str(path), f"unreadable: {e}"))
    return out


def _read_one(path: str, data: mmap.mmap, out: Reading) -> None:
    if data[:4] == b"\x7fELF":
        try:
            elf = read_elf(data)
        except NotElf as e:
            out.problems.append((path, str(e)))
            return
        if elf.machine == EM_CUDA:
            out.kernels += [KernelImage(path, k, "cubin") for k in kernels(elf)]
            return
        undecoded: list[str] = []
        for name in FATBIN_SECTIONS:
            s = elf.section(name)
            if s is not None and s.size:
                _read_entries(path, data, s.offset, s.offset + s.size, out, undecoded)
        if undecoded:
            _fallback(path, undecoded, out)
        return
    if int.from_bytes(data[:4], "little") == fatbin.FATBIN_MAGIC:
        undecoded = []
        _read_entries(path, data, 0, len(data), out, undecoded)
        if undecoded:
            _fallback(path, undecoded, out)


def _read_entries(
    path: str, data: mmap.mmap, start: int, end: int, out: Reading, undecoded: list[str]
) -> None:
    try:
        found = fatbin.entries(data[start:end])
    except fatbin.BadFatbin as e:
        out.problems.append((path, f"fatbin: {e}"))
        return
    for entry in found:
        if entry.kind != fatbin.KIND_ELF:
            continue
        image = fatbin.decompress(entry)
        if isinstance(image, str):
            undecoded.append(f"sm_{entry.sm}: {image}")
            continue
        try:
            cubin = read_elf(image)
        except NotElf as e:
            out.problems.append((path, f"sm_{entry.sm} entry: {e}"))
            continue
        out.kernels += [KernelImage(path, k, "cubin") for k in kernels(cubin)]


def find_cuobjdump() -> str | None:
    """The toolkit's cuobjdump, if it is on PATH (the fallback for entries not decoded here)."""
    return shutil.which("cuobjdump")


def _fallback(path: str, undecoded: list[str], out: Reading) -> None:
    """Entries this reader cannot decode: cuobjdump's report of the file, or why not."""
    tool = find_cuobjdump()
    if tool is None:
        reasons = "; ".join(sorted(set(undecoded)))
        out.problems.append((path, f"{len(undecoded)} cubins not read ({reasons}), no cuobjdump"))
        return
    try:
        run = subprocess.run(
            [tool, "--dump-resource-usage", path], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        out.problems.append((path, f"cuobjdump failed: {e}"))
        return
    out.kernels += [KernelImage(path, k, "cuobjdump") for k in parse_resource_usage(run.stdout)]


_ARCH = re.compile(r"^arch = sm_(\d+)")
_FUNCTION = re.compile(r"^\s*Function (\S+):")
_FIELDS = re.compile(r"(REG|STACK|SHARED|LOCAL):(\d+)")


def parse_resource_usage(text: str) -> list[Kernel]:
    """Kernels of `cuobjdump --dump-resource-usage`'s report (one line of fields per function).

    cuobjdump prints STACK (the maximum stack size) and SHARED (the `.nv.shared` section, the
    reservation included); it does not print the frame size, the launch bounds or the cap."""
    out: list[Kernel] = []
    sm, name = 0, None
    for line in text.splitlines():
        if m := _ARCH.match(line):
            sm = int(m[1])
        elif m := _FUNCTION.match(line):
            name = m[1]
        elif name is not None and "REG:" in line:
            f = {k: int(v) for k, v in _FIELDS.findall(line)}
            out.append(
                Kernel(
                    name=name,
                    sm=sm,
                    registers=f.get("REG"),
                    frame_size=None,
                    min_stack_size=None,
                    max_stack_size=f.get("STACK"),
                    static_smem=f.get("SHARED", 0),
                    shared_section=f.get("SHARED", 0),
                    max_threads=None,
                    register_cap=None,
                )
            )
            name = None
    return out
