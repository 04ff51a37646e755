"""Ask nvcc itself for the shared-memory layout of FlashInfer's SM90+ grouped MoE GEMMs.

This is the referee for cutlint's layout model: no GPU, no GEMM device code.

FlashInfer's generated files (``*.generated.cu``) expand
``INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`` into a function whose CUTLASS types are local
aliases, so they cannot be named from outside the function. We therefore compile the real
generated file against a patched copy of the real launcher ``.inl`` of the same FlashInfer
version, placed first on the include path:

* everything up to and including ``using GemmGrouped = ...;`` is left byte-for-byte alone, so
  every CUTLASS type is built exactly as in a real build;
* the run-time part after that alias (argument packing, ``initialize``, ``run``) is replaced by a
  call that prints the compile-time numbers. Nothing then references
  ``device_kernel<GemmKernel>``, so nvcc generates no GEMM device code;
* each macro expansion also registers a static object that calls the launcher once at program
  start, so a host-only run of the linked executable prints one JSON line per instantiation.

The host pass's ``sizeof`` is the number that matters: ``GemmUniversalAdapter::initialize()``
passes ``GemmKernel::SharedStorageSize`` from host code to ``cudaFuncSetAttribute``.

The stages live in their own modules; this one runs them in order and re-exports their public
names, so callers import everything from here:

    probe_output     the macro calls in the generated file (cutlint.families.probe finds them)
    patch_launcher   the probe copy of the launcher: the families' (families/moe_macro_probe.py,
                     found through registry.probe_spec(PROBE)), its errors as ProbeError
    probe_flags      FlashInfer's JIT flags and include layout, extra system include dirs
    probe_build      running nvcc and the probe; the support objects shared by every probe
    probe_output     the printed records, paired with the macro calls
    probe_records    ProbeRow and ProbeError
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cutlint.families.probe import MacroCall, PatchError, normalize_arg
from cutlint.families.registry import probe_spec
from cutlint.verify import cublas
from cutlint.verify.probe_build import PROBE_MAIN_CPP, job_dir, run_step, support_objects
from cutlint.verify.probe_flags import (
    CUBLAS_HEADER,
    INCLUDE_ENV,
    JIT_DEFAULT_FLAGS,
    LAUNCHER_REL,
    SM90_DEFINES,
    SM90_GENCODE,
    SM120_DEFINES,
    SM120_GENCODE,
    SUPPORT_SOURCES,
    TARGETS,
    FlashInferTree,
    ProbeTarget,
    compile_flags,
    extra_system_includes,
    for_device,
    search_flags,
    target_for,
)
from cutlint.verify.probe_output import (
    MACRO_NAME,
    OUTPUT_TAG,
    match_rows,
    moe_macro_calls,
    parse_output,
)
from cutlint.verify.probe_records import ProbeError, ProbeRow

PROBE = "tma-ws-moe-launcher"
"""The probe of the TMA warp-specialized MoE macro's families (`Family.probe`)."""


def patch_launcher(text: str, launcher: Path) -> str:
    """The probe copy of the launcher `.inl`, as the families' probe module writes it; its
    PatchError (an anchor missing from the real header) is a ProbeError."""
    try:
        patched: str = probe_spec(PROBE).patch_launcher(text, launcher)
    except PatchError as e:
        raise ProbeError(str(e)) from e
    return patched


@dataclass(frozen=True)
class ProbeRun:
    """What one probe of one file produced, and how."""

    rows: tuple[ProbeRow, ...]
    cublas_headers: Path | None  # the real cuBLAS header directory; None: cutlint's shim
    seconds: float  # wall time: compile (dominant), link, run


Log = Callable[[str], None]


def run_probe(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
    keep_build: bool = True,
    log: Log | None = None,
    launcher: Path | None = None,
) -> ProbeRun:
    """Compile one generated file against the probe launcher, run it on the host, return rows.

    ``workdir`` keeps the build (and caches the support objects across calls); without it a
    temporary directory is used and removed. ``keep_build=False`` removes this file's build
    directory after a successful probe (the support objects stay). ``extra_include_dirs`` are
    added with -isystem after FlashInfer's own paths. When the compiler finds no cuBLAS headers,
    cutlint's minimal shim is used (cutlint.verify.cublas) and ``log`` is told so.
    ``launcher``: the launcher whose ``#define`` the file's calls were read by (its build's
    include path), patched in place of the root's, so that the compiler builds the calls by the
    same definition as the model read them.
    """
    t0 = time.monotonic()
    generated_cu = Path(generated_cu)
    tree = FlashInferTree(Path(flashinfer_root))
    launcher = launcher or tree.launcher
    if not launcher.is_file():
        raise ProbeError(f"launcher not found: {launcher}")
    system_includes = extra_system_includes(nvcc, extra_include_dirs)
    source = generated_cu.read_text()
    calls = moe_macro_calls(source)
    if not calls:
        raise ProbeError(f"no {MACRO_NAME} call in {generated_cu}")
    try:
        target = for_device(target_for([call.args[0] for call in calls if call.args]), generated_cu)
    except ValueError as e:
        raise ProbeError(f"{generated_cu}: {e}") from e

    owned = workdir is None
    base = Path(tempfile.mkdtemp(prefix="cutlint-probe-")) if workdir is None else Path(workdir)
    try:
        job = job_dir(base, generated_cu)
        overlay = job / "overlay"
        system_includes, real_cublas = _with_cublas(
            tree, nvcc, base, overlay, generated_cu.parent, system_includes, log
        )
        probe_flags = compile_flags(tree, overlay, generated_cu.parent, system_includes, target)
        patched = overlay / LAUNCHER_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch_launcher(launcher.read_text(), launcher))
        stdout = _compile_link_run(
            tree, nvcc, base, job, generated_cu, probe_flags, system_includes, target
        )
        rows = match_rows(generated_cu, calls, parse_output(stdout))
        if not keep_build and not owned:
            shutil.rmtree(job, ignore_errors=True)
        return ProbeRun(tuple(rows), real_cublas, time.monotonic() - t0)
    finally:
        if owned:
            shutil.rmtree(base, ignore_errors=True)


def _with_cublas(
    tree: FlashInferTree,
    nvcc: str,
    base: Path,
    overlay: Path,
    generated_dir: Path,
    system_includes: Sequence[Path],
    log: Log | None,
) -> tuple[list[Path], Path | None]:
    """The system include dirs, with cutlint's cuBLAS shim appended when the compiler finds no
    real cuBLAS headers; and the real headers' directory, if found."""
    probe_flags = compile_flags(tree, overlay, generated_dir, system_includes)
    real_cublas = cublas.find_real_headers(nvcc, search_flags(probe_flags))
    if real_cublas is None:
        # Searched last, so it never shadows real headers (see cutlint.verify.cublas).
        shim = cublas.write_shim(base / "cublas-shim")
        if log is not None:
            log(f"cuBLAS headers not found: using cutlint's minimal shim in {shim}")
        return [*system_includes, shim], None
    if log is not None:
        log(f"cuBLAS headers: {real_cublas}")
    return list(system_includes), real_cublas


def _compile_link_run(
    tree: FlashInferTree,
    nvcc: str,
    base: Path,
    job: Path,
    generated_cu: Path,
    probe_flags: Sequence[str],
    system_includes: Sequence[Path],
    target: ProbeTarget,
) -> str:
    """Build the probe executable of one generated file, run it, return its stdout."""
    obj = job / "probe.o"
    exe = job / "probe"
    compile_cmd = [nvcc, *probe_flags, "-c", str(generated_cu), "-o", str(obj)]
    # The support objects (once per tree) build beside the file's own compile.
    with ThreadPoolExecutor(max_workers=1) as pool:
        support_job = pool.submit(support_objects, tree, nvcc, base, system_includes)
        try:
            run_step(compile_cmd, f"compiling {generated_cu.name}")
        finally:
            support = support_job.result()
    run_step([nvcc, target.gencode, "-o", str(exe), str(obj), *map(str, support)], "linking probe")
    return run_step([str(exe)], "running probe", cwd=job).stdout


def probe_file(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
) -> list[ProbeRow]:
    """run_probe's rows (see there)."""
    return list(run_probe(generated_cu, flashinfer_root, nvcc, workdir, extra_include_dirs).rows)


def timed_probe_file(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
) -> tuple[list[ProbeRow], float]:
    """probe_file plus its wall time in seconds (compile dominates)."""
    run = run_probe(generated_cu, flashinfer_root, nvcc, workdir, extra_include_dirs)
    return list(run.rows), run.seconds


__all__ = [
    "CUBLAS_HEADER",
    "INCLUDE_ENV",
    "JIT_DEFAULT_FLAGS",
    "LAUNCHER_REL",
    "MACRO_NAME",
    "OUTPUT_TAG",
    "PROBE",
    "PROBE_MAIN_CPP",
    "SM90_DEFINES",
    "SM90_GENCODE",
    "SM120_DEFINES",
    "SM120_GENCODE",
    "SUPPORT_SOURCES",
    "TARGETS",
    "FlashInferTree",
    "Log",
    "MacroCall",
    "ProbeError",
    "ProbeRow",
    "ProbeRun",
    "ProbeTarget",
    "compile_flags",
    "extra_system_includes",
    "moe_macro_calls",
    "normalize_arg",
    "patch_launcher",
    "probe_file",
    "run_probe",
    "timed_probe_file",
]
