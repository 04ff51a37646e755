"""Read the autotuner's tactic ids in FlashInfer's tactic order (cutlint.producers.flashinfer.tactics).

A log's file:line names the instantiation; the tactic id is a second witness. Where both are
there, they must name the same config, and saying whether they do catches a cache that is not
the one the logging process used. A summary line (`Skipped N ... for <op>`) names no tactic at
all; the tactic order lets cutlint say how many of that op's tactics it predicts to fail.
"""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.explain.cache import CacheIndex
from cutlint.families.base import moe_args
from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.producers.flashinfer.releases import FlashInferRelease
from cutlint.producers.flashinfer.tactics import (
    QuantMode,
    TacticConfig,
    quant_mode_of,
    runner_tactics,
)
from cutlint.records import InstantiationResult, Verdict
from cutlint.runners.sm8x_grouped import report as grouped

_RUNNER_KINDS = (LogEventKind.ZERO_OCCUPANCY, LogEventKind.ZERO_OCCUPANCY_FUSED)
_NOT_THE_TACTICS = (
    LogEventKind.INVALID_ACTIVATION,
    LogEventKind.NO_KERNEL_IMAGE,
    LogEventKind.STICKY_CUDA_ERROR,
)
"""Failures whose cause is not the tactic the autotuner was on: its id is not read."""
MODE_LABELS = {QuantMode.NVFP4: "NVFP4", QuantMode.MXFP8_MXFP4: "MXFP8 x MXFP4"}
SPELLED_OUT = 4
"""Up to this many predicted failures are named with their configs; more are listed by id."""


def _same_config(c: TacticConfig, r: InstantiationResult) -> bool:
    m = moe_args(r)
    return (
        m is not None and m.cta_tile == c.tile and m.fusion is c.fusion and m.swap_ab == c.swap_ab
    )


def reading(e: LogEvent, version: str | None, matches: Sequence[InstantiationResult]) -> str | None:
    """What `e.tactic` names for each runner of `version`, and whether it agrees with `matches`."""
    if e.tactic is None or version is None or e.kind in _RUNNER_KINDS + _NOT_THE_TACTICS:
        return None  # the CUTLASS 2.x runners' ids: explain/runner.py reads them
    found: list[tuple[QuantMode, TacticConfig]] = []
    runner = None
    for mode in QuantMode:
        table = runner_tactics(version, mode)
        if table is None:
            return None
        runner = table.runner
        c = table.by_id(e.tactic)
        if c is not None:
            found.append((mode, c))
    if e.runner is not None and e.runner != runner:
        return None  # another runner's ids (trtllm-gen, dense GEMM): not this table's
    if not found:
        return (
            f"tactic {e.tactic} is beyond FlashInfer {version}'s SM120 TMA WS tactic lists "
            "(an SM80/SM89 fallback config, or another runner)"
        )
    text = "; ".join(f"{c.describe()} for the {MODE_LABELS[mode]} runner" for mode, c in found)
    checks: list[str] = []
    for r in matches:
        m = moe_args(r)
        here = quant_mode_of(m) if m else None
        if here is None:
            continue
        config = next((c for md, c in found if md is here), None)
        if config is not None and _same_config(config, r):
            checks.append("agrees with the file:line")
        else:
            checks.append(
                "does NOT agree with the file:line: the cache may not be the one the "
                "logging process used"
            )
    if e.tile is not None:
        printed = [mode for mode, c in found if c.tile == e.tile]
        checks = [
            f"agrees with the tile the launcher printed, for the {MODE_LABELS[printed[0]]} runner"
            if printed
            else "names no config of the printed tile"
        ]
    tail = f" ({checks[0]})" if checks and len(set(checks)) == 1 else ""
    return f"tactic {e.tactic} in FlashInfer {version}'s order: {text}{tail}"


def _predicted_failures(
    configs: Sequence[TacticConfig],
    mode: QuantMode,
    cache: CacheIndex,
    release: FlashInferRelease | None,
) -> list[TacticConfig]:
    """The configs the model predicts to fail: their instantiations fail initialize(), or none is
    compiled and the launcher's dispatch refuses the tile (class B)."""
    results = [
        r
        for r in cache.all_instantiations()
        if (m := moe_args(r)) is not None and quant_mode_of(m) is mode
    ]
    failing: list[TacticConfig] = []
    for c in configs:
        mine = [r for r in results if _same_config(c, r)]
        if mine and any(r.verdict in (Verdict.FAILS_INITIALIZE, Verdict.UNREACHABLE) for r in mine):
            failing.append(c)
        elif (
            not mine
            and release is not None
            and (c.tile.m, c.tile.n, c.tile.k) not in release.sm120_tiles
        ):
            failing.append(c)
    return failing


def _grouped_failures(version: str, cache: CacheIndex, gemm: int) -> list[str]:
    """The CUTLASS 2.x grouped runners' failing ids of one GEMM on the cache's arch (the path
    every config of the runner takes, or one of them: `partly`)."""
    arch = cache.arch()
    if arch is None or not grouped.known(version):
        return []
    out = []
    for kind in grouped.kinds_on(arch.sm):
        bad = [
            r
            for r in grouped.reports(version, arch, kind)
            if r.tactic.gemm == gemm and r.status != "runs"
        ]
        ids = ", ".join(f"{r.tactic.tactic}" + ("" if r.status == "fails" else "*") for r in bad)
        out.append(
            f"{len(bad)} for the {grouped.KIND_LABELS[kind]} runner" + (f" ({ids})" if bad else "")
        )
    if any("*" in p for p in out):
        out[-1] += " (*: with a gated activation only)"
    return out


def summary_prediction(
    e: LogEvent, version: str | None, cache: CacheIndex, release: FlashInferRelease | None
) -> str:
    """The model's count of failing tactics for the summary's op, per runner."""
    if version is None or e.custom_op is None:
        return "cutlint cannot number this op's tactics (no FlashInfer version or op)"
    parts: list[str] = []
    for mode in QuantMode:
        table = runner_tactics(version, mode)
        if table is None:
            return f"FlashInfer {version} is not in cutlint's tactic table"
        if e.custom_op not in table.custom_ops:
            return f"{e.custom_op} is not the CUTLASS fused-MoE runner's op; cutlint has no count"
        gemm = table.custom_ops.index(e.custom_op) + 1
        fails = _predicted_failures(table.of_gemm(gemm), mode, cache, release)
        if len(fails) <= SPELLED_OUT:
            ids = ", ".join(f"{c.tactic} = {c.describe()}" for c in fails)
        else:
            ids = "ids " + ", ".join(str(c.tactic) for c in fails)
        parts.append(
            f"{len(fails)} for the {MODE_LABELS[mode]} runner" + (f" ({ids})" if fails else "")
        )
    parts += _grouped_failures(version, cache, gemm)
    count = e.count if e.count is not None else 0
    return (
        f"the log counts {count}; the model predicts " + ", ".join(parts) + ". More than "
        "predicted are failures the source does not decide (classes D and G) or contradictions: "
        "FlashInfer prints each at debug level (FLASHINFER_LOGGING_LEVEL=debug)"
    )
