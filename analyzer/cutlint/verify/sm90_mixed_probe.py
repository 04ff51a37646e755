"""Run the SM90 mixed-input probe (what it builds is the families': families/sm90_mixed_gemm/probe.py,
reached through the registry): compile the real generated files in one translation unit against
the patched launcher, with the SM90 module's flags, link TensorRT-LLM's host helpers and an empty
main(), and run it on the host. Nothing references `device_kernel<GemmKernel>`, so nvcc generates
no GEMM device code; the run needs no GPU.
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
from cutlint.verify import cublas, curand
from cutlint.verify.probe_build import run_step, support_objects
from cutlint.verify.probe_flags import (
    SM90_TARGET,
    FlashInferTree,
    compile_flags,
    extra_system_includes,
    search_flags,
)
from cutlint.verify.probe_records import ProbeError

PROBE = "sm90-mixed-launcher"
"""The probe's name, as the families name it (`Family.probe`)."""


@cache
def spec() -> ModuleType:
    """The families' probe module: the launchers, patches, helpers and output reader."""
    return probe_spec(PROBE)


@dataclass(frozen=True)
class Sm90MixedProbeRun:
    rows: tuple[Any, ...]
    """The family's probe rows (`Sm90MixedProbeRow`)."""
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
    moe: bool = False,
    found: Mapping[str, Sequence[Instantiation]] | None = None,
) -> Sm90MixedProbeRun:
    """Compile the generated files of one FlashInfer tree in one translation unit against the
    probe launcher (`moe`: the mixed-input MoE launcher), run the executable on the host, return
    one row per instantiation."""
    t0 = time.monotonic()
    files = [Path(p).resolve() for p in generated]
    if not files:
        raise ProbeError("no generated files given")
    s = spec()
    tree = FlashInferTree(Path(flashinfer_root))
    rel = s.MOE_LAUNCHER_REL if moe else s.LAUNCHER_REL
    launcher = tree.nv_internal / rel
    if not launcher.is_file():
        raise ProbeError(f"launcher not found: {launcher}")
    names = s.MOE_LAUNCHER_NAMES if moe else (s.LAUNCHER_NAME,)
    sites = s.instantiation_sites(files, names, _by_file(files, found))
    if not sites:
        raise ProbeError(f"no {' or '.join(names)} instantiation in {len(files)} file(s)")
    base = Path(tempfile.mkdtemp(prefix="cutlint-sm90-mixed-")) if workdir is None else workdir
    try:
        base.mkdir(parents=True, exist_ok=True)
        overlay = base / "overlay"
        patched = overlay / rel
        patched.parent.mkdir(parents=True, exist_ok=True)
        patch = s.patch_moe_launcher if moe else s.patch_launcher
        patched.write_text(patch(launcher.read_text(), launcher))
        system = extra_system_includes(nvcc, extra_include_dirs)
        flags = compile_flags(tree, overlay, files[0].parent, system, SM90_TARGET)
        if cublas.find_real_headers(nvcc, search_flags(flags)) is None:
            # Searched last, so it never shadows real headers (see cutlint.verify.cublas).
            system = [*system, cublas.write_shim(base / "cublas-shim")]
            flags = compile_flags(tree, overlay, files[0].parent, system, SM90_TARGET)
        if moe and curand.find_real_header(nvcc, search_flags(flags)) is None:
            # The MoE launcher includes CUTLASS's reference tensor_fill.h (<curand_kernel.h>);
            # searched last, as for cuBLAS (see cutlint.verify.curand).
            system = [*system, curand.write_shim(base / "curand-shim")]
            flags = compile_flags(tree, overlay, files[0].parent, system, SM90_TARGET)
        driver = base / "sm90_mixed_probe.cu"
        driver.write_text(
            "// cutlint: the real generated files, compiled as they are, in one TU\n"
            + "".join(f'#include "{f}"\n' for f in files)
        )
        obj, exe = base / "probe.o", base / "probe"
        cmd = [nvcc, *flags, "-c", str(driver), "-o", str(obj)]
        run_step(cmd, f"compiling {len(files)} generated file(s)")
        support = support_objects(tree, nvcc, base, system)
        run_step(
            [nvcc, SM90_TARGET.gencode, "-o", str(exe), str(obj), *map(str, support)],
            "linking probe",
        )
        stdout = run_step([str(exe)], "running probe", cwd=base).stdout
        rows = s.match_rows(sites, s.parse_output(stdout), moe)
        return Sm90MixedProbeRun(tuple(rows), time.monotonic() - t0, tuple(cmd))
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


__all__ = ["PROBE", "Sm90MixedProbeRun", "run_probe", "spec"]
