"""Run the SM80 fused-MoE probe (what it builds is the family's: families/sm80_fused_moe/probe.py,
reached through the registry): compile the real generated files in one translation unit against
the patched launcher, with the flags of the module that compiles them, link TensorRT-LLM's host
helpers and an empty main(), and run it on the host. Nothing references the kernel, so nvcc
generates no device code for it; the run needs no GPU.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from cutlint.families.probe import PatchError
from cutlint.families.registry import probe_spec
from cutlint.records import Instantiation
from cutlint.verify import cublas
from cutlint.verify.probe_build import run_step, support_objects
from cutlint.verify.probe_flags import (
    SM120_GENCODE,
    FlashInferTree,
    compile_flags,
    extra_system_includes,
    search_flags,
)
from cutlint.verify.probe_records import ProbeError

PROBE = "sm80-fused-moe-launcher"
"""The probe's name, as the family names it (`Family.probe`)."""


@cache
def spec() -> ModuleType:
    """The family's probe module: its launcher, patch, helpers and output reader."""
    return probe_spec(PROBE)


@dataclass(frozen=True)
class Sm80ProbeRun:
    rows: tuple[Any, ...]
    """The family's probe rows (`Sm80ProbeRow`): path, line, args, smem_size, threads_per_block,
    members."""
    seconds: float
    """Wall time of the compile, link and run."""
    command: tuple[str, ...]
    """The compile command (for the record of how the truth was obtained)."""


def run_probe(
    generated: Sequence[Path],
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
    found: Mapping[str, Sequence[Instantiation]] | None = None,
) -> Sm80ProbeRun:
    """Compile the generated files of one FlashInfer tree in one translation unit against the
    probe launcher, run the executable on the host, return one row per instantiation."""
    t0 = time.monotonic()
    files = [Path(p).resolve() for p in generated]
    if not files:
        raise ProbeError("no generated files given")
    s = spec()
    tree = FlashInferTree(Path(flashinfer_root))
    launcher = tree.nv_internal / s.SM80_LAUNCHER_REL
    if not launcher.is_file():
        raise ProbeError(f"launcher not found: {launcher}")
    sites = s.instantiation_sites(files, _by_file(files, found))
    if not sites:
        raise ProbeError(f"no {s.LAUNCHER_NAME} instantiation in {len(files)} file(s)")
    base = Path(tempfile.mkdtemp(prefix="cutlint-sm80-probe-")) if workdir is None else workdir
    try:
        base.mkdir(parents=True, exist_ok=True)
        overlay = base / "overlay"
        patched = overlay / s.SM80_LAUNCHER_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(s.patch_launcher(launcher.read_text(), launcher))
        system = extra_system_includes(nvcc, extra_include_dirs)
        flags = compile_flags(tree, overlay, files[0].parent, system)
        if cublas.find_real_headers(nvcc, search_flags(flags)) is None:
            # Searched last, so it never shadows real headers (see cutlint.verify.cublas).
            system = [*system, cublas.write_shim(base / "cublas-shim")]
            flags = compile_flags(tree, overlay, files[0].parent, system)
        driver = base / "sm80_fused_moe_probe.cu"
        driver.write_text(
            "// cutlint: the real generated files, compiled as they are, in one TU\n"
            + "".join(f'#include "{f}"\n' for f in files)
        )
        obj, exe = base / "probe.o", base / "probe"
        cmd = [nvcc, *flags, "-c", str(driver), "-o", str(obj)]
        run_step(cmd, f"compiling {len(files)} generated file(s)")
        # TensorRT-LLM's host helpers that the kept headers reference, and an empty main()
        # (probe_cpp/probe_main.cpp), shared with the SM120 probe.
        support = support_objects(tree, nvcc, base, system)
        run_step(
            [nvcc, SM120_GENCODE, "-o", str(exe), str(obj), *map(str, support)], "linking probe"
        )
        stdout = run_step([str(exe)], "running probe", cwd=base).stdout
        rows = s.match_rows(sites, s.parse_output(stdout))
        return Sm80ProbeRun(tuple(rows), time.monotonic() - t0, tuple(cmd))
    except PatchError as exc:  # the family's patch or reader: the probe cannot give numbers
        raise ProbeError(str(exc)) from exc
    finally:
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)


def _by_file(
    files: Sequence[Path], found: Mapping[str, Sequence[Instantiation]] | None
) -> dict[Path, Sequence[Instantiation]] | None:
    """`found` (check's instantiations, by the path check was given) by each resolved file."""
    if found is None:
        return None
    by_resolved = {Path(p).resolve(): insts for p, insts in found.items()}
    return {f: by_resolved.get(f, ()) for f in files}


__all__ = ["PROBE", "Sm80ProbeRun", "run_probe", "spec"]
