"""Explanations: why a log's tactics failed (`explain_log`) and how a verdict was derived
(`derivation`, a networkx graph from the inputs down to the bytes, rendered by `tree`).

This stage reads records only: a LogFile from cutlint.logs, a CheckResult of the cache from
cutlint.api, and an InstantiationResult's Resources. It recomputes nothing of the model.
"""

from __future__ import annotations

from cutlint.explain.cache import CacheIndex
from cutlint.explain.classify import judge
from cutlint.explain.graph import derivation
from cutlint.explain.logmap import distinct, map_failure
from cutlint.explain.records import Agreement, Failure, FailureClass, LogExplanation, Summary
from cutlint.explain.tactic_ids import reading, summary_prediction
from cutlint.logs.events import LogEventKind, LogFile
from cutlint.logs.reader import MAX_EVENTS, MAX_LINE
from cutlint.producers.flashinfer.releases import known_release
from cutlint.records import CheckResult


def _notes(log: LogFile, cache: CacheIndex, version: str | None) -> list[str]:
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
    versions = cache.flashinfer_versions
    if len(versions) > 1:
        notes.append(
            f"the cache holds FlashInfer {', '.join(versions)}: a file named in the log may exist "
            "once per version; point --cache at one version's directory to be sure"
        )
    if not versions:
        notes.append(
            "the cache's paths name no FlashInfer version: tactic ids and the dispatch "
            "table cannot be read"
        )
    if log.flashinfer_versions and version and version not in log.flashinfer_versions:
        notes.append(
            f"the log's process ran FlashInfer {', '.join(log.flashinfer_versions)} (its JIT cache "
            f"path appears in the log), but the cache is {version}: lines may not correspond"
        )
    return notes


def explain_log(log: LogFile, cache_root: str, cache_result: CheckResult) -> LogExplanation:
    """Every distinct failure of `log`, mapped into the checked cache and judged."""
    cache = CacheIndex.of(cache_root, cache_result)
    versions = cache.flashinfer_versions
    version = versions[0] if len(versions) == 1 else None
    release = known_release(version)[0]
    failures = []
    for events in distinct(log.events):
        mapped = map_failure(events, cache)
        failures.append(
            judge(
                mapped,
                log.events,
                release,
                reading(mapped.first, version, mapped.matches),
                cache,
            )
        )
    summaries = []
    seen: set[str] = set()
    for e in log.events:
        if e.kind is LogEventKind.SKIPPED_SUMMARY and e.text not in seen:
            seen.add(e.text)
            summaries.append(
                Summary(event=e, predicted=summary_prediction(e, version, cache, release))
            )
    return LogExplanation(
        log_path=log.path,
        log_lines=log.lines,
        cache=cache_root,
        cache_flashinfer_version=version,
        failures=tuple(failures),
        summaries=tuple(summaries),
        notes=tuple(_notes(log, cache, version)),
    )


__all__ = [
    "Agreement",
    "Failure",
    "FailureClass",
    "LogExplanation",
    "Summary",
    "derivation",
    "explain_log",
]
