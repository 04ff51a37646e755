"""One check run over parsed files: each file's model context, then every instantiation judged."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cutlint.cutlass.versions import resolve
from cutlint.engine.fingerprint import with_fingerprints
from cutlint.engine.judge import Memo, evaluate_file, input_diagnostic
from cutlint.engine.loader import rules_by_id
from cutlint.engine.options import DEFAULT_ARCH, CheckOptions
from cutlint.engine.schema import Kind
from cutlint.model.arch import arch_for, cannot_load, known
from cutlint.model.context import ModelContext
from cutlint.parse import DEFAULT_DEFINES
from cutlint.parse.problems import INTERNAL_ERROR
from cutlint.producers import cutlass_library
from cutlint.producers.flashinfer import cache_layout, modules
from cutlint.producers.flashinfer.releases import known_release
from cutlint.records import (
    CheckResult,
    Diagnostic,
    FileResult,
    InputProblem,
    Instantiation,
    InstantiationResult,
    NotModeled,
    ParsedFile,
    Verdict,
)


def context_for(parsed: ParsedFile, options: CheckOptions) -> ModelContext | str:
    """The target arch (option, else the file's path, else sm_120), the CUTLASS version, the
    FlashInfer release that wrote the file and the JIT module that compiles it; or, when the
    arch the file's path names is not in cutlint's table, why the file cannot be judged
    (cutlint does not judge an sm_42 file by another arch's limits)."""
    if options.arch is None and cutlass_library.in_build(parsed.path):
        return cutlass_library.TARGET_UNKNOWN
    try:
        arch = arch_for(options.arch or (parsed.generated_for_sm or DEFAULT_ARCH))
    except KeyError:
        return (
            f"the file's path says it was generated for sm_{parsed.generated_for_sm}, an arch "
            f"cutlint's table does not have ({known()}); pass --arch to judge it for one of them"
        )
    version = parsed.flashinfer_version or options.flashinfer_version
    release = known_release(version)[0]
    module = modules.module_for(parsed.path, release)
    defined = (
        modules.defined(module, options.defines, options.undefines, DEFAULT_DEFINES)
        if module
        else frozenset()
    ) | frozenset(parsed.defines)
    target = cache_layout.compile_target(parsed.path)
    return ModelContext(
        arch=arch,
        cutlass=resolve(options.cutlass_version, version),
        flashinfer=release,
        module=module,
        defines=defined,
        arch_assumed=options.arch is None and parsed.generated_for_sm is None,
        cannot_load=cannot_load(*target, arch) if target else None,
    )


def judge_file(parsed: ParsedFile, options: CheckOptions, memo: Memo | None = None) -> FileResult:
    ctx = context_for(parsed, options) if parsed.instantiations else None
    if isinstance(ctx, str):
        return _unjudged(parsed, ctx, options)
    return evaluate_file(
        parsed.path, parsed.instantiations, parsed.problems, ctx, options.selection, memo
    )


def _unjudged(parsed: ParsedFile, reason: str, options: CheckOptions) -> FileResult:
    """Every instantiation reported not modeled (CUT010) for `reason`."""
    rule = next(r for r in rules_by_id().values() if r.kind is Kind.NOT_MODELED)
    shown = options.selection.wants(rule.id)

    def row(i: Instantiation) -> InstantiationResult:
        diag = Diagnostic(
            rule=rule.id,
            name=rule.name,
            severity=rule.severity,
            path=i.span.path,
            line=i.span.line,
            message=f"{rule.message}: {reason}",
        )
        return InstantiationResult(
            instantiation=i,
            resources=None,
            verdict=Verdict.NOT_MODELED,
            not_modeled=NotModeled(reason=reason),
            diagnostics=(diag,) if shown else (),
        )

    diags = [input_diagnostic(p) for p in parsed.problems]
    return FileResult(
        path=parsed.path,
        instantiations=tuple(row(i) for i in parsed.instantiations),
        diagnostics=tuple(d for d in diags if options.selection.wants(d.rule)),
    )


def judged_file(parsed: ParsedFile, options: CheckOptions, memo: Memo) -> FileResult:
    """`judge_file`, or, when cutlint fails on this file, a result that says so (CUT012): a bug
    must cost one file's result, never the others'."""
    try:
        return judge_file(parsed, options, memo)
    except Exception as err:
        why = f"internal error while judging: {type(err).__name__}: {err}"[:2000]
        bug = InputProblem(code=INTERNAL_ERROR, path=parsed.path, message=why)
        return FileResult(path=parsed.path, diagnostics=(input_diagnostic(bug),))


def judge_files(parsed: Iterable[ParsedFile], options: CheckOptions) -> CheckResult:
    memo: Memo = {}
    files: list[FileResult] = []
    skipped: list[str] = []
    for p in parsed:
        if p.skipped:
            skipped.append(p.path)  # not an instantiation file (cache_layout.jit_source)
        else:
            files.append(judged_file(p, options, memo))
    result = CheckResult(files=tuple(files), skipped=tuple(skipped))
    return with_fingerprints(result, options.root or Path.cwd())
