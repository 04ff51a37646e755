"""Findings on a runner's tactics judged against a module's instantiations (rules of kind
`runner`): a tactic whose launcher the module never instantiates is CUT207, a finding of its
own, apart from any shared-memory verdict on the tactic (runners/runner_tactics
judges the tactics; this turns the verdicts into findings with the rule's id and words)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import Kind
from cutlint.records import Instantiation, TacticFinding
from cutlint.runners.runner_tactics import (
    TacticVerdict,
    Verdict,
    judge_runner,
    runners,
)


def _subject(inst: tuple[str, tuple[str, ...]]) -> str:
    return f"{inst[0]}({', '.join(inst[1])})"


def tactic_findings(
    runner_key: str, release: str, verdicts: Sequence[TacticVerdict], path: str
) -> tuple[TacticFinding, ...]:
    """One finding per instantiation that tactics of the runner need and the module lacks, in
    tactic order. `path`: where the module's files are (a cache directory, or the JIT's layout
    for a module pregen rendered)."""
    rule = next(r for r in rules_by_id().values() if r.kind is Kind.RUNNER)
    runner = runners()[runner_key]
    rel = runner.releases[release]
    missing: dict[tuple[str, tuple[str, ...]], list[TacticVerdict]] = {}
    for v in verdicts:
        for inst in v.missing if v.verdict is Verdict.NOT_INSTANTIATED else ():
            missing.setdefault(inst, []).append(v)
    out: list[TacticFinding] = []
    for inst, vs in missing.items():
        tactics = tuple(v.tactic.id for v in vs)
        ids = tuple(i for t in tactics for i in rel.ids(t))
        named = ", ".join(map(str, tactics))
        packed = (
            f" (ids {ids[0]}, {ids[1]}, ... : each row with every producer variant)"
            if rel.producer
            else ""
        )
        out.append(
            TacticFinding(
                rule=rule.id,
                name=rule.name,
                severity=rule.severity,
                runner=runner.label,
                runner_class=runner.runner_class,
                release=release,
                module=runner.module,
                path=path,
                instantiation=_subject(inst),
                tactics=tactics,
                ids=ids,
                keys=runner.blocklist_keys(release),
                message=(
                    f"{rule.message}: {runner.runner_class} tactic(s) {named}{packed} of "
                    f"FlashInfer {release} need `{_subject(inst)}`, which no file of "
                    f"{runner.module} instantiates"
                ),
                why=vs[0].why,
            )
        )
    return tuple(out)


def module_findings(
    instantiations: Sequence[Instantiation], release: str, arch: str = "sm_120"
) -> tuple[TacticFinding, ...]:
    """Every runner of `release` whose module is among `instantiations` (those of a JIT cache:
    a runner counts as present when any of its launcher macros is instantiated), its tactics
    held to them: the CUT207 findings, runner by runner."""
    out: list[TacticFinding] = []
    for key, runner in runners().items():
        if release not in runner.releases:
            continue
        mine = [i for i in instantiations if i.name in runner.macros(release)]
        if not mine:
            continue
        verdicts = judge_runner(key, release, arch, {(i.name, tuple(i.args)) for i in mine})
        if isinstance(verdicts, str):
            continue
        where = os.path.commonpath(sorted({str(Path(i.span.path).parent) for i in mine}))
        out += tactic_findings(key, release, verdicts, where)
    return tuple(out)
