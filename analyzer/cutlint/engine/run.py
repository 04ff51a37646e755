"""One check run over parsed files: each file's model context, then every instantiation judged."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from cutlint.build_context import BuildContext, Origin
from cutlint.context import macros
from cutlint.context.resolve import resolve
from cutlint.context.verdicts import guesses, not_loaded
from cutlint.cutlass import versions
from cutlint.cutlass.versions import CutlassModel
from cutlint.engine import error_guards
from cutlint.engine.dispatch_gaps import dispatch_findings
from cutlint.engine.fingerprint import with_fingerprints
from cutlint.engine.judge import Memo, evaluate_file, input_diagnostic
from cutlint.engine.loader import rules_by_id
from cutlint.engine.options import CheckOptions
from cutlint.engine.schema import Kind
from cutlint.model.arch import arch_for, cannot_load, known
from cutlint.model.context import ModelContext
from cutlint.parse import DEFAULT_DEFINES
from cutlint.parse.problems import INTERNAL_ERROR
from cutlint.producers import cutlass_library, cutlass_version
from cutlint.producers.flashinfer import cache_layout, modules
from cutlint.producers.flashinfer.releases import FlashInferRelease, JitModule, known_release
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

CONTEXT_MEMO = True
"""Whether files share model contexts through the run's memo (a test turns it off to hold the
outputs to a run without)."""


def context_for(
    parsed: ParsedFile, options: CheckOptions, memo: Memo | None = None
) -> ModelContext | str:
    """The file's model context from its resolved build context (cutlint.context.resolve: the
    GPU, the CUTLASS version, the release that wrote it, the JIT module and defines that compile
    it, each with its origin); or, when the GPU is not in cutlint's table, why the file cannot be
    judged (cutlint does not judge an sm_42 file by another arch's limits).

    With a run's memo, files of one directory whose build contexts are equal share one model
    context (and one BuildContext record, which each file's result then holds): `model_context`
    reads the path only for its directory (the cutlass_library layout, the JIT module directory,
    the cache's compile target), and the memo is one run's, so the options are the same."""
    build = resolve(
        parsed.path,
        options.build_info(),
        options.request(),
    )
    own = frozenset(parsed.defines)
    if memo is None or not CONTEXT_MEMO:
        return model_context(parsed.path, build, options, own)
    # by the record's identity: resolve gives a directory's files one record
    return memo.contexts.get(
        build,
        lambda: model_context(parsed.path, build, options, own),
        os.path.dirname(parsed.path),
        own,
    )


def model_context(
    path: str, build: BuildContext, options: CheckOptions, own_defines: frozenset[str] = frozenset()
) -> ModelContext | str:
    """The model context of the file at `path` whose build context is `build` (`context_for`;
    `pregen` resolves the file its generator would write from the JIT's own command). The one
    place a resolved context becomes what the families read."""
    assert build.gpu is not None
    if build.gpu.guessed and cutlass_library.in_build(path):
        # a cutlass_library file names its kernel's arch, not the GPU its build targets
        return cutlass_library.TARGET_UNKNOWN
    try:
        arch = arch_for(build.gpu.value)
    except KeyError:
        return (
            f"{build.gpu.where} says it was generated for sm_{build.gpu.value}, an arch "
            f"cutlint's table does not have ({known()}); pass --arch to judge it for one of them"
        )
    flashinfer = build.release if build.producer and build.producer.value == "flashinfer" else None
    version = flashinfer.value if flashinfer else None
    release = known_release(version)[0]
    module = modules.module_for(path, release) or _command_module(build, release)
    extra = frozenset(d for d in options.defines if d not in DEFAULT_DEFINES)
    if build.defines is not None:
        defined = (frozenset(build.defines.value) | extra) - set(options.undefines)
    elif module:
        defined = modules.defined(module, options.defines, options.undefines, DEFAULT_DEFINES)
    else:
        defined = frozenset()
    cutlass = _cutlass(build, version)
    loaded = build.loaded(arch.sm) if build.targets else None
    target = cache_layout.compile_target(path) if build.targets is None else None
    cannot = cannot_load(*target, arch) if target else None
    guessed = guesses(build, arch.name, cutlass.label)
    if target is not None and cannot is not None:
        guessed += (
            ("gpu", f"the compile target is sm_{target[0]}{target[1]} (read off the path)"),
        )
    return ModelContext(
        arch=arch,
        cutlass=cutlass,
        flashinfer=release,
        module=module,
        defines=defined | own_defines,
        arch_assumed=build.gpu.origin is Origin.DEFAULT,
        cannot_load=cannot,
        binary_for_gpu=bool(loaded) if loaded is not None else None,
        not_for_gpu=not_loaded(build, arch.name) if loaded == () else None,
        guessed=guessed,
        build=build,
    )


def _command_module(build: BuildContext, release: FlashInferRelease | None) -> JitModule | None:
    """The fused-MoE module a JIT build file names (`cached_ops/fused_moe_120/build.ninja`)."""
    if release is None or build.jit_module is None:
        return None
    m = re.fullmatch(r"fused_moe_(?:sm)?(\d+)", build.jit_module.value)
    return release.jit_module(m[1]) if m else None


def _cutlass(build: BuildContext, release: str | None) -> CutlassModel:
    """The CUTLASS the context found (flag, header, package), else the release's vendored one."""
    found = build.cutlass_version
    if found is None:
        return cutlass_version.resolve(None, release)
    if release is not None:
        vendored = cutlass_version.resolve(None, release)
        if vendored.label == found.value and found.origin is not Origin.OPTION:
            return vendored  # the header agrees with the release table: say it as before
    if found.origin is Origin.OPTION:
        return cutlass_version.resolve(
            build.cutlass_include.value if build.cutlass_include else found.value, None
        )
    return versions.cutlass_model(
        versions.parse_version(found.value), f"{found.where} ({found.origin.value})"
    )


def judge_file(parsed: ParsedFile, options: CheckOptions, memo: Memo | None = None) -> FileResult:
    needs = parsed.instantiations or parsed.dispatches
    ctx = context_for(parsed, options, memo) if needs else None
    if any(p.guard for p in parsed.problems):
        # an `#error` the parser found reached with the run's defines: decided for the build
        build = (
            ctx.build
            if isinstance(ctx, ModelContext)
            else resolve(parsed.path, options.build_info(), options.request())
        )
        problems = error_guards.redecided(
            parsed.path, parsed.problems, build, options.defines, bool(parsed.instantiations)
        )
        parsed = parsed.model_copy(update={"problems": problems})
    if isinstance(ctx, str):
        return _unjudged(parsed, ctx, options)
    if ctx is not None and ctx.build is not None:
        # a macro call is read by the #define its build reaches (the include path), and the
        # context says which definitions those were
        parsed = macros.read_by_definitions(parsed, ctx.build)
        found = macros.definitions(parsed.instantiations)
        if found is not None:
            ctx = replace(ctx, build=ctx.build.model_copy(update={"macros": found}))
    result = evaluate_file(
        parsed.path, parsed.instantiations, parsed.problems, ctx, options.selection, memo
    )
    if ctx is not None and parsed.dispatches:
        gaps = tuple(dispatch_findings(parsed.dispatches, ctx, options.selection))
        result = result.model_copy(update={"diagnostics": result.diagnostics + gaps})
    if ctx is not None and ctx.build is not None:
        return result.model_copy(update={"context": ctx.build})
    return result


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
    memo = Memo()
    files: list[FileResult] = []
    skipped: list[str] = []
    for p in parsed:
        if p.skipped:
            skipped.append(p.path)  # not an instantiation file (cache_layout.jit_source)
        else:
            files.append(judged_file(p, options, memo))
    result = CheckResult(files=tuple(files), skipped=tuple(skipped))
    return with_fingerprints(result, options.root or Path.cwd())
