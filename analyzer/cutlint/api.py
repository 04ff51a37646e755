"""The public Python API: what the CLI calls, and what a build pipeline calls.

`check(paths)` runs the whole pipeline (parse -> model -> rules) and returns a CheckResult, pure
data for any reporter. `check_tactic(...)` and `validate_tactics(specs)` answer for tactics before
any file is written; `explain_log`, `derivation`, `pregen_flashinfer` and `pregen_cutlass_library` are
the explain and pregen commands' data (docs/guide.md, docs/pregen.md); `runner_tactic_findings`
holds FlashInfer's GEMM runners' tactics to a JIT cache's modules.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, overload

from cutlint.cutlass.versions import check_cutlass_version
from cutlint.engine.options import DEFAULT_ARCH as DEFAULT_ARCH
from cutlint.engine.options import CheckOptions as CheckOptions
from cutlint.engine.options import known_arch as known_arch
from cutlint.engine.selection import Selection as Selection  # re-exported: --select/--ignore
from cutlint.engine.stream import Finish, Finished, Progress, outcomes, root_of
from cutlint.records import (
    CheckResult,
    ElementType,
    FileResult,
    Fusion,
    InstantiationResult,
    Shape3,
    TacticFinding,
)

if TYPE_CHECKING:
    import networkx as nx

    from cutlint.explain.records import LogExplanation
    from cutlint.pregen.records import CutlassLibraryPregenResult, PregenResult
    from cutlint.pregen.spec import TacticSpec as TacticSpec  # re-exported: the typed API's input
    from cutlint.tu_records import TuRead


PathArg = str | os.PathLike[str]


def _path_list(paths: PathArg | Iterable[PathArg]) -> list[Path]:
    """One path or many: a str is one path, not a sequence of one-letter paths."""
    if isinstance(paths, str | os.PathLike):
        return [Path(paths)]
    return [Path(p) for p in paths]


def check(
    paths: PathArg | Iterable[PathArg],
    options: CheckOptions | None = None,
    progress: Progress | None = None,
) -> CheckResult:
    """Parse, model and judge every instantiation under `paths` (one path or several: files
    or directories). Raises ValueError for an option no file can be judged with (a
    --cutlass-version directory without version.h, a define that is no macro name)."""
    options = options or CheckOptions()
    files: list[FileResult] = []
    skipped: list[str] = []
    for outcome in results(paths, options, progress):
        if isinstance(outcome, str):
            skipped.append(outcome)  # not an instantiation file (cache_layout.jit_source)
        else:
            files.append(outcome)
    return CheckResult(files=tuple(files), skipped=tuple(skipped), root=root_of(options))


@overload
def results(
    paths: PathArg | Iterable[PathArg],
    options: CheckOptions | None = None,
    progress: Progress | None = None,
) -> Iterator[FileResult | str]: ...


@overload
def results(
    paths: PathArg | Iterable[PathArg],
    options: CheckOptions | None,
    progress: Progress | None,
    finish: Finish | None,
) -> Iterator[FileResult | str | Finished]: ...


def results(
    paths: PathArg | Iterable[PathArg],
    options: CheckOptions | None = None,
    progress: Progress | None = None,
    finish: Finish | None = None,
) -> Iterator[FileResult | str] | Iterator[FileResult | str | Finished]:
    """`check`'s results one file at a time, in input order, as each is judged: the file's
    FileResult, or the path of a file that holds nothing to check (CheckResult.skipped). For a
    caller that writes each as it comes rather than hold them all (`cutlint check --format
    json`); the fingerprints are set, relative to `options.root`. With `finish` (a picklable
    callable) and no cache, a file judged in a parser worker comes as `Finished`: what `finish`
    made of its result there (engine/stream.py)."""
    options = options or CheckOptions()
    if options.cutlass_version is not None:
        check_cutlass_version(options.cutlass_version)
    return outcomes(_path_list(paths), options, progress, finish)


Shape = tuple[int, int, int] | str | Shape3
"""A tile or cluster: `(256, 128, 128)`, `"256x128x128"` or a Shape3."""

DEFAULT_ACT_TYPE = ElementType.E2M1
DEFAULT_WEIGHT_TYPE = ElementType.E2M1
DEFAULT_OUTPUT_TYPE = ElementType.BF16
"""A tactic's element types when the caller does not say: FlashInfer's FP4 MoE (NVFP4 weights and
activations, bf16 out). `cutlint explain --act/--weight/--out` has the same defaults."""


def __getattr__(name: str) -> object:
    """`api.TacticSpec`, imported on first use: `check` does not need it."""
    if name == "TacticSpec":
        from cutlint.pregen.spec import TacticSpec

        return TacticSpec
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The keyword-only form of TacticSpec's fields (the record is `validate_tactics`' input): the
# API's one-call convenience, whose signature callers and tests read, so not folded into a record.
def check_tactic(  # noqa: PLR0913
    *,
    tile: Shape,
    arch: str = DEFAULT_ARCH,
    act_type: ElementType | str = DEFAULT_ACT_TYPE,
    weight_type: ElementType | str = DEFAULT_WEIGHT_TYPE,
    output_type: ElementType | str = DEFAULT_OUTPUT_TYPE,
    cluster: Shape = (1, 1, 1),
    fusion: Fusion | str = Fusion.NONE,
    swap_ab: bool = False,
    mxfpx: bool | None = None,
    cutlass_version: str | None = None,
    flashinfer_version: str | None = None,
) -> InstantiationResult:
    """One tactic, before generation: what it needs and which rules it breaks.

    Element types take cutlint's names (`e2m1`, `bf16`) or the generated files' spellings
    (`SafeFP4`, `half`); `mxfpx` defaults to what FlashInfer's generator sets (FP8 activations
    with FP4 weights). The same as `validate_tactics([TacticSpec(...)])[0]`; a bad argument
    (an unknown arch or type, a tile that is not MxNxK) raises pydantic's ValidationError, a
    ValueError that names the field and the reason.
    """
    from cutlint.pregen.spec import TacticSpec

    spec = TacticSpec(
        arch=arch,
        act_type=act_type,  # strings are mapped by TacticSpec
        weight_type=weight_type,
        output_type=output_type,
        tile=tile,  # tuples and MxNxK strings are parsed
        cluster=cluster,
        fusion=fusion,
        swap_ab=swap_ab,
        mxfpx=mxfpx,
        cutlass_version=cutlass_version,
        flashinfer_version=flashinfer_version,
    )
    return validate_tactics([spec])[0]


def validate_tactics(specs: Sequence[TacticSpec]) -> list[InstantiationResult]:
    """Judge tactics before any file is written: for each, its Resources, findings and verdict,
    exactly as `check` would report the generated file's instantiation of it.

    A generator calls this with the operations it is about to write and drops (or blocklists)
    those whose verdict is a failure; see docs/pregen.md.
    """
    from cutlint.engine.judge import evaluate_instantiation
    from cutlint.pregen.spec import context_of, instantiation_of

    return [evaluate_instantiation(instantiation_of(s), context_of(s), Selection()) for s in specs]


# --- explanations and validation before generation --------------------------------------------
# Imported inside the functions: networkx and the log reader are not needed by `check`, and
# keeping them out of `import cutlint.api` keeps every check run's start-up as it was.


def instantiation_at(
    path: Path | str, line: int, options: CheckOptions | None = None
) -> InstantiationResult | None:
    """The judged instantiation of `path` whose call covers `line` (its macro name's line, or
    any line up to its closing parenthesis), or None."""
    from cutlint.binaries.measured import apply as measured
    from cutlint.cache_dir import cache_dir

    result = check([path], options)
    # as `cutlint check` shows it: measured registers and spills where a report or binary is
    result = measured(result, (options or CheckOptions()).selection, cache_dir())
    spans = [r for f in result.files for r in f.instantiations]
    exact = [r for r in spans if r.instantiation.span.line == line]
    inside = [
        r for r in spans if r.instantiation.span.line <= line <= r.instantiation.span.end_line
    ]
    found = exact or inside
    return found[0] if found else None


def derivation(result: InstantiationResult) -> nx.DiGraph[str]:
    """How `result`'s verdict was derived: a networkx DiGraph rooted at the node "verdict",
    edges "derived from", every node with its value and source (cutlint.explain.graph)."""
    from cutlint.explain.graph import derivation as build

    return build(result)


def explain_log(
    log: Path | str,
    cache: Path | str | None = None,
    options: CheckOptions | None = None,
    *,
    flashinfer_version: str | None = None,
    arch: str | None = None,
    tu: Sequence[Path | str] = (),
    tu_flags: Sequence[str] = (),
) -> LogExplanation:
    """Each distinct failure of an autotuner/launcher log, mapped to the instantiation it names
    in `cache` (a FlashInfer JIT cache directory, or any directory of generated files; optional)
    and judged against cutlint's prediction. A dense GEMM runner's line (`[MXFP8 SM120 gemm
    Runner] Failed to initialize ...`) is read against `flashinfer_version`'s tactic lists (else
    the cache's version) on `arch` (else the cache's, else sm_120). A hand-written caller's line
    (vLLM's `cutlass_gemm_caller.cuh:61, Error Internal`) is mapped to the kernels of `tu`: saved
    `cutlint tu --format json` reports (`.json`), or translation units read with `tu_flags`.
    Raises cutlint.logs.LogReadError for an unreadable log, cutlint.tu_records.TuReportError for
    an unreadable report and cutlint.parse.tu.FrontEndError for a TU the front end cannot read."""
    from cutlint.explain import explain_log as explain
    from cutlint.logs import read_log

    parsed = read_log(Path(log))
    reads = tu_reads(tu, tu_flags)
    if cache is None:
        return explain(parsed, None, None, flashinfer_version, arch, reads)
    return explain(parsed, str(cache), check([cache], options), flashinfer_version, arch, reads)


def tu_reads(tu: Sequence[Path | str], flags: Sequence[str] = ()) -> tuple[TuRead, ...]:
    """What `cutlint tu` finds in each of `tu`: a saved `--format json` report is read back; a
    source is read with `flags` for each target they build (sm_90a when they name none)."""
    from cutlint.parse.tu import from_flags, read_tu
    from cutlint.tu_records import TuReportError, reads_from_report

    reads: list[TuRead] = []
    for item in tu:
        path = Path(item)
        if path.suffix == ".json":
            reads += reads_from_report(path.read_text(encoding="utf-8"))
            continue
        command = from_flags(path, tuple(flags))
        if not command.arches:
            # which GPUs run its kernels is the build's targets: without them, no answer
            raise TuReportError(
                f"{path}: its flags name no target (-gencode, -arch, --cuda-gpu-arch): give "
                "the build's, which say which GPUs run its kernels"
            )
        reads += [read_tu(command, t) for t in command.arches]
    unique = {(r.command.file, r.command.args, r.arch): r for r in reads}  # a report given twice
    return tuple(unique.values())


def runner_tactic_findings(
    cache: PathArg,
    *,
    flashinfer_version: str | None = None,
    arch: str | None = None,
    options: CheckOptions | None = None,
) -> tuple[TacticFinding, ...]:
    """FlashInfer's GEMM runners held to a JIT cache's modules: every runner of the release
    (`flashinfer_version`, else the one the cache's path names) whose module the cache holds,
    its tactics judged against the module's instantiations; a tactic whose kernel the module
    never instantiates is a CUT207 finding. Empty when no release is known or no runner's module
    is there. `explain_log` (with a cache) and `pregen_flashinfer` report the same findings."""
    from cutlint.engine.runner_findings import module_findings
    from cutlint.explain.cache import CacheIndex

    result = check([cache], options)
    index = CacheIndex.of(str(cache), result)
    versions = index.flashinfer_versions
    version = flashinfer_version or (versions[0] if len(versions) == 1 else None)
    if version is None:
        return ()
    insts = [r.instantiation for r in index.all_instantiations()]
    return module_findings(insts, version, arch or DEFAULT_ARCH)


def pregen_flashinfer(
    *,
    version: str | None = None,
    arch: str = DEFAULT_ARCH,
    root: Path | None = None,
    wheel_dir: Path | None = None,
    cutlass_version: str | None = None,
    runners: Sequence[str] | None = None,
) -> PregenResult:
    """Run FlashInfer's generator enumeration in-process (no file written) and judge every
    operation for `arch`, with MoeGemmRunner's CUTLASS 2.x grouped tactics on it. `root` is an
    unpacked FlashInfer tree; else the installed FlashInfer when it is `version`, else the
    release's wheel (downloaded into `wheel_dir`, default cutlint's wheel cache,
    cutlint.cache_dir). `runners` (of cutlint.pregen.blocklist.RUNNERS, default all) are the
    runners the blocklist must not hurt: an id is blocked only when each of them that has it
    fails it.
    Raises cutlint.producers.flashinfer.wheel.FlashInferError when no generator can be had or run."""
    from cutlint.pregen.blocklist import RUNNERS
    from cutlint.pregen.run import find_flashinfer
    from cutlint.pregen.run import pregen_flashinfer as run

    if root is None:
        from cutlint.cache_dir import wheels_dir as cached_wheels

        root, version = find_flashinfer(version, wheel_dir or cached_wheels())
    return run(root, version, arch, cutlass_version, tuple(runners or RUNNERS))


def pregen_cutlass_library(
    *,
    arch: str = DEFAULT_ARCH,
    architectures: str | None = None,
    kernels: str = "",
    version: str | None = None,
    root: Path | None = None,
    cutlass_version: str | None = None,
) -> CutlassLibraryPregenResult:
    """Run CUTLASS's own generator enumeration (`cutlass_library`'s manifest) in-process, no
    file written, for `architectures` (the generator's --architectures, default `arch`'s: 120a
    for sm_120) and the `kernels` filter (--kernels), and judge every kernel for `arch` as
    `check` judges the file it would write. `root` is an unpacked nvidia-cutlass wheel; else
    `version` (default 4.2.0.0) is downloaded into cutlint's wheel cache. The CUTLASS version
    is the wheel's headers' unless `cutlass_version` says. Raises cutlint.producers.
    cutlass_library.generate.CutlassLibraryError when no generator can be had or run."""
    from cutlint.pregen.cutlass_library import pregen_cutlass_library as run
    from cutlint.producers.cutlass_library.generate import DEFAULT_VERSION, download, version_of

    if root is None:
        version = version or DEFAULT_VERSION
        root = download(version)
    version = version or version_of(root) or "unknown"
    return run(root, version, arch, architectures, kernels, cutlass_version)
