"""Explanations: why a log's tactics failed (`explain_log`) and how a verdict was derived
(`derivation`, a networkx graph from the inputs down to the bytes, rendered by `tree`).

This stage reads records only: a LogFile from cutlint.logs, a CheckResult of the cache from
cutlint.api, and an InstantiationResult's Resources. It recomputes nothing of the model.
"""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.engine.options import DEFAULT_ARCH
from cutlint.explain.cache import CacheIndex
from cutlint.explain.callers import with_caller
from cutlint.explain.classify import judge
from cutlint.explain.lines import Assumed
from cutlint.explain.logmap import distinct, map_failure
from cutlint.explain.records import Agreement, Failure, FailureClass, LogExplanation, Summary
from cutlint.explain.tactic_ids import reading, summary_prediction
from cutlint.logs.events import LogEventKind, LogFile
from cutlint.logs.reader import MAX_EVENTS, MAX_LINE
from cutlint.producers.flashinfer.releases import known_release
from cutlint.records import CheckResult
from cutlint.tu_records import TuRead


def _notes(log: LogFile, cache: CacheIndex | None, version: str | None, origin: str) -> list[str]:
    notes: list[str] = []
    if log.cut_lines:
        notes.append(
            f"{log.cut_lines:,} line(s) longer than {MAX_LINE:,} bytes were read up to that length"
        )
    if log.unreadable_lines:
        notes.append(
            f"{log.unreadable_lines:,} line(s) look like failure messages but carry a number no "
            "launcher prints there (more than its C++ type holds): not read"
        )
    if log.dropped_events:
        notes.append(
            f"{log.dropped_events:,} failure line(s) after the first {MAX_EVENTS:,} distinct ones "
            "were not read: explain a shorter stretch of the log to see them"
        )
    if cache is None:
        notes.append(
            "no --cache: lines that name a generated file are not mapped to an instantiation; "
            "dense GEMM runners' lines are read against the release's tactic lists"
        )
    else:
        versions = cache.flashinfer_versions
        if len(versions) > 1:
            notes.append(
                f"the cache holds FlashInfer {', '.join(versions)}: a file named in the log may "
                "exist once per version; point --cache at one version's directory to be sure"
            )
        if not versions:
            notes.append(
                "the cache's files say no FlashInfer release (no build file, version file or "
                "version directory): tactic ids and the dispatch "
                "table cannot be read"
            )
    if version and origin:
        notes.append(f"FlashInfer {version}: {origin}")
    if version is None and cache is None:
        notes.append(_unknown(log))
    cached = cache.flashinfer_versions if cache is not None else ()
    if version and len(cached) == 1 and cached[0] != version:
        notes.append(
            f"the cache's files say FlashInfer {cached[0]}, but the log is read against {version}"
        )
    if log.flashinfer_versions and version and version not in log.flashinfer_versions:
        notes.append(
            f"the log's process ran FlashInfer {', '.join(log.flashinfer_versions)} (its JIT cache "
            f"path appears in the log), but the log is read against {version}: lines may not "
            "correspond"
        )
    return notes


def _release(log: LogFile, cache: CacheIndex | None, given: str | None) -> tuple[str | None, str]:
    """The FlashInfer release the log is read against, and where it came from (the strongest
    evidence first, as the build context takes it): given (--flashinfer-version), else the
    cache's files (their resolved contexts), else what the log itself says (a version banner, a
    wheel path, a JIT cache path, when they name one release), else the installed package;
    else none, and `_unknown` says so."""
    if given:
        return given, "given (--flashinfer-version)"
    versions = cache.flashinfer_versions if cache is not None else ()
    if len(versions) == 1:
        return versions[0], ""
    if cache is not None:
        return None, ""
    said = {s.version for s in log.flashinfer_said}
    if len(said) == 1:
        where = "; ".join(
            f"the log's {s.said_by} at line {s.line_no} (`{s.text}`)" for s in log.flashinfer_said
        )
        return said.pop(), where
    if said:
        return None, ""
    from cutlint.context.packages import installed_producer

    pkg = installed_producer("flashinfer")
    if pkg is not None:
        return pkg.version, (
            f"installed package ({pkg.where}): the log itself names no release, so this is "
            "the environment cutlint runs in, which need not be the log's"
        )
    return None, ""


def _unknown(log: LogFile) -> str:
    """The note for a log read against no release (context unknown, as CUT020 says of a file)."""
    said = sorted({s.version for s in log.flashinfer_said})
    why = (
        f"the log names FlashInfer {', '.join(said)} ("
        + "; ".join(f"{s.said_by} at line {s.line_no}" for s in log.flashinfer_said)
        + ")"
        if said
        else "the log names no FlashInfer release (no version banner, wheel path or JIT cache "
        "path) and no flashinfer package is installed here"
    )
    return (
        f"context unknown: {why}; dense GEMM runners' lines are not read against a release's "
        "tactic lists. Pass --flashinfer-version (or a --cache)"
    )


def explain_log(
    log: LogFile,
    cache_root: str | None,
    cache_result: CheckResult | None,
    flashinfer_version: str | None = None,
    arch: str | None = None,
    tu_reads: Sequence[TuRead] = (),
) -> LogExplanation:
    """Every distinct failure of `log`, mapped into the checked cache (when one is given) and
    judged; a dense GEMM runner's line is read against `flashinfer_version` (else the cache's)
    on `arch` (else the cache's, else sm_120). A hand-written caller's line is mapped to the
    kernels of `tu_reads` (`cutlint tu`) whose dispatch paths go through the caller's file."""
    given = cache_root is not None and cache_result is not None
    cache = CacheIndex.of(cache_root or "", cache_result or CheckResult(files=()))
    version, origin = _release(log, cache if given else None, flashinfer_version)
    cache_arch = cache.arch() if given else None
    target = arch or (cache_arch.name if cache_arch else DEFAULT_ARCH)
    assumed = Assumed(
        target, "--arch" if arch else ("the cache's arch" if cache_arch else "the default")
    )
    release = known_release(version)[0]
    failures = []
    for events in distinct(log.events):
        mapped = map_failure(events, cache)
        failure = judge(
            mapped,
            log.events,
            release,
            reading(mapped.first, version, mapped.matches),
            cache,
            runner_release=version,
            cache_given=given,
            assumed=assumed,
        )
        if tu_reads and failure.kind is LogEventKind.CALLER_FAILED:
            failure = with_caller(failure, tu_reads, assumed)
        failures.append(failure)
    summaries = []
    seen: set[str] = set()
    for e in log.events:
        if e.kind is LogEventKind.SKIPPED_SUMMARY and e.text not in seen:
            seen.add(e.text)
            summaries.append(
                Summary(event=e, predicted=summary_prediction(e, version, cache, release))
            )
    versions = cache.flashinfer_versions
    return LogExplanation(
        log_path=log.path,
        log_lines=log.lines,
        cache=cache_root if given else None,
        cache_flashinfer_version=versions[0] if len(versions) == 1 else None,
        flashinfer_version=version,
        flashinfer_version_origin=(origin or "the cache's files") if version else None,
        arch=target,
        failures=tuple(failures),
        findings=tuple(dict.fromkeys(x for f in failures for x in f.findings)),
        summaries=tuple(summaries),
        notes=tuple(_notes(log, cache if given else None, version, origin))
        + tuple(
            f"translation unit read (cutlint tu): {r.command.file} [{r.arch}]" for r in tu_reads
        ),
    )


def __getattr__(name: str) -> object:
    # `derivation` builds a networkx graph: imported when asked for, so that `explain --log`
    # does not import networkx (PEP 562)
    if name == "derivation":
        from cutlint.explain.graph import derivation

        return derivation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Agreement",
    "Failure",
    "FailureClass",
    "LogExplanation",
    "Summary",
    "derivation",
    "explain_log",
]
