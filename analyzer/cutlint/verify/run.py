"""`verify(paths)`: check's model beside the compiler's numbers, for every instantiation.

1. `cutlint check`'s pipeline (parse, then engine.run) finds the instantiations and models them.
2. Each file that holds an SM120 or SM90 grouped MoE GEMM is matched with the headers of the FlashInfer
   release that wrote it (cutlint.verify.headers); a missing nvcc or missing or mismatched
   headers stop the run before any compile, with every missing thing named.
3. Files whose every instantiation is in the cache (cutlint.verify.cache) are not compiled; the
   rest are compiled by the nvcc probe (cutlint.verify.nvcc_probe), `jobs` at a time.
4. Each instantiation's numbers are compared, field by field (cutlint.verify.result.COMPARED).

A probe that fails costs only its own file: its instantiations are marked as compiler errors and
the other files' results are kept.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from cutlint import parse
from cutlint.context.of_file import release_at
from cutlint.engine.options import CheckOptions
from cutlint.engine.stream import outcomes, root_of
from cutlint.families.registry import family_of
from cutlint.records import (
    CheckResult,
    FileResult,
    FormKind,
    Instantiation,
    InstantiationResult,
    SourceSpan,
    Verdict,
)
from cutlint.verify import alias_run, dask_runner, probes
from cutlint.verify.cache import ResultCache, Toolchain, cache_key, default_cache_dir
from cutlint.verify.headers import Headers, HeaderSearch, Nvcc, SetupError, find_nvcc
from cutlint.verify.nvcc_probe import (
    MACRO_NAME,
    ProbeError,
    ProbeRow,
    ProbeRun,
    run_probe,
)
from cutlint.verify.probe_flags import TARGETS, device_gencode
from cutlint.verify.probe_launcher import launcher_of
from cutlint.verify.result import (
    CompilerNumbers,
    FileRun,
    Numbers,
    Status,
    Verified,
    VerifyResult,
    differences,
)

Say = Callable[[str], None]
BACKENDS = ("nvcc", "libclang")
PROBE = "tma-ws-moe-launcher"
"""The probe this module runs (families name it as their `probe`)."""
PROBED_ARCH_TAGS = tuple(TARGETS)
"""Arch tags the nvcc probe builds, each with its FlashInfer module's flags (probe_flags.TARGETS:
Sm120, Sm90, Sm100, Sm103)."""


@dataclass(frozen=True)
class VerifyOptions:
    headers: tuple[Path, ...] = ()
    """`--headers`: FlashInfer roots (one per release verified)."""
    nvcc: str | None = None
    jobs: int = 2
    cache_dir: Path | None = None
    """Base of cutlint's cache (results in `verify/results`, wheels in `wheels`)."""
    use_cache: bool = True
    """False: compile every file again (results are still written)."""
    download: bool = False
    keep_build: bool = False
    extra_include_dirs: tuple[Path, ...] = field(default_factory=tuple)
    backend: str = "nvcc"
    """`--backend`: BACKENDS; `libclang` reads clang's record layout and needs no nvcc."""
    arch: str | None = None
    """`--arch`: the target check judges for (a cutlass_library build's files need it)."""
    cutlass_source: Path | None = None
    """`--cutlass-source`: the CUTLASS tree `using`-chain kernels compile against
    (cutlint.verify.alias_run); default: the nvidia-cutlass wheel in the cache."""
    shard: Shard | None = None
    """`--shard K/N`: verify only the K-th of N parts of the files (one machine's share)."""
    scheduler: str | None = None
    """`--scheduler`: a Dask scheduler's address; None for a LocalCluster of `jobs` workers
    (verify/dask_runner.py)."""
    build_dir: str | None = None
    """`-p BUILD_DIR`: as check's; the files' build context (include path, defines, targets)."""
    compile_command: str | None = None
    """`--compile-command`: as check's."""
    site_packages: tuple[str, ...] = ()
    """`--site-packages`: as check's."""
    defines: Mapping[str, str] = field(default_factory=lambda: dict(parse.DEFAULT_DEFINES))
    """`-D`/`-U` as check takes them (the default set, then -D)."""
    undefines: tuple[str, ...] = ()

    def check_options(self, **given: Any) -> CheckOptions:
        """The options check runs with for the same flags: verify reads every file through
        check's own pipeline and its resolved build context (cutlint.context.resolve), so
        that a macro call is read by the same #define in both (the include path's)."""
        options = CheckOptions(
            jobs=self.jobs,
            arch=self.arch,
            build_dir=self.build_dir,
            compile_command=self.compile_command,
            site_packages=self.site_packages,
            defines=self.defines,
            undefines=self.undefines,
        )
        return replace(options, **given)


@dataclass(frozen=True)
class Shard:
    """The K-th of N parts of a run's files (1 <= K <= N): the files that hold instantiations
    or a diagnostic (an unreadable file fails exactly one shard), in path order, dealt out in turn, so that N machines given the same inputs verify disjoint
    parts that together are the whole, each part with about as many files as the others. Each
    machine caches its own results (`--cache-dir`); a run over the whole input with those
    caches merged compiles nothing again."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        k, sep, n = text.partition("/")
        if not (sep and k.strip().isdigit() and n.strip().isdigit()):
            raise ValueError(f"'{text}' is not K/N (e.g. 1/4)")
        shard = cls(int(k), int(n))
        if not 1 <= shard.index <= shard.count:
            raise ValueError(f"'{text}': K must be between 1 and N")
        return shard

    def take(self, checked: CheckResult) -> CheckResult:
        with_work = sorted(
            (f for f in checked.files if f.instantiations or f.diagnostics), key=lambda f: f.path
        )
        mine = {f.path for f in with_work[self.index - 1 :: self.count]}
        return checked.model_copy(
            update={"files": tuple(f for f in checked.files if f.path in mine)}
        )

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _arch_tag(inst: Instantiation) -> str:
    return inst.args[0].strip() if inst.args else ""


def _probed(r: InstantiationResult) -> bool:
    """Whether the nvcc probe builds this instantiation (and it is compiled at all): its family
    names this probe, and the probe knows the arch tag."""
    if r.recipe is None or family_of(r.recipe).probe != PROBE:
        return False
    return _arch_tag(r.instantiation) in PROBED_ARCH_TAGS and r.verdict is not Verdict.INACTIVE


def _norm(args: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(a.split()) for a in args)


@dataclass
class _FileJob:
    """One file that has instantiations the probe builds."""

    result: FileResult
    version: str | None
    headers: Headers
    toolchain: Toolchain
    file_sha256: str
    rows: dict[int, ProbeRow] = field(default_factory=dict)  # by line
    cached: bool = False
    run: FileRun | None = None
    launcher: Path | None = None
    """The launcher the file's calls were read by, when not the headers' own (launcher_of)."""
    unlike: str | None = None
    """Why the probe cannot build the calls by the #define check read them by: the file's
    probe is then an error, never a comparison of two definitions."""

    @property
    def probed(self) -> list[InstantiationResult]:
        return [r for r in self.result.instantiations if _probed(r)]

    def key(self, args: Sequence[str]) -> str:
        return cache_key(self.toolchain, self.file_sha256, args, device_gencode(self.result.path))


def _describe(paths: Sequence[str]) -> str:
    """One path, or `N files in DIR`, for a message about a release's headers."""
    if len(paths) == 1:
        return paths[0]
    return f"{len(paths)} files in {os.path.commonpath(paths)}"


def _plan(
    check: Sequence[FileResult], search: HeaderSearch, nvcc: Nvcc
) -> tuple[list[_FileJob], list[str]]:
    """The files to probe, each with its release's headers; or what is missing, per release."""
    by_version: dict[str | None, list[FileResult]] = {}
    for f in check:
        if any(_probed(r) for r in f.instantiations):
            version = release_at(f.path, f.context) or search.single_version()
            by_version.setdefault(version, []).append(f)
    jobs: list[_FileJob] = []
    missing: list[str] = []
    for version, files in by_version.items():
        try:
            headers = search.for_version(version, _describe([f.path for f in files]))
            label = headers.flashinfer_version or version or "unknown"
            toolchain = Toolchain.of(label, headers, nvcc.version_text)
        except SetupError as e:
            missing.append(str(e))
            continue
        except ProbeError as e:
            missing.append(f"headers not usable: {headers.root}: {e}")
            continue
        for f in files:
            sha = hashlib.sha256(Path(f.path).read_bytes()).hexdigest()
            job = _FileJob(f, version or headers.flashinfer_version, headers, toolchain, sha)
            launcher, job.unlike = launcher_of(f, headers, _probed)
            if launcher is not None:
                try:
                    job.toolchain = Toolchain.of(label, headers, nvcc.version_text, launcher)
                    job.launcher = launcher
                except ProbeError as e:
                    job.unlike = f"the launcher its calls were read by: {launcher}: {e}"
            jobs.append(job)
    return sorted(jobs, key=lambda j: j.result.path), missing


def _from_cache(job: _FileJob, cache: ResultCache) -> bool:
    rows: dict[int, ProbeRow] = {}
    for r in job.probed:
        row = cache.get(job.key(r.instantiation.args), job.result.path)
        if row is None:
            return False
        rows[r.instantiation.span.line] = row
    job.rows, job.cached = rows, True
    return True


def _probe(
    job: _FileJob, nvcc: Nvcc, options: VerifyOptions, build: Path, log: Say | None
) -> ProbeRun:
    if job.unlike is not None:
        raise ProbeError(f"{job.result.path}: not probed: {job.unlike}")
    if options.backend == "libclang":
        from cutlint.verify import libclang_layout  # loads the clang bindings only when asked

        return libclang_layout.run_layout(
            Path(job.result.path), job.headers.root, build, log=log, launcher=job.launcher
        )
    return run_probe(
        Path(job.result.path),
        job.headers.root,
        nvcc.path,
        workdir=build,
        extra_include_dirs=options.extra_include_dirs,
        keep_build=options.keep_build,
        log=log,
        launcher=job.launcher,
    )


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _finish(job: _FileJob, outcome: ProbeRun | BaseException, cache: ResultCache) -> None:
    """Record a compiled file's rows (and cache them), or its error."""
    seconds: float | None = None
    cublas: str | None = None
    error: str | None = None
    rows: tuple[ProbeRow, ...]
    if isinstance(outcome, ProbeRun):
        rows, seconds = outcome.rows, outcome.seconds
        cublas = str(outcome.cublas_headers) if outcome.cublas_headers else "shim"
    elif isinstance(outcome, ProbeError):
        rows, error = outcome.rows, str(outcome)
    else:
        rows, error = (), f"{type(outcome).__name__}: {outcome}"
    job.rows = {row.line: row for row in rows}
    for row in rows:
        cache.put(job.key(row.args), row, seconds or 0.0)
    job.run = FileRun(
        path=job.result.path,
        flashinfer_version=job.version,
        headers=str(job.headers.root),
        instantiations=len(job.probed),
        compiled=True,
        seconds=round(seconds, 1) if seconds is not None else None,
        cublas=cublas,
        error=error,
    )


def _no_backend(inst: Instantiation, probe: str | None = None, backend: str = "nvcc") -> str:
    if backend != "nvcc" and probe is not None and probe != PROBE:
        return f"`{inst.name}`: its family's {probe} probe runs with --backend nvcc only"
    if probe in probes.PROBES:
        return f"`{inst.name}` in {Path(inst.span.path).name}: the {probe} probe does not build it"
    built = f"the nvcc probe builds {MACRO_NAME} calls for {', '.join(PROBED_ARCH_TAGS)} only"
    if inst.form is FormKind.TYPE_ALIAS:
        return f"`{inst.name}`: no family that models it has a compiler probe"
    if inst.form is FormKind.EXPLICIT_INSTANTIATION:
        return f"explicit instantiation of `{inst.name}`: {built}"
    return f"{_arch_tag(inst) or 'unknown arch tag'}: {built}"


def _compare(
    r: InstantiationResult,
    job: _FileJob | alias_run.AliasJob | probes.ProbeJob | None,
    version: str | None,
    is_probed: Callable[[InstantiationResult], bool] = _probed,
    backend: str = "nvcc",
) -> Verified:
    inst = r.instantiation
    model = Numbers.of_model(r.resources) if r.resources is not None else None
    base = {
        "instantiation": inst,
        "recipe": r.recipe,
        "flashinfer_version": version,
        "model": model,
    }
    if r.verdict is Verdict.INACTIVE:
        note = r.not_modeled.reason if r.not_modeled else "inactive under the define set"
        return Verified(**base, status=Status.INACTIVE, note=note)
    if job is None or not is_probed(r):
        note = _no_backend(inst, family_of(r.recipe).probe if r.recipe else None, backend)
        if inst.form is FormKind.TYPE_ALIAS and r.recipe is None and r.not_modeled is not None:
            note = f"not compiled: {r.not_modeled.reason}"
        return Verified(**base, status=Status.NO_BACKEND, note=note)
    row = job.rows.get(inst.span.line)
    if row is None or _norm(row.args) != _norm(inst.args):
        error = job.run.error if job.run and job.run.error else "the probe reported nothing for it"
        return Verified(**base, status=Status.ERROR, note=_first_line(error))
    compiler = CompilerNumbers.of_row(row)
    if model is None:
        reason = r.not_modeled.reason if r.not_modeled else "not modeled"
        return Verified(
            **base, status=Status.NOT_MODELED, compiler=compiler, note=reason, cached=job.cached
        )
    diffs = differences(model, compiler)
    status = Status.DISAGREE if diffs else Status.AGREE
    measured_only: str | None = None
    if compiler.unmeasured:
        measured_only = f"not measured by the compiler's probe: {', '.join(compiler.unmeasured)}"
    return Verified(
        **base,
        status=status,
        compiler=compiler,
        differences=diffs,
        cached=job.cached,
        note=measured_only,
    )


def _missed_by_check(job: _FileJob) -> list[Verified]:
    """Rows the compiler reported at lines where check found no instantiation: a parser miss."""
    found = {r.instantiation.span.line for r in job.result.instantiations}
    out: list[Verified] = []
    for line, row in sorted(job.rows.items()):
        if line in found:
            continue
        inst = Instantiation(
            span=SourceSpan(path=job.result.path, line=line, column=1, end_line=line),
            form=FormKind.MACRO_CALL,
            name=MACRO_NAME,
            args=row.args,
        )
        out.append(
            Verified(
                instantiation=inst,
                flashinfer_version=job.version,
                status=Status.DISAGREE,
                compiler=CompilerNumbers.of_row(row),
                note="the compiler built this instantiation; cutlint check did not find it",
                cached=job.cached,
            )
        )
    return out


def check_result(paths: Sequence[Path | str], options: CheckOptions) -> CheckResult:
    """check's result, by check's own pipeline (engine.stream.outcomes, as api.check runs it):
    the same walk, the defines of each file's build, its resolved context and the #defines on
    its include path. verify has no parse path of its own."""
    files: list[FileResult] = []
    skipped: list[str] = []
    for outcome in outcomes(list(paths), options):
        if isinstance(outcome, str):
            skipped.append(outcome)
        else:
            files.append(outcome)
    return CheckResult(files=tuple(files), skipped=tuple(skipped), root=root_of(options))


def _check(
    paths: Sequence[Path | str], search: HeaderSearch, options: VerifyOptions
) -> CheckResult:
    """check's result, modeled for the release of the one `--headers` where the file's own
    context does not say one. The headers are what verify compiles with, not a statement of
    which release wrote the files: a file whose build or layout names its release keeps it (and
    a release other than the headers' is a version mismatch, said before any compile)."""
    if len(search.given) == 1 and search.given[0].flashinfer_version is None:
        include = str(search.given[0].cutlass_include)
        return check_result(paths, options.check_options(cutlass_version=include))
    first = check_result(paths, options.check_options())
    single = search.single_version()
    unknown = [f.path for f in first.files if release_at(f.path, f.context) is None]
    if single is None or not unknown:
        return first
    again = check_result(unknown, options.check_options(flashinfer_version=single))
    rejudged = {f.path: f for f in again.files}
    files = tuple(rejudged.get(f.path, f) for f in first.files)
    return first.model_copy(update={"files": files})


class Tracker(Protocol):
    """Who hears how far verify is (report/progress.py's Bar draws it): `total` files with
    instantiations, `compiles` translation units to compile; then files done, with their
    instantiations judged and the compiles that finished them."""

    def start(self, total: int, compiles: int = 0, live: bool = False) -> None: ...

    def advance(self, kernels: int = 0, files: int = 1, compiles: int = 0) -> None: ...


def _done_line(done: int, total: int, job: _FileJob) -> str:
    assert job.run is not None
    took = "failed" if job.run.seconds is None else f"{job.run.seconds:5.1f} s"
    return f"[{done}/{total}] {took}  {job.version or '?'}  {Path(job.result.path).name}"


def _compile(
    todo: Sequence[_FileJob],
    planned: probes.Planned,
    nvcc: Nvcc,
    options: VerifyOptions,
    cache: ResultCache,
    progress: Say | None,
    log: Say | None,
    tracker: Tracker | None = None,
) -> None:
    """Probe `todo` (the launcher probe, a file a compile) and `planned`'s batches (the other
    probes) on one Dask pool, `options.jobs` at a time, so that no phase waits for another's
    last compile; one progress line per file done."""
    total = len(todo) + planned.todo
    if not total:
        return
    if progress is not None:
        if planned.batches:
            progress(probes.announce(planned, nvcc, options.jobs))
        if todo:
            progress(
                f"compiling {len(todo)} file(s) with {options.backend} {nvcc.release}, "
                f"{options.jobs} at a time"
            )
    build = cache.root.parent / "build"
    done = 0
    with dask_runner.executor(options.jobs, options.scheduler) as pool:
        # the batches first: a translation unit of several files is the longest task
        batches: dict[Future[Any], list[probes.ProbeJob]] = {
            probes.submit(pool, b, nvcc, build, options.keep_build): b for b in planned.batches
        }
        launcher: dict[Future[Any], _FileJob] = {
            pool.submit(dask_runner.outcome, _probe, j, nvcc, options, build, log): j for j in todo
        }
        for fut in as_completed([*batches, *launcher]):
            lines: list[str] = []
            kernels = files = 0
            if fut in launcher:
                job = launcher[fut]
                exc = fut.exception()  # the task itself failed (a worker lost too often)
                _finish(job, fut.result() if exc is None else exc, cache)
                done += 1
                lines.append(_done_line(done, total, job))
                kernels, files = len(job.result.instantiations), 1
            else:
                for other, seconds in probes.finish_batch(batches[fut], fut, cache):
                    done += 1
                    lines.append(probes.done_line(done, total, other, seconds))
                    kernels += len(other.result.instantiations)
                    files += 1
            if progress is not None:
                for line in lines:
                    progress(line)
            if tracker is not None:
                tracker.advance(kernels=kernels, files=files, compiles=1)


def _start(
    tracker: Tracker, checked: CheckResult, todo: Sequence[_FileJob], planned: probes.Planned
) -> None:
    """The tracker's totals, and the files no compile waits for (cached, or not compiled at
    all) as done."""
    compiled = {j.result.path for j in todo} | {j.result.path for b in planned.batches for j in b}
    with_work = [f for f in checked.files if f.instantiations]
    ready = [f for f in with_work if f.path not in compiled]
    tracker.start(len(with_work), compiles=len(todo) + len(planned.batches), live=True)
    if ready:
        tracker.advance(kernels=sum(len(f.instantiations) for f in ready), files=len(ready))


def _file_run(job: _FileJob) -> FileRun:
    if job.run is not None:
        return job.run
    return FileRun(
        path=job.result.path,
        flashinfer_version=job.version,
        headers=str(job.headers.root),
        instantiations=len(job.probed),
        compiled=False,
    )


def _backend(options: VerifyOptions) -> Nvcc:
    """The backend as an Nvcc record: its version text keys the cache, so the two backends'
    answers are cached apart. The libclang backend runs no nvcc at all."""
    if options.backend == "nvcc":
        return find_nvcc(options.nvcc)
    if options.backend != "libclang":
        raise SetupError(f"unknown backend {options.backend!r}: one of {', '.join(BACKENDS)}")
    from cutlint.verify import libclang_layout

    try:
        libclang_layout.cindex()  # only to fail here, before any parse
    except ImportError as e:
        raise SetupError(f"the libclang backend needs the clang bindings (libclang-ng): {e}") from e
    return Nvcc(path="", version_text=libclang_layout.method_text())


def _alias_files(
    checked: CheckResult, options: VerifyOptions, nvcc: Nvcc, base: Path, progress: Say | None
) -> tuple[CheckResult, list[alias_run.AliasJob]]:
    """Judge the files of `using`-chain kernels again for the CUTLASS their headers are, and
    compile them (cutlint.verify.alias_run)."""
    wanted = [
        f.path
        for f in checked.files
        if any(r.instantiation.form is FormKind.TYPE_ALIAS for r in f.instantiations)
    ]
    if not wanted or options.backend != "nvcc":
        return checked, []
    source = alias_run.source_root(options.cutlass_source, options.download, progress)
    again = check_result(wanted, options.check_options(cutlass_version=str(source / "include")))
    rejudged = {f.path: f for f in again.files}
    files = tuple(rejudged.get(f.path, f) for f in checked.files)
    checked = checked.model_copy(update={"files": files})
    jobs = alias_run.run(
        [f for f in files if f.path in rejudged],
        source,
        nvcc,
        ResultCache(base),
        options.use_cache,
        progress,
    )
    return checked, jobs


def verify(
    paths: Sequence[Path | str],
    options: VerifyOptions | None = None,
    progress: Say | None = None,
    log: Say | None = None,
    tracker: Tracker | None = None,
) -> VerifyResult:
    """Verify every instantiation under `paths`. Raises SetupError before any compile when nvcc
    or headers are missing; `progress` hears one line per compiled file, `log` the details,
    `tracker` the files, instantiations and compiles done (a progress bar)."""
    t0 = time.monotonic()
    options = options or VerifyOptions()
    base = options.cache_dir or default_cache_dir()
    nvcc = _backend(options)
    search = HeaderSearch.from_options(options.headers, options.download, base / "wheels")
    checked = _check(paths, search, options)
    if options.shard is not None:
        whole = sum(1 for f in checked.files if f.instantiations)
        checked = options.shard.take(checked)
        if progress is not None:
            progress(f"shard {options.shard}: {len(checked.files)} of {whole} file(s)")
    checked, alias_jobs = _alias_files(checked, options, nvcc, base, progress)
    jobs, missing = _plan(checked.files, search, nvcc)
    if missing:
        raise SetupError("\n".join(missing))
    cache = ResultCache(base)
    todo = [j for j in jobs if not (options.use_cache and _from_cache(j, cache))]
    if log is not None:
        for job in jobs:
            log(f"{job.result.path}: {job.headers.label} ({job.headers.origin} {job.headers.root})")
        where = f" ({nvcc.path})" if nvcc.path else ""
        log(f"{options.backend} {nvcc.release}{where}; cache {cache.root}")
        log(f"{len(jobs) - len(todo)} of {len(jobs)} file(s) in the cache")
    planned = probes.Planned()
    if options.backend == "nvcc":
        # the other probes, by the family's `probe` name (cutlint.verify.probes)
        taken = {j.result.path for j in alias_jobs} | {j.result.path for j in jobs}
        planned = probes.prepare(
            [f for f in checked.files if f.path not in taken],
            search,
            nvcc,
            cache,
            use_cache=options.use_cache,
        )
    others = planned.jobs
    if tracker is not None:
        _start(tracker, checked, todo, planned)
    _compile(todo, planned, nvcc, options, cache, progress, log, tracker)

    by_path = {j.result.path: j for j in jobs}
    by_other_path = {j.result.path: j for j in others}
    by_alias_path = {j.result.path: j for j in alias_jobs}
    verified: list[Verified] = []
    for f in checked.files:
        if f.path in by_alias_path:
            alias_job = by_alias_path[f.path]
            verified += [_compare(r, alias_job, None, alias_run.probed) for r in f.instantiations]
            continue
        if f.path in by_other_path:
            other = by_other_path[f.path]
            verified += [_compare(r, other, other.version, other.builds) for r in f.instantiations]
            continue
        probed = by_path.get(f.path)
        version = (
            probed.version if probed else release_at(f.path, f.context) or search.single_version()
        )
        verified += [
            _compare(r, probed, version, backend=options.backend) for r in f.instantiations
        ]
        if probed is not None:
            verified += _missed_by_check(probed)
    verified.sort(key=lambda v: (v.instantiation.span.path, v.instantiation.span.line))
    return VerifyResult(
        instantiations=tuple(verified),
        files=tuple(
            sorted(
                [
                    *(_file_run(j) for j in jobs),
                    *(j.run for j in alias_jobs if j.run),
                    *(probes.file_run(j) for j in others),
                ],
                key=lambda f: f.path,
            )
        ),
        nvcc=nvcc.release,
        backend=options.backend,
        input_diagnostics=tuple(d for f in checked.files for d in f.diagnostics),
        seconds=round(time.monotonic() - t0, 1),
    )
