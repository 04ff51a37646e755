"""One check run over parsed files: each file's model context, then every instantiation judged."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cutlint.cutlass.versions import resolve
from cutlint.engine.fingerprint import with_fingerprints
from cutlint.engine.judge import Memo, evaluate_file
from cutlint.engine.options import DEFAULT_ARCH, CheckOptions
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.producers.flashinfer.releases import known_release
from cutlint.records import CheckResult, FileResult, ParsedFile


def context_for(parsed: ParsedFile, options: CheckOptions) -> ModelContext:
    """The target arch (option, else the file's path, else sm_120), the CUTLASS version and the
    FlashInfer release that wrote the file."""
    arch = arch_for(options.arch or (parsed.generated_for_sm or DEFAULT_ARCH))
    version = parsed.flashinfer_version or options.flashinfer_version
    release = known_release(version)[0]
    return ModelContext(
        arch=arch, cutlass=resolve(options.cutlass_version, version), flashinfer=release
    )


def judge_file(parsed: ParsedFile, options: CheckOptions, memo: Memo | None = None) -> FileResult:
    ctx = context_for(parsed, options) if parsed.instantiations else None
    return evaluate_file(
        parsed.path, parsed.instantiations, parsed.problems, ctx, options.selection, memo
    )


def judge_files(parsed: Iterable[ParsedFile], options: CheckOptions) -> CheckResult:
    memo: Memo = {}
    result = CheckResult(files=tuple(judge_file(p, options, memo) for p in parsed))
    return with_fingerprints(result, options.root or Path.cwd())
