"""`cutlint verify` for kernels defined by `using` chains (families whose probe is ALIAS_PROBE):
compile their files with cutlint.verify.alias_probe against CUTLASS's own headers and hand back
the compiler's numbers per instantiation, cached like the launcher probe's (cutlint.verify.cache).

The headers are a CUTLASS source tree: `--cutlass-source DIR` (a CUTLASS checkout, or the
`cutlass_library/source` of an unpacked nvidia-cutlass wheel), else the nvidia-cutlass wheel in
cutlint's cache (fetched with `--download`). The model is judged for the same CUTLASS version
(its `include/cutlass/version.h`), and the kernels are compiled for the arch they are checked
for (`-gencode arch=compute_<sm>a`).
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.families.registry import family_of, probe_spec
from cutlint.producers.cutlass_library import generate as cutlass_library
from cutlint.records import FileResult, InstantiationResult, Verdict
from cutlint.verify import alias_probe
from cutlint.verify.cache import ResultCache, Toolchain, cache_key
from cutlint.verify.headers import Nvcc, SetupError
from cutlint.verify.probe_records import ProbeRow
from cutlint.verify.result import FileRun

ALIAS_PROBE = "cutlass-alias"
"""The probe name families of `using`-chain kernels give (`Family.probe`)."""

Say = Callable[[str], None]
HEADERS_LABEL = "CUTLASS headers"
"""How a file run of this probe names its headers (`CUTLASS headers <dir>`)."""


def probed(r: InstantiationResult) -> bool:
    """Whether this probe builds the instantiation: its family names it, and it is compiled."""
    return (
        r.recipe is not None
        and family_of(r.recipe).probe == ALIAS_PROBE
        and r.verdict is not Verdict.INACTIVE
    )


def source_root(given: Path | None, download: bool, say: Say | None = None) -> Path:
    """The CUTLASS source tree to compile against; SetupError says how to get one."""
    if given is not None:
        for root in (given, given / "cutlass_library" / "source", given.parent):
            if (root / "include" / "cutlass" / "version.h").is_file() and (
                root / "tools" / "library" / "src"
            ).is_dir():
                return root
        raise SetupError(
            f"--cutlass-source {given}: not a CUTLASS source tree (it needs include/cutlass/"
            "version.h and tools/library/src: a CUTLASS checkout, or an unpacked nvidia-cutlass "
            "wheel's cutlass_library/source)"
        )
    wheel = cutlass_library.wheel_root()
    if not (wheel / "cutlass_library").is_dir():
        if not download:
            raise SetupError(
                "no CUTLASS headers for the cutlass_library kernels: pass --cutlass-source DIR, or "
                f"--download to fetch nvidia-cutlass=={cutlass_library.DEFAULT_VERSION} (6 MB)"
            )
        try:
            wheel = cutlass_library.download(progress=say)
        except cutlass_library.CutlassLibraryError as e:
            raise SetupError(str(e)) from e
    return wheel / "cutlass_library" / "source"


@dataclass
class AliasJob:
    result: FileResult
    sha256: str
    rows: dict[int, ProbeRow]
    cached: bool = False
    run: FileRun | None = None

    @property
    def probed(self) -> list[InstantiationResult]:
        return [r for r in self.result.instantiations if probed(r)]


def _toolchain(source: Path, nvcc: Nvcc, arch: str) -> Toolchain:
    probe_hpp = probe_spec(alias_probe.PROBE).PROBE_CPP
    version_h = source / "include" / "cutlass" / "version.h"
    method = "\n".join([probe_hpp, arch, *alias_probe.include_flags(Path("<src>"), Path("<s>"))])
    return Toolchain(
        flashinfer_version="cutlass_library",
        launcher_sha256=hashlib.sha256(probe_hpp.encode()).hexdigest(),
        cutlass_version_h_sha256=hashlib.sha256(version_h.read_bytes()).hexdigest(),
        nvcc_version=nvcc.version_text,
        probe_sha256=hashlib.sha256(method.encode()).hexdigest(),
    )


def _arch(files: Sequence[FileResult]) -> str:
    sms = {r.resources.arch.sm for f in files for r in f.instantiations if r.resources}
    return f"{max(sms) if sms else 120}a"


def run(
    files: Sequence[FileResult],
    source: Path,
    nvcc: Nvcc,
    cache: ResultCache,
    use_cache: bool,
    progress: Say | None = None,
) -> list[AliasJob]:
    """Compile the files that hold alias-probed instantiations (those not all in the cache)."""
    wanted = [f for f in files if any(probed(r) for r in f.instantiations)]
    if not wanted:
        return []
    arch = _arch(wanted)
    toolchain = _toolchain(source, nvcc, arch)
    jobs: list[AliasJob] = []
    todo: list[AliasJob] = []
    for f in wanted:
        job = AliasJob(f, hashlib.sha256(Path(f.path).read_bytes()).hexdigest(), {})
        jobs.append(job)
        hits = {
            r.instantiation.span.line: cache.get(
                cache_key(toolchain, job.sha256, r.instantiation.args), f.path
            )
            for r in job.probed
        }
        if use_cache and all(row is not None for row in hits.values()):
            job.rows = {line: row for line, row in hits.items() if row is not None}
            job.cached = True
        else:
            todo.append(job)
    if todo:
        if progress is not None:
            progress(f"compiling {len(todo)} cutlass_library file(s) with nvcc {nvcc.release}")
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="cutlint-alias-") as tmp:
            rows, failures = alias_probe.probe(
                [Path(j.result.path) for j in todo],
                source,
                Path(tmp),
                arch,
                nvcc.path,
                progress=progress,
                found={
                    str(Path(j.result.path)): [r.instantiation for r in j.result.instantiations]
                    for j in todo
                },
            )
        seconds = (time.monotonic() - started) / len(todo)
        by_file: dict[str, list[dict[str, object]]] = {}
        for row in rows:
            by_file.setdefault(str(Path(str(row["file"]))), []).append(row)
        failed = {str(f.path): f.error for f in failures}
        for job in todo:
            path = str(Path(job.result.path))
            _finish(job, by_file.get(path, []), failed.get(path), seconds, source)
            for r in job.probed:
                got = job.rows.get(r.instantiation.span.line)
                if got is not None:
                    cache.put(cache_key(toolchain, job.sha256, r.instantiation.args), got, seconds)
    return jobs


def _finish(
    job: AliasJob, rows: list[dict[str, object]], error: str | None, seconds: float, source: Path
) -> None:
    by_line = {r.instantiation.span.line: r for r in job.probed}
    for row in rows:
        r = by_line.get(int(str(row["line"])))
        if r is None or "kernel_smem" not in row:
            continue
        job.rows[r.instantiation.span.line] = ProbeRow(
            path=job.result.path,
            line=r.instantiation.span.line,
            args=r.instantiation.args,
            stages=_int(row, "stages"),
            mainloop_smem=_int(row, "mainloop_smem"),
            epilogue_smem=_int(row, "epilogue_smem"),
            kernel_smem=_int(row, "kernel_smem"),
            kernel_align=_int(row, "kernel_align"),
            max_threads_per_block=_int(row, "threads"),
        )
    job.run = FileRun(
        path=job.result.path,
        flashinfer_version=None,
        headers=f"{HEADERS_LABEL} {source}",
        instantiations=len(job.probed),
        compiled=True,
        seconds=round(seconds, 1) if error is None else None,
        error=error,
    )


def _int(row: dict[str, object], key: str) -> int:
    value = row.get(key, 0)
    return value if isinstance(value, int) else int(str(value))
