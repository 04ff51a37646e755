"""The dense SM120 GEMM runners' tactics for pregen: every id of `[MXFP8 SM120 gemm Runner]`,
`[FP4 gemm Runner]`, SVDQuant's runners ... in the release's order, judged on the arch
(runners/runner_tactics), with the blocklist keys they are stored under. No
generator writes these kernels (FlashInfer's JIT renders them when a model first calls the
GEMM), so pregen lists them from the runners' own tables; given the release's tree it renders
the JIT modules the way the JIT does (producers/flashinfer/jit_modules) and holds each tactic to
its module's instantiations: a tactic whose kernel the module never instantiates is a finding of
its own (CUT207, engine/runner_findings)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cutlint.engine.runner_findings import tactic_findings
from cutlint.pregen.records import GemmRunnerTactic
from cutlint.records import ArchLimits, TacticFinding
from cutlint.runners.runner_tactics import judge_runner, runners

SM120_FAMILY = (120, 121)
"""The runners are SM120's (their launchers' messages say `on sm120`, `on sm120/sm121`)."""

Instantiated = frozenset[tuple[str, tuple[str, ...]]]


def rendered_modules(
    root: Path, version: str, sm: int
) -> tuple[dict[str, tuple[Instantiated, str]], str | None]:
    """module name -> (its instantiations, where the JIT would write it: `flashinfer/<version>/
    <arch>/generated/<dir>`), rendered from the release's own gen functions into a scratch
    directory; and a note when they cannot be rendered."""
    from cutlint.parse import parse_paths
    from cutlint.producers.flashinfer.jit_modules import JitRenderError, render_jit_specs

    out: dict[str, tuple[Instantiated, str]] = {}
    with tempfile.TemporaryDirectory(prefix="cutlint-pregen-") as tmp:
        try:
            modules = render_jit_specs(root, version, Path(tmp), sm)
        except JitRenderError as e:
            return {}, (
                f"the release's JIT GEMM modules could not be rendered ({e}): the runners' "
                "tactics are not held to their modules' instantiations"
            )
        for m in modules:
            if not m.generated:
                continue
            found = frozenset(
                (i.name, tuple(i.args))
                for p in parse_paths(list(m.generated))
                for i in p.instantiations
            )
            where = os.path.commonpath([str(p.parent) for p in m.generated])
            out[m.name] = (found, Path(where).relative_to(tmp).as_posix())
    return out, None


def gemm_runner_tactics(
    version: str,
    arch: ArchLimits,
    modules: dict[str, tuple[Instantiated, str]] | None = None,
) -> tuple[list[GemmRunnerTactic], list[str], list[TacticFinding]]:
    """The records, notes on the runners whose tactics cutlint cannot list for `version`, and
    the findings on tactics whose kernel their module never instantiates (`modules`: each JIT
    module's instantiations and place, rendered_modules'; None: not checked)."""
    if arch.sm not in SM120_FAMILY:
        return [], [], []
    out: list[GemmRunnerTactic] = []
    notes: list[str] = []
    findings: list[TacticFinding] = []
    for key, runner in runners().items():
        module = modules.get(runner.module) if modules is not None else None
        if modules is not None and module is None and runner.releases.get(version):
            notes.append(f"{runner.label}: the release's JIT renders no {runner.module} module")
        verdicts = judge_runner(key, version, arch.name, module[0] if module else None)
        if isinstance(verdicts, str):
            notes.append(f"{verdicts}: its ids are not judged and not in the blocklist")
            continue
        rel = runner.releases[version]
        if rel.producer is not None:
            notes.append(
                f"{runner.label} {runner.runner_class}: an id is a row | producer variant << "
                f"{rel.producer.shift}, up to {rel.producer.variants} variants; {runner.producer_note}"
            )
        if module is not None:
            findings += tactic_findings(key, version, verdicts, module[1])
        keys = runner.blocklist_keys(version)
        for v in verdicts:
            t = v.tactic
            out.append(
                GemmRunnerTactic(
                    runner=runner.label,
                    runner_class=runner.runner_class,
                    keys=keys,
                    tactic=t.id,
                    ids=rel.ids(t.id),
                    config=f"{t.config} SwapAB {'on' if t.swap_ab else 'off'} {t.kernel}"
                    + (f" {t.schedule}" if t.schedule else ""),
                    tile=f"{t.tile.m}x{t.tile.n}x{t.tile.k}",
                    swap_ab=t.swap_ab,
                    kernel=t.kernel,
                    verdict=v.verdict.value,
                    smem=v.smem,
                    stages=v.stages,
                    why=v.why,
                )
            )
    # Runners that share a label (the SVDQuant tactic variants) say the same thing once.
    return out, list(dict.fromkeys(notes)), findings
