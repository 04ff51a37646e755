"""Dense GEMM runners' failures, read against the release's tactic lists.

`[MXFP8 SM120 gemm Runner] Failed to initialize cutlass MXFP8 gemm on sm120. Error: Error
Internal` (flashinfer#3568) names the runner and the step, never the tactic: the runner numbers
its configs by their index in getConfigs(). So the line is read as every tactic of that runner in
the release (runners/runner_tactics, which asks the families' models), and the
explanation is which of them cannot initialize on the arch, and why. With a cache, a tactic
whose kernel the cache's module never instantiates is its own finding.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from cutlint.engine.runner_findings import tactic_findings
from cutlint.explain.cache import CacheIndex
from cutlint.explain.logmap import Mapped
from cutlint.explain.records import Agreement, FailureClass, GemmRunnerReading, GemmRunnerTactic
from cutlint.logs.events import LogEvent
from cutlint.records import InstantiationResult, TacticFinding
from cutlint.runners.runner_tactics import (
    ProducerPacking,
    Runner,
    RunnerExplanation,
    Step,
    TacticVerdict,
    Verdict,
    explain_runner_line,
    read_line,
    runner_for,
    runners,
    step_of,
)

Judged = tuple[
    FailureClass | None,
    Agreement,
    str,
    str | None,
    GemmRunnerReading | None,
    tuple[InstantiationResult, ...],
    tuple[TacticFinding, ...],
]
"""(class, agreement, explanation, tactic reading, the runner's tactics judged, the cache's
instantiations of the tactics the line can be, findings on the runner's tactics (CUT207))."""

INTERNAL = "Error Internal"


def _class(step: Step | None, status: str | None) -> FailureClass | None:
    """The class the step alone decides: a refused shared-memory attribute is A."""
    if step is Step.INITIALIZE:
        if status is None:
            return None  # the line was cut before its status (a quoted title): not decided
        return FailureClass.A if status == INTERNAL else FailureClass.D
    if step in (Step.CAN_IMPLEMENT, Step.WORKSPACE):
        return FailureClass.D
    return FailureClass.G if step is Step.RUN else None


def _prefix(message: str) -> str:
    end = message.find("]")
    return message[: end + 1] if end >= 0 else message


def _logged_ids(events: Sequence[LogEvent], runner_class: str) -> tuple[int, ...]:
    """The tactic ids the autotuner's lines give this failure (its own runner's, or unnamed)."""
    ids = {e.tactic for e in events if e.tactic is not None and e.runner in (None, runner_class)}
    return tuple(sorted(i for i in ids if i is not None))


def _logged_class(events: Sequence[LogEvent]) -> str | None:
    """The runner class the autotuner's lines name for this failure, if one."""
    return next((e.runner for e in events if e.runner is not None), None)


def _module_files(
    cache: CacheIndex | None, macros: frozenset[str]
) -> tuple[set[tuple[str, tuple[str, ...]]], str] | None:
    """The cache's instantiations of the runner's launcher macros and the directory that holds
    them, or None when it holds none (no module to check the tactics against)."""
    if cache is None:
        return None
    hits = [r for r in cache.all_instantiations() if r.instantiation.name in macros]
    if not hits:
        return None
    found = {(r.instantiation.name, tuple(r.instantiation.args)) for r in hits}
    dirs = {str(Path(r.instantiation.span.path).parent) for r in hits}
    return found, os.path.commonpath(sorted(dirs))


def _matches(
    cache: CacheIndex | None, runner: Runner, vs: Sequence[TacticVerdict], release: str
) -> tuple[InstantiationResult, ...]:
    """The cache's instantiations the tactics dispatch to (every output type), in file order."""
    if cache is None or not vs:
        return ()
    wanted = {i for v in vs for i in runner.instantiations(v.tactic, release)}
    return tuple(
        r
        for r in cache.all_instantiations()
        if (r.instantiation.name, tuple(r.instantiation.args)) in wanted
    )


def _row(v: TacticVerdict, logged: Sequence[int]) -> GemmRunnerTactic:
    t = v.tactic
    return GemmRunnerTactic(
        id=t.id, config=f"{t.config} {t.schedule}" if t.schedule else t.config, tile=t.tile, swap_ab=t.swap_ab, kernel=t.kernel,
        verdict=v.verdict.value, stages=v.stages, smem=v.smem, limit=v.limit, why=v.why,
        breakdown=v.breakdown, logged=t.id in logged,
    )  # fmt: skip


def _ids(vs: Sequence[TacticVerdict]) -> str:
    return ", ".join(str(v.tactic.id) for v in vs)


def _name(v: TacticVerdict) -> str:
    t = v.tactic
    tile = f"{t.tile.m}x{t.tile.n}x{t.tile.k}"
    schedule = f", {t.schedule}" if t.schedule else ""
    return (
        f"{t.config} ({tile}, SwapAB {'on' if t.swap_ab else 'off'}, {t.kernel} kernel{schedule})"
    )


def _reading(
    e: RunnerExplanation,
    logged: Sequence[int],
    runner_class: str,
    producer: ProducerPacking | None = None,
) -> str | None:
    if not logged:
        return None
    by_id = {v.tactic.id: v for v in e.tactics}

    def one(i: int) -> str:
        row, variant = producer.unpack(i) if producer else (i, 0)
        if row not in by_id:
            return f"{i} is not in the list ({len(e.tactics)} tactics)"
        said = f"{_name(by_id[row])}, {by_id[row].verdict.value}"
        if producer is None:
            return f"{i} = {said}"
        return f"{i} = row {row} ({said}) with producer variant {variant} (not modeled)"

    parts = [one(i) for i in logged]
    return f"{runner_class} in FlashInfer {e.release}'s order on {e.arch}: " + "; ".join(parts)


def _initialize(e: RunnerExplanation, logged: Sequence[int]) -> tuple[Agreement, str]:
    """Agreement and words for `initialize()` failing with Error Internal."""
    by_id = {v.tactic.id: v for v in e.tactics}
    unknown = [i for i in logged if i not in by_id]
    if unknown:
        return Agreement.UNMAPPED, (
            f"The log names tactic(s) {', '.join(map(str, unknown))}, which FlashInfer "
            f"{e.release}'s runner does not have ({len(e.tactics)} tactics): the log is another "
            "release's; give its --flashinfer-version."
        )
    fits = [by_id[i] for i in logged if by_id[i].verdict is Verdict.FITS]
    if fits:
        return Agreement.CONTRADICTS, (
            f"The log says tactic(s) {_ids(fits)} failed to initialize, but cutlint computes "
            + "; ".join(f"{_name(v)} {v.why}" for v in fits)
            + ". The model or the tactic list is wrong here, or the failure has another cause "
            "(a binary built for another arch, class E, or an earlier sticky error, class G)."
        )
    if e.candidates:
        first = by_id[logged[0]] if logged else e.candidates[0]
        named = (
            f"The log names tactic(s) {', '.join(map(str, logged))}, which cutlint predicts to "
            "fail so"
            if logged
            else "The runner's message names no tactic"
        )
        return Agreement.EXPLAINED, (
            f"{named}; in FlashInfer {e.release}, {e.summary}. {_name(first)}: {first.why}."
        )
    unmodeled = [v for v in e.tactics if v.verdict is Verdict.NOT_MODELED]
    if unmodeled:
        return Agreement.NOT_MODELED, (
            f"No tactic cutlint models exceeds {e.arch}'s limit, and tactic(s) "
            f"{_ids(unmodeled)} are not modeled: {unmodeled[0].why}."
        )
    pool = [v for v in e.tactics if e.line.kernel is None or v.tactic.kernel == e.line.kernel]
    largest = max(pool, key=lambda v: v.smem or 0)
    return Agreement.CONTRADICTS, (
        f"initialize() failed with Error Internal, but every tactic of FlashInfer {e.release}'s "
        f"runner fits {e.arch}'s {largest.limit:,} B (the largest, tactic {largest.tactic.id}, "
        f"{_name(largest)}, needs {largest.smem or 0:,} B): the failure has another cause (a "
        "binary built for another arch, class E, or an earlier sticky error, class G), or the "
        "log is another release's."
    )


def _not_modeled(step: Step | None, status: str | None, why: str) -> Judged:
    return _class(step, status), Agreement.NOT_MODELED, why, None, None, (), ()


def judge_gemm_runner(
    m: Mapped, release: str | None, arch: str, cache: CacheIndex | None
) -> Judged:
    first = m.first
    message = first.runner_message or first.text
    step = step_of(message)
    read = read_line(message)
    if read is None:
        known = ", ".join(r.label for r in runners().values())
        return _not_modeled(step, first.status, (
            f"`{_prefix(message)}` is a GEMM runner cutlint has no tactic table for (it has "
            f"{known}): its tactics cannot be numbered or judged, so this failure is not explained."
        ))  # fmt: skip
    runner = runners()[runner_for(read.runner, _logged_class(m.events))]
    if read.arch_text and not read.arch_text.startswith("sm12"):
        return _not_modeled(step, first.status, (
            f"`{read.prefix}` on {read.arch_text}: cutlint's tactic table is of the SM120 "
            "runner of that name, not this arch's."
        ))  # fmt: skip
    if release is None:
        return _not_modeled(step, first.status, (
            f"`{runner.label}` numbers its tactics per release, and no FlashInfer release is "
            "known here: give --flashinfer-version, or a --cache whose path names it."
        ))  # fmt: skip
    module = _module_files(cache, runner.macros(release))
    e = explain_runner_line(
        message, release, arch, module[0] if module else None, runner.runner_class
    )
    if not isinstance(e, RunnerExplanation):
        return _not_modeled(step, first.status, (
            f"{e or 'not a runner line'}; cutlint has no tactic table for this runner in "
            f"FlashInfer {release}, so this failure is not judged."
        ))  # fmt: skip
    rel = runner.releases[release]
    ids = _logged_ids(m.events, runner.runner_class)
    # The rows of the table the logged ids run (a packed id's consumer half).
    logged = tuple(sorted({rel.row_of(i) for i in ids}))
    # The table answers "which tactic cannot initialize": for another step it is not the cause.
    reading = None if step is not Step.INITIALIZE else GemmRunnerReading(
        runner=runner.key, prefix=e.line.prefix, runner_class=runner.runner_class,
        blocklist_keys=runner.blocklist_keys(release), release=release, arch=arch,
        step=step.value if step else None, source=e.source,
        instantiations_checked=module is not None,
        tactics=tuple(_row(v, logged) for v in e.tactics),
        candidates=tuple(v.tactic.id for v in e.candidates), summary=e.summary,
    )  # fmt: skip
    cls = _class(step, first.status)
    statusless = first.status is None and not runner.status_in_message
    if step is Step.INITIALIZE and first.status == INTERNAL:
        agreement, text = _initialize(e, logged)
    elif step is Step.INITIALIZE and statusless:
        # The runner prints no cutlass::Status: a tactic that cannot have its shared memory is
        # the cause when the log names it or the table has one; else the table rules it out.
        cls = FailureClass.A if e.candidates else None
        if e.candidates or logged:
            agreement, text = _initialize(e, logged)
        else:
            agreement, text = (
                Agreement.NOT_DECIDABLE,
                (
                    f"In FlashInfer {release}: {e.summary}. `{runner.label}` prints no cutlass "
                    "status, so the cause is not in the line; shared memory is ruled out for every "
                    "tactic."
                ),
            )
    else:
        agreement, text = Agreement.NOT_DECIDABLE, f"In FlashInfer {release}: {e.summary}."
    if rel.producer is not None:
        text += f" The ids pack a producer variant: {runner.producer_note}."
    findings = tactic_findings(runner.key, release, e.tactics, module[1]) if module else ()
    if findings:
        # Its own finding (CUT207, LogExplanation.findings); the text only points at it.
        text += (
            f" Besides, {len(findings)} finding(s) {findings[0].rule} {findings[0].name}: "
            "tactics whose kernel the cache's module never instantiates."
        )
    named = [v for v in e.tactics if v.tactic.id in logged]
    matches = _matches(cache, runner, named or list(e.candidates), release)
    return (
        cls, agreement, text, _reading(e, ids, runner.runner_class, rel.producer), reading,
        matches, findings,
    )  # fmt: skip
