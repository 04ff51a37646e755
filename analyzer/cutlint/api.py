"""The public Python API: what the CLI calls, and what a build pipeline calls.

`check(paths)` runs the whole pipeline (parse -> model -> rules) and returns a CheckResult, pure
data for any reporter. `check_tactic(...)` and `validate_tactics(specs)` answer for tactics before
any file is written; `explain_log`, `derivation` and `pregen_flashinfer` are the explain and
pregen commands' data (docs/guide.md, docs/pregen.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cutlint import parse
from cutlint.cutlass.versions import resolve
from cutlint.engine.evaluate import diagnose
from cutlint.engine.facts import facts_for
from cutlint.engine.fingerprint import with_fingerprints
from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import Kind, Rule
from cutlint.engine.selection import Selection as Selection  # re-exported: --select/--ignore
from cutlint.model import ModelContext, model_instantiation
from cutlint.model.arch import arch_for
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.records import (
    CheckResult,
    Diagnostic,
    ElementType,
    FileResult,
    Fusion,
    InputProblem,
    Instantiation,
    InstantiationResult,
    NotModeled,
    ParsedFile,
    Resources,
    Shape3,
    Verdict,
)

if TYPE_CHECKING:
    import networkx as nx

    from cutlint.explain.records import LogExplanation
    from cutlint.pregen.records import PregenResult
    from cutlint.pregen.spec import TacticSpec as TacticSpec  # re-exported: the typed API's input

DEFAULT_ARCH = "sm_120"
"""Target arch when neither --arch nor the file's own path names one."""


@dataclass(frozen=True)
class CheckOptions:
    arch: str | None = None
    cutlass_version: str | None = None
    defines: Mapping[str, str] = field(default_factory=lambda: dict(parse.DEFAULT_DEFINES))
    undefines: Sequence[str] = ()
    selection: Selection = field(default_factory=Selection)
    jobs: int | None = None
    flashinfer_version: str | None = None
    """The FlashInfer release that wrote the files, where their path does not say."""
    parse_timeout: float = parse.DEFAULT_LIMITS.seconds_per_file
    """Seconds one file may take in a parser worker before it is reported as CUT007."""
    root: Path | None = None
    """The project root that fingerprints and reported URIs are relative to (default: cwd)."""
    exclude: Sequence[str] = ()
    """Glob patterns (`--exclude`): files and directories found inside a directory that match
    one are skipped; a file named in `paths` is always checked, as ruff does."""

    def __post_init__(self) -> None:
        if self.arch is not None:
            known_arch(self.arch)  # an unknown arch is a ValueError naming the known ones


def known_arch(arch: str) -> str:
    """`arch` when cutlint knows it; else a ValueError that lists the arches it knows."""
    from cutlint.model.arch import arches

    try:
        arch_for(arch)
    except KeyError:
        raise ValueError(f"unknown arch {arch!r}; known: {', '.join(arches())}") from None
    return arch


def _input_diagnostic(p: InputProblem, rules: Mapping[str, Rule]) -> Diagnostic:
    rule = rules[p.code]
    return Diagnostic(
        rule=rule.id,
        name=rule.name,
        severity=rule.severity,
        path=p.path,
        line=p.line,
        message=p.message,
    )


def _not_modeled_diagnostic(
    inst: Instantiation, nm: NotModeled, rules: Mapping[str, Rule]
) -> Diagnostic:
    rule = next(r for r in rules.values() if r.kind is Kind.NOT_MODELED)
    return Diagnostic(
        rule=rule.id,
        name=rule.name,
        severity=rule.severity,
        path=inst.span.path,
        line=inst.span.line,
        message=f"{rule.message}: {nm.reason}",
    )


def _context(parsed: ParsedFile, options: CheckOptions) -> ModelContext:
    arch = arch_for(options.arch or (parsed.generated_for_sm or DEFAULT_ARCH))
    version = parsed.flashinfer_version or options.flashinfer_version
    release = flashinfer_releases().get(version or "")
    return ModelContext(
        arch=arch, cutlass=resolve(options.cutlass_version, version), flashinfer=release
    )


@dataclass(frozen=True)
class _Judgement:
    """What the model and the rules say about one tactic, before it is given a place in a file."""

    resources: Resources | None
    not_modeled: NotModeled | None
    verdict: Verdict
    findings: tuple[Diagnostic, ...]
    """Diagnostics with a placeholder location; `_placed` gives them the instantiation's."""


Memo = dict[tuple[object, ...], _Judgement]
"""Judgements by (family, name, typed arguments, context): a cache of 1,250 copies of one file
models each distinct tactic once, and the results share one Resources record."""


def _context_key(ctx: ModelContext) -> tuple[object, ...]:
    release = ctx.flashinfer.version if ctx.flashinfer else None
    return (ctx.arch.name, ctx.cutlass.version, ctx.cutlass.origin, release)


def _judge(inst: Instantiation, ctx: ModelContext, options: CheckOptions) -> _Judgement:
    rules = rules_by_id()
    modeled = model_instantiation(inst, ctx)
    if isinstance(modeled, NotModeled):
        diag = _not_modeled_diagnostic(inst, modeled, rules)
        wanted = (diag,) if options.selection.wants(diag.rule) else ()
        return _Judgement(None, modeled, Verdict.NOT_MODELED, wanted)
    resource_rules = [r for r in rules.values() if r.kind is Kind.RESOURCE]
    diags = diagnose(resource_rules, facts_for(inst, modeled), inst.span.path, inst.span.line)
    # The verdict comes from every rule; --select/--ignore only choose the findings shown.
    shown = tuple(d for d in diags if options.selection.wants(d.rule))
    return _Judgement(modeled, None, _verdict(diags, rules), shown)


def _placed(d: Diagnostic, inst: Instantiation) -> Diagnostic:
    if (d.path, d.line) == (inst.span.path, inst.span.line):
        return d
    return d.model_copy(update={"path": inst.span.path, "line": inst.span.line})


def evaluate_instantiation(
    inst: Instantiation, ctx: ModelContext, options: CheckOptions, memo: Memo | None = None
) -> InstantiationResult:
    """Model one instantiation and run the resource rules on it."""
    if inst.guard is not None and not inst.guard.active:
        nm = NotModeled(reason=f"inactive under the define set: #if {inst.guard.text}")
        return InstantiationResult(
            instantiation=inst, resources=None, verdict=Verdict.INACTIVE, not_modeled=nm
        )
    key = (inst.family, inst.name, inst.moe, _context_key(ctx))
    judged = memo.get(key) if memo is not None else None
    if judged is None:
        judged = _judge(inst, ctx, options)
        if memo is not None:
            memo[key] = judged
    return InstantiationResult(
        instantiation=inst,
        resources=judged.resources,
        verdict=judged.verdict,
        not_modeled=judged.not_modeled,
        diagnostics=tuple(_placed(d, inst) for d in judged.findings),
    )


_VERDICT_PRIORITY = (
    Verdict.FAILS_COMPILE,
    Verdict.FAILS_INITIALIZE,
    Verdict.UNREACHABLE,
    Verdict.ZERO_SLACK,
)


def _verdict(diags: Sequence[Diagnostic], rules: Mapping[str, Rule]) -> Verdict:
    """The worst outcome the findings imply (each rule file names its `verdict`)."""
    implied = {rules[d.rule].verdict for d in diags}
    return next((v for v in _VERDICT_PRIORITY if v in implied), Verdict.FITS)


def evaluate_file(
    parsed: ParsedFile, options: CheckOptions, memo: Memo | None = None
) -> FileResult:
    rules = rules_by_id()
    file_diags = [_input_diagnostic(p, rules) for p in parsed.problems]
    results: list[InstantiationResult] = []
    if parsed.instantiations:
        ctx = _context(parsed, options)
        results = [evaluate_instantiation(i, ctx, options, memo) for i in parsed.instantiations]
    return FileResult(
        path=parsed.path,
        instantiations=tuple(results),
        diagnostics=tuple(d for d in file_diags if options.selection.wants(d.rule)),
    )


PathArg = str | os.PathLike[str]


def _path_list(paths: PathArg | Iterable[PathArg]) -> list[Path]:
    """One path or many: a str is one path, not a sequence of one-letter paths."""
    if isinstance(paths, str | os.PathLike):
        return [Path(paths)]
    return [Path(p) for p in paths]


def check(paths: PathArg | Iterable[PathArg], options: CheckOptions | None = None) -> CheckResult:
    """Parse, model and judge every instantiation under `paths` (one path or several: files
    or directories)."""
    options = options or CheckOptions()
    parsed = parse.parse_paths(
        _path_list(paths),
        defines=options.defines,
        undefines=options.undefines,
        jobs=options.jobs,
        limits=replace(parse.DEFAULT_LIMITS, seconds_per_file=options.parse_timeout),
        exclude=options.exclude,
    )
    memo: Memo = {}
    result = CheckResult(
        files=tuple(evaluate_file(p, options, memo) for p in parsed),
    )
    return with_fingerprints(result, options.root or Path.cwd())


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


def check_tactic(
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
    from cutlint.pregen.spec import context_of, instantiation_of

    return [
        evaluate_instantiation(instantiation_of(s), context_of(s), CheckOptions()) for s in specs
    ]


# --- explanations and validation before generation --------------------------------------------
# Imported inside the functions: networkx and the log reader are not needed by `check`, and
# keeping them out of `import cutlint.api` keeps every check run's start-up as it was.


def instantiation_at(
    path: Path | str, line: int, options: CheckOptions | None = None
) -> InstantiationResult | None:
    """The judged instantiation of `path` whose call covers `line` (its macro name's line, or
    any line up to its closing parenthesis), or None."""
    result = check([path], options)
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
    log: Path | str, cache: Path | str, options: CheckOptions | None = None
) -> LogExplanation:
    """Each distinct failure of an autotuner/launcher log, mapped to the instantiation it names
    in `cache` (a FlashInfer JIT cache directory, or any directory of generated files) and
    judged against cutlint's prediction. Raises cutlint.logs.LogReadError for an unreadable log."""
    from cutlint.explain import explain_log as explain
    from cutlint.logs import read_log

    parsed = read_log(Path(log))
    return explain(parsed, str(cache), check([cache], options))


def pregen_flashinfer(
    *,
    version: str | None = None,
    arch: str = DEFAULT_ARCH,
    root: Path | None = None,
    wheel_dir: Path | None = None,
    cutlass_version: str | None = None,
) -> PregenResult:
    """Run FlashInfer's generator enumeration in-process (no file written) and judge every
    operation for `arch`. `root` is an unpacked FlashInfer tree; else the installed FlashInfer
    when it is `version`, else the release's wheel (downloaded into `wheel_dir`, default
    cutlint's wheel cache, cutlint.cache_dir).
    Raises cutlint.verify.flashinfer.FlashInferError when no generator can be had or run."""
    from cutlint.pregen.run import find_flashinfer
    from cutlint.pregen.run import pregen_flashinfer as run

    if root is None:
        from cutlint.cache_dir import wheels_dir as cached_wheels

        root, version = find_flashinfer(version, wheel_dir or cached_wheels())
    return run(root, version, arch, cutlass_version)
