"""The dense SM120 GEMM runners' tactics for pregen: every id of `[MXFP8 SM120 gemm Runner]`,
`[FP4 gemm Runner]`, ... in the release's getConfigs() order, judged on the arch
(producers/flashinfer/runner_tactics), with the blocklist keys they are stored under. No
generator writes these kernels (FlashInfer's JIT renders them when a model first calls the
GEMM), so pregen lists them from the runners' own tables."""

from __future__ import annotations

from cutlint.pregen.records import GemmRunnerTactic
from cutlint.producers.flashinfer.runner_tactics import judge_runner, runners
from cutlint.records import ArchLimits

SM120_FAMILY = (120, 121)
"""The runners are SM120's (their launchers' messages say `on sm120`, `on sm120/sm121`)."""


def gemm_runner_tactics(version: str, arch: ArchLimits) -> tuple[list[GemmRunnerTactic], list[str]]:
    """The records, and notes on the runners whose tactics cutlint cannot list for `version`."""
    if arch.sm not in SM120_FAMILY:
        return [], []
    out: list[GemmRunnerTactic] = []
    notes: list[str] = []
    for key, runner in runners().items():
        verdicts = judge_runner(key, version, arch.name)
        if isinstance(verdicts, str):
            notes.append(f"{verdicts}: its ids are not judged and not in the blocklist")
            continue
        keys = runner.blocklist_keys(version)
        for v in verdicts:
            t = v.tactic
            out.append(
                GemmRunnerTactic(
                    runner=runner.label,
                    keys=keys,
                    tactic=t.id,
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
    return out, notes
