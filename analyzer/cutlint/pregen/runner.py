"""MoeGemmRunner's CUTLASS 2.x grouped tactics for pregen: every id the autotuner profiles on the
arch (runners/sm8x_grouped), as records, with the blocklist key it is stored under."""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.families.base import runner_kernel
from cutlint.pregen.records import RunnerTactic
from cutlint.producers.flashinfer.tactics import QuantMode, runner_tactics
from cutlint.records import ArchLimits, InstantiationResult
from cutlint.runners.sm8x_grouped import report
from cutlint.runners.sm8x_grouped.tactics import RunnerKind

RUNNER_CLASS = "MoERunner"
"""flashinfer/fused_moe/core.py: get_cutlass_fused_moe_module.<locals>.MoERunner, the class every
dtype's runner is (the blocklist key is `<custom_op>::<class>`), where the tactic table of the
release does not say."""


def grouped_tactics(version: str, arch: ArchLimits) -> tuple[list[RunnerTactic], list[str]]:
    """The records, and notes on what could not be listed."""
    kinds = report.kinds_on(arch.sm)
    if not kinds:
        return [], []
    if not report.known(version):
        return [], [
            f"FlashInfer {version} is not in the CUTLASS 2.x grouped runner's table "
            "(runners/sm8x_grouped/data/tactics.toml): its tactics are not listed"
        ]
    table = runner_tactics(version, QuantMode.NVFP4)
    runner = table.runner if table is not None else RUNNER_CLASS
    out: list[RunnerTactic] = []
    for kind in kinds:
        for r in report.reports(version, arch, kind):
            t = r.tactic.config
            out.append(
                RunnerTactic(
                    runner=report.KIND_LABELS[kind],
                    key=f"{r.custom_op}::{runner}",
                    tactic=r.tactic.tactic,
                    config=r.tactic.describe(),
                    status=r.status,
                    verdict=r.verdict_text(),
                    reason=r.reason,
                    prefilter=r.prefilter,
                    kind=kind.value,
                    gemm=r.tactic.gemm,
                    tile=str(t.tile.threadblock),
                    stages=t.stages,
                )
            )
    return out, []


_FUSED_KIND = {"cutlass::half_t": RunnerKind.F16, "cutlass::bfloat16_t": RunnerKind.BF16}


def fused_ids(result: InstantiationResult, grouped: Sequence[RunnerTactic]) -> tuple[int, ...]:
    """The runner ids an SM80 fused-MoE instantiation serves: GEMM 1 of the 16-bit runner of its
    element type with its tile and stages (genericMoeGemmKernelLauncher::call takes the fused
    kernel there for a gated activation)."""
    r = runner_kernel(result)
    if r is None:
        return ()
    kind = _FUSED_KIND.get(r.element)
    return tuple(
        g.tactic
        for g in grouped
        if kind is not None
        and g.kind == kind.value
        and g.gemm == 1
        and g.tile == str(r.tile)
        and g.stages == r.stages
    )
