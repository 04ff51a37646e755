"""`cutlint verify --device-code`: ptxas's own report of a device compile, per kernel.

The host probes (run.py and the others) never generate GEMM device code; this does, for the
numbers only device code has: the registers ptxas allocated, its spill stores and loads, the
stack frame, and what the cubin records (the register cap from the launch bounds). One
`nvcc -cubin -Xptxas -v` per file and target (minutes for a CUTLASS GEMM file, seconds for a small
kernel), its report parsed by cutlint.binaries.ptxas and its cubin read by cutlint.binaries.

Results are cached like the host probes' (cache.py): one JSON file per key, the key a hash of the
file's bytes, the flags, the target and the whole `nvcc --version` text, under
`<cache>/verify/device/<key[:2]>/<key>.json`; `--shard K/N` deals the files out as the host
probes do, so N machines compile disjoint parts and a merged cache compiles nothing again."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cutlint.binaries import ptxas
from cutlint.binaries.cubin import kernels
from cutlint.binaries.elf import read_elf
from cutlint.binaries.store import by_source

if TYPE_CHECKING:
    from cutlint.verify.run import VerifyOptions

CACHE_FORMAT = 1
"""Bump when what an entry holds changes."""


@dataclass(frozen=True)
class DeviceReport:
    path: str
    target: str
    """`sm_90a`: the cubin's target."""
    kernels: tuple[dict[str, Any], ...]
    """Per entry function: ptxas's registers, stack frame, spill stores and loads, static shared
    memory, and the cubin's register cap and launch bounds."""
    seconds: float
    cached: bool
    error: str | None = None


def cache_key(source: bytes, flags: Sequence[str], target: str, nvcc_version: str) -> str:
    h = hashlib.sha256()
    for part in (str(CACHE_FORMAT), nvcc_version, target, *flags):
        h.update(part.encode() + b"\0")
    h.update(source)
    return h.hexdigest()


def _entry(cache: Path, key: str) -> Path:
    return cache / "verify" / "device" / key[:2] / f"{key}.json"


def _store(path: Path, report: DeviceReport) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(asdict(report), f)
    os.replace(tmp, path)  # a parallel run never reads half an entry


def compile_report(
    path: Path,
    flags: Sequence[str],
    target: str,
    nvcc: str,
    nvcc_version: str,
    cache: Path | None,
    timeout: float = 1800.0,
) -> DeviceReport:
    """ptxas's report and the cubin's numbers for `path` compiled for `target` (`sm_90a`)."""
    source = path.read_bytes()
    key = cache_key(source, flags, target, nvcc_version)
    if cache is not None and _entry(cache, key).is_file():
        data = json.loads(_entry(cache, key).read_text())
        data["kernels"] = tuple(data["kernels"])
        report = DeviceReport(**{**data, "cached": True})
        if not by_source(cache, source, target).is_file():
            _store(by_source(cache, source, target), report)  # an entry made before the index
        return report
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cutlint-device-") as tmp:
        cubin = Path(tmp) / "unit.cubin"
        cmd = [
            nvcc,
            "-cubin",
            f"-arch={target}",
            "-Xptxas",
            "-v",
            *flags,
            "-o",
            str(cubin),
            str(path),
        ]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return DeviceReport(
                str(path), target, (), timeout, False, f"nvcc ran past {timeout:.0f} s"
            )
        seconds = time.perf_counter() - start
        if run.returncode != 0:
            tail = (run.stderr or run.stdout).strip().splitlines()[-5:]
            return DeviceReport(str(path), target, (), seconds, False, "\n".join(tail))
        recorded = {k.name: k for k in kernels(read_elf(cubin.read_bytes()))}
    rows = []
    for k in ptxas.parse(run.stdout + run.stderr):
        c = recorded.get(k.name)
        rows.append(
            {
                **asdict(k),
                "register_cap": c.register_cap if c else None,
                "max_threads": list(c.max_threads) if c and c.max_threads else None,
            }
        )
    report = DeviceReport(str(path), target, tuple(rows), seconds, False)
    if cache is not None:
        _store(_entry(cache, key), report)
        _store(by_source(cache, source, target), report)
    return report


def shard_files(files: Sequence[Path], index: int, count: int) -> list[Path]:
    """The index-th of count parts (1-based), in path order dealt out in turn (as run.Shard)."""
    return sorted(files)[index - 1 :: count]


def _target(arch: str | None) -> str:
    """`sm_90` -> `sm_90a`: CUTLASS's SM90+ GEMMs need the arch-specific target (wgmma, TMA)."""
    from cutlint.model.arch import arch_for

    sm = arch_for(arch or "sm_90").sm
    return f"sm_{sm}a" if sm >= 90 else f"sm_{sm}"


def file_flags(
    path: Path, arch: str | None, flags: Sequence[str], search: Any, nvcc: str, workdir: Path
) -> tuple[list[str], str, str | None]:
    """The flags and target of one file: the caller's `--device-flag`s, else, for a file of a
    FlashInfer cache, those FlashInfer's JIT compiles it with (device_flags.derive, against the
    release's headers from `search`, a headers.HeaderSearch); `--arch` overrides the target.
    Third: why the flags could not be derived, or None."""
    from cutlint.verify.device_flags import DeviceFlagsError, derivable, derive, without_pic

    if flags or search is None or not derivable(path):
        return list(flags), _target(arch), None
    from cutlint.context.of_file import release_at
    from cutlint.verify import cublas, curand
    from cutlint.verify.headers import SetupError
    from cutlint.verify.probe_flags import extra_system_includes

    try:
        headers = search.for_version(release_at(str(path)), str(path))
        system = extra_system_includes(nvcc)
        includes = [a for d in system for a in ("-isystem", str(d))]
        if cublas.find_real_headers(nvcc, includes) is None:
            system.append(cublas.write_shim(workdir / "shim"))
        if curand.find_real_header(nvcc, includes) is None:
            system.append(curand.write_shim(workdir / "shim"))
        derived = derive(path, headers.root, workdir / "render", system)
    except (DeviceFlagsError, SetupError) as e:
        return [], _target(arch), str(e)
    return without_pic(derived.flags), _target(arch) if arch else derived.target, None


def device_command(
    paths: Sequence[Path],
    options: VerifyOptions,
    flags: Sequence[str],
    fmt: str,
    search: Any = None,
) -> int:
    """`cutlint verify --device-code`: one report per file; exit 2 when a file does not compile.
    Without `--device-flag`, each file's flags are derived from its release (`file_flags`).
    Of `options`, the arch, nvcc, cache directory, cache use and shard apply."""
    import click

    from cutlint.verify.cache import default_cache_dir
    from cutlint.verify.headers import find_nvcc

    arch, shard = options.arch, options.shard
    compiler = find_nvcc(options.nvcc)
    files = [f for p in paths for f in (sorted(p.rglob("*.cu")) if p.is_dir() else [p])]
    if shard is not None:
        files = shard_files(files, shard.index, shard.count)
    cache = options.cache_dir or default_cache_dir()
    reports = []
    workdir = cache / "verify" / "device-work"
    for f in files:
        f_flags, target, why = file_flags(f, arch, flags, search, compiler.path, workdir)
        if why is not None:
            reports.append(DeviceReport(str(f), target, (), 0.0, False, f"no flags: {why}"))
            continue
        if not options.use_cache:
            key = cache_key(f.read_bytes(), f_flags, target, compiler.version_text)
            _entry(cache, key).unlink(missing_ok=True)
        reports.append(
            compile_report(f, f_flags, target, compiler.path, compiler.version_text, cache)
        )
    if fmt == "json":
        click.echo(json.dumps([asdict(r) for r in reports], indent=1))
    else:
        for r in reports:
            how = "cached" if r.cached else f"{r.seconds:.1f} s"
            click.echo(f"{r.path} ({r.target}, {how})" + (f": {r.error}" if r.error else ""))
            for k in r.kernels:
                click.echo(
                    f"  {k['name'][:100]}: {k['registers']} registers (cap {k['register_cap']}), "
                    f"{k['stack_frame']} B stack frame, {k['spill_stores']} B spill stores, "
                    f"{k['spill_loads']} B spill loads"
                )
    return 2 if any(r.error for r in reports) else 0
