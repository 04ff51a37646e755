"""`cutlint verify` for the families whose probe is neither the fused-MoE launcher probe
(cutlint.verify.run) nor the `using`-chain one (cutlint.verify.alias_run): a small dispatch by
the family's `probe` name to the probe that builds its kernels.

- `jit-module` (every JitModuleFamily: FlashInfer's JIT-rendered GEMM modules):
  cutlint.verify.jit_probe with the family's `probe.py` (its header patches), the module's own
  `extra_cuda_cflags` (the release's JIT functions, rendered again: producers.flashinfer.
  jit_modules) and the target of the file's arch directory (`103a`: `compute_103a`).
- `sm80-fused-moe-launcher`: the family's probe module (families/sm80_fused_moe/probe.py,
  through the registry), run by cutlint.verify.sm80_fused_moe_probe.
- `sm90-mixed-launcher` (fpA_intB GEMM and mixed-input MoE): families/sm90_mixed_gemm/probe.py,
  run by cutlint.verify.sm90_mixed_probe.

Every probe compiles the real files against the headers of the release that wrote them (the same
HeaderSearch as the launcher probe: `--headers`, the installed package, `--download`). Files of
one group (what may share a translation unit) are compiled a batch at a time, `--jobs` batches
at once; a batch that fails is compiled again file by file, so that an error costs only its own
file. Each instantiation's row is cached (cutlint.verify.cache) under a toolchain whose probe hash
is the probe's method (the patched headers and flags as nvcc is given them).

A probe row carries the compared fields the probe does not measure (`ProbeRow.unmeasured`):
the SM80 fused-MoE kernel has no mainloop and epilogue storage of its own, so its probe reports
only the kernel's SharedStorage, stages and threads.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Protocol

from cutlint.context.of_file import release_at, target_at
from cutlint.families.probe import PatchError
from cutlint.families.registry import family_of, probe_module
from cutlint.producers.flashinfer.cache_layout import jit_module_dir
from cutlint.records import FileResult, Instantiation, InstantiationResult, Verdict
from cutlint.verify import (
    dask_runner,
    jit_probe,
    jit_truth,
    sm80_fused_moe_probe,
    sm90_mixed_probe,
)
from cutlint.verify.cache import ResultCache, Toolchain, cache_key, sha256_file
from cutlint.verify.headers import Headers, HeaderSearch, Nvcc, SetupError
from cutlint.verify.probe_build import PROBE_MAIN_CPP
from cutlint.verify.probe_flags import JIT_DEFAULT_FLAGS
from cutlint.verify.probe_records import ProbeError, ProbeRow
from cutlint.verify.result import FileRun

Say = Callable[[str], None]

JIT_PROBE = "jit-module"
SM80_PROBE = sm80_fused_moe_probe.PROBE
SM90_MIXED_PROBE = "sm90-mixed-launcher"


def _family_probe(r: InstantiationResult) -> str | None:
    return family_of(r.recipe).probe if r.recipe is not None else None


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


class FileProbe:
    """One probe behind `cutlint verify`: which instantiations it builds, how files group into
    translation units, what its method is (for the cache), and the compile itself."""

    name: str
    batch: int = 1
    """Files per translation unit."""

    def __reduce__(self) -> tuple[Callable[[str], FileProbe], tuple[str]]:
        """A probe travels to a Dask worker (verify/dask_runner.py) as its name: the worker's
        own instance, with its lock and what it has rendered, is used there."""
        return (_registered, (self.name,))

    def builds(self, r: InstantiationResult) -> bool:
        """Whether this probe builds the instantiation (its family names this probe, it is
        compiled under the define set, and the probe knows its kind)."""
        return (
            _family_probe(r) == self.name
            and r.verdict is not Verdict.INACTIVE
            and self.knows(r.instantiation)
        )

    def knows(self, inst: Instantiation) -> bool:
        raise NotImplementedError

    def batch_size(self, f: FileResult) -> int:
        """Files per translation unit for the group of `f`."""
        return self.batch

    def group(self, f: FileResult) -> str:
        """Files of one group share a toolchain and may share a translation unit."""
        return ""

    def method(self, headers: Headers, f: FileResult, workdir: Path) -> str:
        """What nvcc is given besides the file (paths of the tree replaced): the cache's probe
        hash."""
        raise NotImplementedError

    def compile(
        self, files: Sequence[FileResult], headers: Headers, nvcc: Nvcc, workdir: Path
    ) -> list[ProbeRow]:
        """One row per instantiation the probe built; ProbeError when the compile fails."""
        raise NotImplementedError

    def unmeasured_note(self) -> str | None:
        return None


_OBJECT_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])[ \t]*(.*)$", re.M)

# --- jit-module ---------------------------------------------------------------------------------


class JitModuleProbe(FileProbe):
    """FlashInfer's JIT-rendered GEMM modules (cutlint.verify.jit_probe)."""

    name = JIT_PROBE

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rendered: dict[tuple[Path, str, str], dict[str, object]] = {}

    @staticmethod
    def probe_module(r_or_recipe: InstantiationResult) -> ModuleType | None:
        if r_or_recipe.recipe is None:
            return None
        return probe_module(family_of(r_or_recipe.recipe))

    def knows(self, inst: Instantiation) -> bool:
        return jit_module_dir(inst.span.path) is not None and target_at(inst.span.path) is not None

    def builds(self, r: InstantiationResult) -> bool:
        if not super().builds(r):
            return False
        probe = self.probe_module(r)
        inst = r.instantiation
        return (
            probe is not None
            and inst.name in probe.INSTANTIATIONS
            and probe.claims_file(Path(inst.span.path))
        )

    def _probe_of(self, f: FileResult) -> ModuleType:
        for r in f.instantiations:
            if self.builds(r):
                probe = self.probe_module(r)
                assert probe is not None
                return probe
        raise ProbeError(f"{f.path}: no instantiation this probe builds")

    def batch_size(self, f: FileResult) -> int:
        """The family's probe module's FILES_PER_COMPILE (what keeps one compile near 2-3 GB)."""
        per: int = getattr(self._probe_of(f), "FILES_PER_COMPILE", jit_truth.FILES_PER_COMPILE)
        return per

    def group(self, f: FileResult) -> str:
        """The family's module, the target, the module directory, the probe module's `tu_key`,
        and the file's own #defines: a file that defines a macro before the header
        (FLASHINFER_SM103_GENERIC_NOSMEM_EPILOGUE) selects another header than one that does
        not, and the header's include guard keeps only the first file's choice in one
        translation unit."""
        probe = self._probe_of(f)
        tu: Callable[[Path], str] = getattr(probe, "tu_key", lambda _: "")
        target = target_at(f.path, f.context)
        defines = " ".join(
            " ".join(m.group(1, 2)).strip()
            for m in _OBJECT_DEFINE.finditer(Path(f.path).read_text(errors="replace"))
        )
        return f"{probe.__name__}|{target}|{jit_module_dir(f.path)}|{tu(Path(f.path))}|{defines}"

    def _module(self, headers: Headers, f: FileResult, workdir: Path) -> object:
        """The RenderedModule (name, cuda flags) of the file's module directory: the release's
        JIT functions rendered again for the file's device, once per release and device."""
        from cutlint.producers.flashinfer.jit_modules import JitRenderError, render_jit_specs

        target = target_at(f.path, f.context)
        assert target is not None
        sm, suffix = target
        version = release_at(f.path, f.context) or headers.flashinfer_version or "unknown"
        arch_dir = f"{sm}{suffix}"
        key = (headers.root, version, arch_dir)
        with self._lock:
            if key not in self._rendered:
                out = workdir / "jit-render" / version / arch_dir
                shutil.rmtree(out, ignore_errors=True)
                try:
                    modules = render_jit_specs(headers.root, version, out, sm, arch_dir)
                except JitRenderError as e:
                    raise ProbeError(f"rendering the release's JIT modules: {e}") from e
                by_dir: dict[str, object] = {}
                for m in modules:
                    for p in m.generated:
                        by_dir.setdefault(p.parent.name, m)
                self._rendered[key] = by_dir
            by_dir = self._rendered[key]
        module = by_dir.get(Path(f.path).parent.name)
        if module is None:
            raise ProbeError(
                f"the release's JIT functions render no module into {Path(f.path).parent.name}"
            )
        return module

    @staticmethod
    def _gencode(path: str) -> str:
        target = target_at(path)
        assert target is not None
        arch = f"{target[0]}{target[1]}"
        return f"-gencode=arch=compute_{arch},code=sm_{arch}"

    def method(self, headers: Headers, f: FileResult, workdir: Path) -> str:
        probe = self._probe_of(f)
        module = self._module(headers, f, workdir)
        include = headers.root / "flashinfer" / "data" / "include"
        texts = []
        for p in jit_truth._patches(probe, module.name):  # type: ignore[attr-defined]
            real = include / p.header
            if not real.is_file():
                raise ProbeError(f"{real} does not exist: not a FlashInfer tree with this family")
            text = jit_probe.patch_header(real.read_text(encoding="utf-8"), p, real.parent)
            texts.append(text.replace(str(headers.root.resolve()), "<root>"))
        return "\n".join(
            [
                *texts,
                jit_probe.HELPER_CPP,
                *JIT_DEFAULT_FLAGS,
                *module.cuda_flags,  # type: ignore[attr-defined]
                self._gencode(f.path),
            ]
        )

    def compile(
        self, files: Sequence[FileResult], headers: Headers, nvcc: Nvcc, workdir: Path
    ) -> list[ProbeRow]:
        probe = self._probe_of(files[0])
        module = self._module(headers, files[0], workdir)
        run = jit_probe.run_probe(
            headers.root,
            [Path(f.path) for f in files],
            jit_truth._patches(probe, module.name),  # type: ignore[attr-defined]
            module.cuda_flags,  # type: ignore[attr-defined]
            workdir / "probe",
            nvcc=nvcc.path,
            gencode=self._gencode(files[0].path),
        )
        macro_args = getattr(probe, "macro_args", None)
        labels: dict[str, str] | None = getattr(probe, "LABELS", None)
        out: list[ProbeRow] = []
        for f in files:
            for r in f.instantiations:
                if not self.builds(r):
                    continue
                inst = r.instantiation
                rows = jit_truth.match(run.rows, inst, macro_args)
                if labels is not None:
                    rows = [x for x in rows if x.label == labels.get(inst.name)]
                if rows:
                    out.append(_jit_row(f.path, inst, rows))
        return out


def _jit_row(path: str, inst: Instantiation, rows: Sequence[jit_probe.JitProbeRow]) -> ProbeRow:
    """A call that builds several kernels is judged by the one that needs the most shared memory
    (JitModuleFamily: the runner fails when either cannot initialize): that kernel's numbers,
    with every kernel's SharedStorageSize among the members."""
    k = max(rows, key=lambda x: x.kernel_smem)
    members = dict(k.members)
    for x in rows:
        members[f"{x.label}.kernel_smem"] = x.kernel_smem
    return ProbeRow(
        path=path,
        line=inst.span.line,
        args=inst.args,
        stages=k.stages,
        mainloop_smem=k.mainloop_smem,
        epilogue_smem=k.epilogue_smem,
        kernel_smem=k.kernel_smem,
        kernel_align=k.kernel_align,
        max_threads_per_block=k.max_threads_per_block,
        members=members,
    )


# --- sm80 fused MoE -----------------------------------------------------------------------------

SM80_UNMEASURED = ("mainloop_smem_bytes", "epilogue_smem_bytes")


class Sm80FusedMoeProbe(FileProbe):
    """`sm80_generic_fused_moe_gemm_kernelLauncher` (cutlint.verify.sm80_fused_moe_probe): the
    kernel's `kSmemSize`, its traits' `Stages` and `kThreadCount`. The kernel has one
    SharedStorage (no mainloop and epilogue collectives): those two fields are not measured."""

    name = SM80_PROBE
    batch = 9
    """A release's gemm_grouped/80 files (9), in one translation unit as the truth tool does."""

    def knows(self, inst: Instantiation) -> bool:
        name: str = sm80_fused_moe_probe.spec().LAUNCHER_NAME
        return _short(inst.name) == name

    def method(self, headers: Headers, f: FileResult, workdir: Path) -> str:
        launcher = headers.root / "flashinfer" / "data" / "csrc" / "nv_internal"
        spec = sm80_fused_moe_probe.spec()
        launcher = launcher / spec.SM80_LAUNCHER_REL
        if not launcher.is_file():
            raise ProbeError(f"launcher not found: {launcher}")
        try:
            patched: str = spec.patch_launcher(launcher.read_text(), launcher)
        except PatchError as exc:
            raise ProbeError(str(exc)) from exc
        return "\n".join(
            [patched.replace(str(headers.root.resolve()), "<root>"), PROBE_MAIN_CPP, "sm80"]
        )

    def compile(
        self, files: Sequence[FileResult], headers: Headers, nvcc: Nvcc, workdir: Path
    ) -> list[ProbeRow]:
        run = sm80_fused_moe_probe.run_probe(
            [Path(f.path) for f in files],
            headers.root,
            nvcc.path,
            workdir / "probe",
            found=_found(files),
        )
        return [
            ProbeRow(
                path=r.path,
                line=r.line,
                args=r.args,
                stages=r.members["base.Stages"],
                mainloop_smem=0,
                epilogue_smem=0,
                kernel_smem=r.smem_size,
                kernel_align=r.members.get("base.alignof", 0),
                max_threads_per_block=r.threads_per_block,
                members=dict(r.members),
                unmeasured=SM80_UNMEASURED,
            )
            for r in run.rows
        ]

    def unmeasured_note(self) -> str | None:
        return "one SharedStorage, no mainloop/epilogue split"


# --- sm90 mixed input ---------------------------------------------------------------------------


class Sm90MixedProbe(FileProbe):
    """`sm90_generic_mixed_gemm_kernelLauncher` (gemm/90) and the mixed-input MoE launchers
    (gemm_grouped/90 `*_Mixed_*`): the families' probe module (families/sm90_mixed_gemm/probe.py),
    run by cutlint.verify.sm90_mixed_probe."""

    name = SM90_MIXED_PROBE
    batch = 2
    """A gemm/90 file holds up to a few dozen kernels: two files keep a compile near 2-3 GB."""

    def knows(self, inst: Instantiation) -> bool:
        spec = sm90_mixed_probe.spec()
        return _short(inst.name) in (spec.LAUNCHER_NAME, *spec.MOE_LAUNCHER_NAMES)

    @staticmethod
    def _moe(f: FileResult) -> bool:
        return any(
            _short(r.instantiation.name) in sm90_mixed_probe.spec().MOE_LAUNCHER_NAMES
            for r in f.instantiations
        )

    def group(self, f: FileResult) -> str:
        return "moe" if self._moe(f) else "gemm"

    def method(self, headers: Headers, f: FileResult, workdir: Path) -> str:
        moe = self._moe(f)
        spec = sm90_mixed_probe.spec()
        rel = spec.MOE_LAUNCHER_REL if moe else spec.LAUNCHER_REL
        launcher = headers.root / "flashinfer" / "data" / "csrc" / "nv_internal" / rel
        if not launcher.is_file():
            raise ProbeError(f"launcher not found: {launcher}")
        patch = spec.patch_moe_launcher if moe else spec.patch_launcher
        try:
            patched: str = patch(launcher.read_text(), launcher)
        except PatchError as exc:
            raise ProbeError(str(exc)) from exc
        return "\n".join(
            [
                patched.replace(str(headers.root.resolve()), "<root>"),
                spec.HELPERS_HPP,
                PROBE_MAIN_CPP,
                "moe" if moe else "gemm",
            ]
        )

    def compile(
        self, files: Sequence[FileResult], headers: Headers, nvcc: Nvcc, workdir: Path
    ) -> list[ProbeRow]:
        run = sm90_mixed_probe.run_probe(
            [Path(f.path) for f in files],
            headers.root,
            nvcc.path,
            workdir / "probe",
            moe=self._moe(files[0]),
            found=_found(files),
        )
        return [
            ProbeRow(
                path=r.path,
                line=r.line,
                args=r.args,
                stages=r.stages,
                mainloop_smem=r.mainloop_size,
                epilogue_smem=r.epilogue_size,
                kernel_smem=r.smem_size,
                kernel_align=r.members.get("kernel.alignof", 0),
                max_threads_per_block=r.max_threads_per_block,
                members=dict(r.members),
            )
            for r in run.rows
        ]


def _found(files: Sequence[FileResult]) -> dict[str, list[Instantiation]]:
    """check's instantiations of each file: the probe pairs the compiler's rows with them, not
    with a parse of its own."""
    return {f.path: [r.instantiation for r in f.instantiations] for f in files}


PROBES: dict[str, FileProbe] = {
    p.name: p for p in (JitModuleProbe(), Sm80FusedMoeProbe(), Sm90MixedProbe())
}
"""The probes of this module, by the name families give (`Family.probe`)."""


def _registered(name: str) -> FileProbe:
    return PROBES[name]


def probe_for(r: InstantiationResult) -> FileProbe | None:
    """The probe of this module that builds the instantiation, or None."""
    probe = PROBES.get(_family_probe(r) or "")
    return probe if probe is not None and probe.builds(r) else None


# --- the run ------------------------------------------------------------------------------------


@dataclass
class ProbeJob:
    """One file that holds instantiations one of these probes builds."""

    result: FileResult
    probe: FileProbe
    version: str | None
    headers: Headers
    sha256: str
    group: str = ""
    toolchain: Toolchain | None = None
    rows: dict[int, ProbeRow] = field(default_factory=dict)
    cached: bool = False
    run: FileRun | None = None
    error: str | None = None
    """Set before any compile when the probe cannot be prepared for this file."""

    @property
    def probed(self) -> list[InstantiationResult]:
        return [r for r in self.result.instantiations if self.probe.builds(r)]

    def builds(self, r: InstantiationResult) -> bool:
        return self.probe.builds(r)

    def key(self, args: Sequence[str]) -> str:
        assert self.toolchain is not None
        return cache_key(self.toolchain, self.sha256, args)


def _toolchain(job: ProbeJob, nvcc: Nvcc, method: str) -> Toolchain:
    version_h = job.headers.cutlass_include / "cutlass" / "version.h"
    digest = hashlib.sha256(f"{job.probe.name}\n{method}".encode()).hexdigest()
    return Toolchain(
        flashinfer_version=job.version or job.headers.flashinfer_version or "unknown",
        launcher_sha256=digest,
        cutlass_version_h_sha256=sha256_file(version_h) if version_h.is_file() else "",
        nvcc_version=nvcc.version_text,
        probe_sha256=digest,
    )


def plan(files: Sequence[FileResult], search: HeaderSearch) -> tuple[list[ProbeJob], list[str]]:
    """The files these probes build, each with its release's headers; or what is missing."""
    jobs: list[ProbeJob] = []
    missing: list[str] = []
    for f in sorted(files, key=lambda f: f.path):
        probes = [p for r in f.instantiations if (p := probe_for(r)) is not None]
        if not probes:
            continue
        probe = max(set(probes), key=probes.count)  # a file is one kind of generated file
        version = release_at(f.path, f.context) or search.single_version()
        try:
            headers = search.for_version(version, f.path)
        except SetupError as e:
            if str(e) not in missing:
                missing.append(str(e))
            continue
        sha = hashlib.sha256(Path(f.path).read_bytes()).hexdigest()
        jobs.append(ProbeJob(f, probe, version or headers.flashinfer_version, headers, sha))
    return jobs, missing


def _prepare(jobs: Sequence[ProbeJob], nvcc: Nvcc, build: Path) -> None:
    """Each job's group and toolchain (its probe's method, once per release and group)."""
    methods: dict[tuple[str, Path, str], str] = {}
    for job in jobs:
        try:
            job.group = job.probe.group(job.result)
            key = (job.probe.name, job.headers.root, job.group)
            if key not in methods:
                methods[key] = job.probe.method(job.headers, job.result, build)
            # the group is part of the method: it decides what shares a translation unit
            job.toolchain = _toolchain(job, nvcc, f"{job.group}\n{methods[key]}")
        except ProbeError as e:
            job.error = str(e)


def _from_cache(job: ProbeJob, cache: ResultCache) -> bool:
    rows: dict[int, ProbeRow] = {}
    for r in job.probed:
        row = cache.get(job.key(r.instantiation.args), job.result.path)
        if row is None:
            return False
        rows[r.instantiation.span.line] = row
    job.rows, job.cached = rows, True
    return True


def _compile_batch(
    batch: Sequence[ProbeJob], nvcc: Nvcc, build: Path, keep: bool
) -> list[tuple[ProbeJob, list[ProbeRow] | BaseException, float | None]]:
    """Compile a batch; if it fails and holds several files, each file alone."""
    import tempfile
    import time

    def attempt(part: Sequence[ProbeJob]) -> tuple[list[ProbeRow] | BaseException, float]:
        build.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{part[0].probe.name}-", dir=build))
        started = time.monotonic()
        try:
            rows = part[0].probe.compile([j.result for j in part], part[0].headers, nvcc, work)
            return rows, time.monotonic() - started
        except Exception as e:  # a probe's failure costs its files only
            return e, time.monotonic() - started
        finally:
            if not keep:
                shutil.rmtree(work / "probe", ignore_errors=True)

    got, seconds = attempt(batch)
    if isinstance(got, BaseException) and len(batch) > 1:
        out: list[tuple[ProbeJob, list[ProbeRow] | BaseException, float | None]] = []
        for job in batch:
            alone, s = attempt([job])
            out.append((job, alone, None if isinstance(alone, BaseException) else s))
        return out
    per_file = None if isinstance(got, BaseException) else seconds / len(batch)
    return [(job, got, per_file) for job in batch]


def _finish(
    job: ProbeJob,
    outcome: list[ProbeRow] | BaseException,
    seconds: float | None,
    cache: ResultCache,
) -> None:
    error: str | None = None
    if isinstance(outcome, BaseException):
        error = str(outcome) if isinstance(outcome, ProbeError) else repr(outcome)
        rows: list[ProbeRow] = []
    else:
        mine = Path(job.result.path).resolve()
        rows = [r for r in outcome if Path(r.path).resolve() == mine]
    job.rows = {r.line: r for r in rows}
    for row in rows:
        cache.put(job.key(row.args), row, seconds or 0.0)
    job.run = FileRun(
        path=job.result.path,
        flashinfer_version=job.version,
        headers=str(job.headers.root),
        instantiations=len(job.probed),
        compiled=True,
        seconds=round(seconds, 1) if seconds is not None else None,
        error=error,
    )


class CompileSettings(Protocol):
    """What `run` reads of the run's options (verify.run.VerifyOptions has them)."""

    @property
    def jobs(self) -> int: ...
    @property
    def use_cache(self) -> bool: ...
    @property
    def keep_build(self) -> bool: ...
    @property
    def scheduler(self) -> str | None: ...


@dataclass
class Planned:
    """What these probes will do: every file they build (cached ones answered already) and the
    batches of the rest, one translation unit each."""

    jobs: list[ProbeJob] = field(default_factory=list)
    batches: list[list[ProbeJob]] = field(default_factory=list)

    @property
    def todo(self) -> int:
        return sum(len(b) for b in self.batches)


def prepare(
    files: Sequence[FileResult],
    search: HeaderSearch,
    nvcc: Nvcc,
    cache: ResultCache,
    *,
    use_cache: bool = True,
) -> Planned:
    """The files these probes build, answered from the cache where it can, and the batches to
    compile. Raises SetupError (before any compile) when a release's headers are missing."""
    planned, missing = plan(files, search)
    if missing:
        raise SetupError("\n".join(missing))
    _prepare(planned, nvcc, cache.root.parent / "build")
    todo: list[ProbeJob] = []
    for job in planned:
        if job.error is not None:
            job.run = FileRun(
                path=job.result.path,
                flashinfer_version=job.version,
                headers=str(job.headers.root),
                instantiations=len(job.probed),
                compiled=False,
                error=job.error,
            )
        elif not (use_cache and _from_cache(job, cache)):
            todo.append(job)
    groups: dict[tuple[str, Path, str], list[ProbeJob]] = {}
    for job in todo:
        groups.setdefault((job.probe.name, job.headers.root, job.group), []).append(job)
    batches: list[list[ProbeJob]] = []
    for g in groups.values():
        per = max(1, g[0].probe.batch_size(g[0].result))
        batches += [g[i : i + per] for i in range(0, len(g), per)]
    return Planned(planned, batches)


def announce(planned: Planned, nvcc: Nvcc, jobs: int) -> str:
    """The line that says what is about to be compiled."""
    names = sorted({j.probe.name for b in planned.batches for j in b})
    return (
        f"compiling {planned.todo} file(s) ({', '.join(names)}) with nvcc {nvcc.release}, "
        f"{len(planned.batches)} translation unit(s), {jobs} at a time"
    )


def submit(
    pool: Executor, batch: Sequence[ProbeJob], nvcc: Nvcc, build: Path, keep_build: bool
) -> Future[list[tuple[ProbeJob, list[ProbeRow] | BaseException, float | None]]]:
    """The batch's compile, on the pool (Dask: verify/dask_runner.py)."""
    return pool.submit(_compile_batch, batch, nvcc, build, keep_build)


def finish_batch(
    batch: Sequence[ProbeJob],
    fut: Future[list[tuple[ProbeJob, list[ProbeRow] | BaseException, float | None]]],
    cache: ResultCache,
) -> list[tuple[ProbeJob, float | None]]:
    """Record a finished batch's outcome on this process's jobs (the task's are copies: Dask
    serializes a task's arguments), in the batch's order; each job with its seconds."""
    lost = fut.exception()  # the task itself failed: its workers were lost too often
    results = fut.result() if lost is None else [(j, lost, None) for j in batch]
    out: list[tuple[ProbeJob, float | None]] = []
    for job, (_, outcome, seconds) in zip(batch, results, strict=True):
        _finish(job, outcome, seconds, cache)
        out.append((job, seconds))
    return out


def done_line(done: int, total: int, job: ProbeJob, seconds: float | None) -> str:
    """The progress line of a finished file: `[3/53]  41.2 s  0.7.4  <file>`."""
    took = "failed" if job.run is None or job.run.error else f"{seconds or 0:5.1f} s"
    return f"[{done}/{total}] {took}  {job.version or '?'}  {Path(job.result.path).name}"


def run(
    files: Sequence[FileResult],
    search: HeaderSearch,
    nvcc: Nvcc,
    cache: ResultCache,
    settings: CompileSettings,
    progress: Say | None = None,
) -> list[ProbeJob]:
    """Verify the files these probes build: from the cache, else compiled `jobs` batches at a
    time (`cutlint verify` itself runs these batches on one pool with the launcher probe's
    files: cutlint.verify.run). Raises SetupError (before any compile) when a release's headers
    are missing."""
    jobs, keep_build = settings.jobs, settings.keep_build
    planned = prepare(files, search, nvcc, cache, use_cache=settings.use_cache)
    if not planned.batches:
        return planned.jobs
    if progress is not None:
        progress(announce(planned, nvcc, jobs))
    build = cache.root.parent / "build"
    done = 0
    with dask_runner.executor(jobs, settings.scheduler) as pool:  # Dask: verify/dask_runner.py
        futures = {submit(pool, b, nvcc, build, keep_build): b for b in planned.batches}
        for fut in as_completed(futures):
            for job, seconds in finish_batch(futures[fut], fut, cache):
                done += 1
                if progress is not None:
                    progress(done_line(done, planned.todo, job, seconds))
    return planned.jobs


def file_run(job: ProbeJob) -> FileRun:
    if job.run is not None:
        return job.run
    return FileRun(
        path=job.result.path,
        flashinfer_version=job.version,
        headers=str(job.headers.root),
        instantiations=len(job.probed),
        compiled=False,
    )


__all__ = [
    "JIT_PROBE",
    "PROBES",
    "SM80_PROBE",
    "SM90_MIXED_PROBE",
    "FileProbe",
    "Planned",
    "ProbeJob",
    "announce",
    "done_line",
    "file_run",
    "finish_batch",
    "plan",
    "prepare",
    "probe_for",
    "run",
    "submit",
]
