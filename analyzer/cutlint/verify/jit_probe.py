"""Ask nvcc for the numbers of FlashInfer's JIT-rendered GEMM modules (gen_gemm_sm120*, ...).

The same idea as `nvcc_probe` for the fused-MoE files, shared by every family of these modules:
the rendered files are compiled as they are, in one translation unit per module (`#include` of
each), against a copy of the family's template header placed first on the include path. The copy
is the real header, kept byte for byte up to and including the last kernel type definition of
each instantiation (a family's `HeaderPatch` names that anchor); the run-time part after it
(argument packing, `initialize`, `run`) is replaced by a static registration that prints the
compile-time numbers at program start. Nothing then references `device_kernel<GemmKernel>`, so
nvcc generates no GEMM device code; one compile costs what parsing the headers costs.

Where a kernel is a local type of a function template (the groupwise launchers), the registration
is a static data member of a class template odr-used in the function body: each explicit
instantiation of the function makes its initializer part of the program
(probe_cpp/jit_probe.hpp: `registered`).

A family's probe module supplies its `HeaderPatch`es; this module builds, runs and reads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from cutlint.families.probe import PRINT_HPP, HeaderPatch, template_arguments
from cutlint.verify import cublas, curand
from cutlint.verify.probe_flags import JIT_DEFAULT_FLAGS, extra_system_includes
from cutlint.verify.probe_records import ProbeError

HELPER_NAME = "cutlint_jit_probe.hpp"
HELPER_CPP = PRINT_HPP + (
    resources.files("cutlint.verify").joinpath("probe_cpp", "jit_probe.hpp").read_text("utf-8")
)
OUTPUT_TAG = "CUTLINT_JIT_PROBE "
# What the JIT passes for a 12.0 part on CUDA >= 12.9 (compilation_context.py: compute_120f).
SM120F_GENCODE = "-gencode=arch=compute_120f,code=sm_120f"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\(", re.M)
_QUOTED_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)"([^"]+)"', re.MULTILINE)


@dataclass(frozen=True)
class JitProbeRow:
    """One kernel type's compile-time numbers, as the probe printed them."""

    label: str
    """Which kernel of the instantiation (`default`, `streamk`, ...), as the patch names it."""
    where: str
    """`__FILE__` of a macro instantiation, or the enclosing function's `__PRETTY_FUNCTION__`."""
    line: int
    args: tuple[str, ...]
    stages: int
    mainloop_smem: int
    epilogue_smem: int
    kernel_smem: int
    kernel_align: int
    max_threads_per_block: int
    members: dict[str, int] = field(default_factory=dict)


def patch_header(
    text: str, patch: HeaderPatch, header_dir: Path, overlaid: frozenset[Path] = frozenset()
) -> str:
    """The probe copy of one header (see HeaderPatch); raises ProbeError if an anchor is missing.
    `overlaid`: the real paths of the headers that have probe copies (includes of them are left
    relative, so that they resolve to the copies)."""
    if patch.keep_through is None:
        return _absolutize_includes(text, header_dir, overlaid)
    out: list[str] = []
    pos = 0
    for m in patch.keep_through.finditer(text):
        if m.start() < pos:
            continue
        if patch.resume is None:
            # The macro expands to nothing in the device pass (__CUDA_ARCH__ defined): the
            # numbers are the host pass's, and the device front-end then instantiates none of
            # the kernel types (it otherwise costs gigabytes for a module's worth of them).
            last = None
            for define in _DEFINE.finditer(text, pos, m.end()):
                if define.start() <= m.start():
                    last = define
            if last is None:
                raise ProbeError(f"probe patch of {patch.header}: no #define before the anchor")
            out.append(text[pos : last.start()])
            out.append("#ifndef __CUDA_ARCH__  // cutlint probe: host pass only\n")
            out.append(text[last.start() : m.end()])
            out.append(patch.text(m))
            pos = _end_of_macro(text, m.end())
            out.append(f"#else\n#define {last['name']}(...)\n#endif\n")
            continue
        out.append(text[pos : m.end()])
        out.append(patch.text(m))
        if patch.resume is None:
            pos = _end_of_macro(text, m.end())
        else:
            r = patch.resume.search(text, m.end())
            if r is None:
                raise ProbeError(f"probe patch of {patch.header}: resume anchor not found")
            pos = r.start()
    if not out:
        raise ProbeError(
            f"probe patch of {patch.header}: anchor {patch.keep_through.pattern!r} not found"
        )
    out.append(text[pos:])
    return f'#include "{HELPER_NAME}"\n' + _absolutize_includes("".join(out), header_dir, overlaid)


def _end_of_macro(text: str, pos: int) -> int:
    """Offset after the line that ends the #define holding `pos` (the first line from `pos` on
    that does not end with a backslash); `pos` is the start of a line."""
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        line = text[pos:end]
        pos = end + 1
        if not line.rstrip().endswith("\\"):
            break
    return pos


def _absolutize_includes(text: str, header_dir: Path, overlaid: frozenset[Path]) -> str:
    """Quoted includes that resolve next to the real header point at it: the copy lives
    elsewhere, and the very same files change nothing else. Includes of headers that have probe
    copies stay as written: they resolve to the copy beside this one."""

    def fix(m: re.Match[str]) -> str:
        target = (header_dir / m.group(2)).resolve()
        if not target.is_file() or target in overlaid:
            return m.group(0)
        return f'{m.group(1)}"{target}"'

    return _QUOTED_INCLUDE.sub(fix, text)


def include_flags(root: Path, overlay: Path) -> list[str]:
    """jit/cpp_ext.py build_common_cflags: vendored CCCL with -I, then -isystem the package
    include, csrc, CUTLASS, CUTLASS tools/util and spdlog (jit/env.py); the probe copy first."""
    data = root / "flashinfer" / "data"
    flags = [f"-I{overlay}"]
    for d in (
        data / "cccl" / "cub",
        data / "cccl" / "libcudacxx" / "include",
        data / "cccl" / "thrust",
    ):
        if d.is_dir():
            flags.append(f"-I{d}")
    for d in (
        data / "include",
        data / "csrc",
        data / "cutlass" / "include",
        data / "cutlass" / "tools" / "util" / "include",
        data / "spdlog" / "include",
    ):
        if d.is_dir():
            flags += ["-isystem", str(d)]
    return flags


@dataclass(frozen=True)
class JitProbeRun:
    rows: tuple[JitProbeRow, ...]
    seconds: float
    command: tuple[str, ...]


def run_probe(
    root: Path,
    sources: Sequence[Path],
    patches: Sequence[HeaderPatch],
    cuda_flags: Sequence[str],
    workdir: Path,
    nvcc: str = "nvcc",
    gencode: str = SM120F_GENCODE,
    nice: int = 10,
) -> JitProbeRun:
    """Compile `sources` (rendered files of one module) in one translation unit against the
    patched headers, run the result on the host, and return its rows."""
    include = root / "flashinfer" / "data" / "include"
    overlay = workdir / "overlay"
    overlay.mkdir(parents=True, exist_ok=True)
    (overlay / HELPER_NAME).write_text(HELPER_CPP)
    by_header: dict[str, list[HeaderPatch]] = {}
    for p in patches:
        by_header.setdefault(p.header, []).append(p)
    overlaid = frozenset((include / h).resolve() for h in by_header)
    for header, group in by_header.items():
        real = include / header
        if not real.is_file():
            raise ProbeError(f"{real} does not exist: not a FlashInfer tree with this family")
        text = real.read_text(encoding="utf-8")
        for p in group:
            text = patch_header(text, p, real.parent, overlaid)
        copy = overlay / header
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text)
    tu = workdir / "probe.cu"
    tu.write_text(
        "".join(f'#include "{Path(s).resolve()}"\n' for s in sources) + "int main() { return 0; }\n"
    )
    exe = workdir / "probe"
    includes = include_flags(root, overlay)
    for d in extra_system_includes(nvcc):
        includes += ["-isystem", str(d)]
    if curand.find_real_header(nvcc, includes) is None:
        includes += ["-isystem", str(curand.write_shim(workdir / "shim"))]
    if cublas.find_real_headers(nvcc, includes) is None:
        includes += ["-isystem", str(cublas.write_shim(workdir / "shim"))]
    cmd = [
        nvcc,
        *JIT_DEFAULT_FLAGS,
        *includes,
        *cuda_flags,
        gencode,
        str(tu),
        "-o",
        str(exe),
    ]
    started = time.monotonic()
    _run([*(["nice", "-n", str(nice)] if nice else []), *cmd], "compiling the probe")
    out = _run([str(exe)], "running the probe").stdout
    rows = parse_output(out)
    if not rows:
        raise ProbeError(
            "the probe printed nothing: the generated files did not expand the patched headers "
            f"({', '.join(by_header)})"
        )
    return JitProbeRun(rows, time.monotonic() - started, tuple(cmd))


def _run(cmd: Sequence[str], what: str) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(
            list(cmd), capture_output=True, text=True, check=False, env=dict(os.environ)
        )
    except OSError as e:
        raise ProbeError(f"{what}: cannot run {cmd[0]}: {e}") from e
    if proc.returncode != 0:
        errors = [ln for ln in proc.stderr.splitlines() if " error" in ln][:10]
        tail = "\n".join([*errors, "...", *proc.stderr.splitlines()[-30:]])
        raise ProbeError(f"{what} failed (exit {proc.returncode})", tail)
    return proc


def parse_output(text: str) -> tuple[JitProbeRow, ...]:
    rows: list[JitProbeRow] = []
    for line in text.splitlines():
        if not line.startswith(OUTPUT_TAG):
            continue
        d: dict[str, Any] = json.loads(line[len(OUTPUT_TAG) :])
        rows.append(
            JitProbeRow(
                label=d["label"],
                where=d["where"],
                line=d["line"],
                args=tuple(d["args"]),
                stages=d["stages"],
                mainloop_smem=d["mainloop_smem"],
                epilogue_smem=d["epilogue_smem"],
                kernel_smem=d["kernel_smem"],
                kernel_align=d["kernel_align"],
                max_threads_per_block=d["max_threads_per_block"],
                members=dict(d["members"]),
            )
        )
    return tuple(rows)


__all__ = [
    "HeaderPatch",
    "JitProbeRow",
    "JitProbeRun",
    "include_flags",
    "parse_output",
    "patch_header",
    "run_probe",
    "template_arguments",
]
