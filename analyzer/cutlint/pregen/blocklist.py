"""FlashInfer's tactics blocklist: which runtime tactic ids to block, and the JSON file.

The format is `flashinfer/tactics_blocklist.py` (FlashInfer >= 0.7): `TacticsBlocklist.save`
writes `{"_metadata": {...}, "invalid_tactics": {"<custom_op>::<RunnerClass>": [tactic, ...]}}`
and `load` skips the whole file unless every key of the running environment's
`_collect_metadata()` equals the saved value or the wildcard `"*"`.

The key names no dtype: the NVFP4 runner, the MXFP8 x MXFP4 runner and the CUTLASS 2.x grouped
runners (FP8 x FP8, f16, bf16) of the same op share it, with different tactic lists. So an id is
blocked only when every runner cutlint can number fails it; an id that one runner fails and another runs is
withheld and reported (a false positive costs throughput: flashinfer#2992).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cutlint.families.base import moe_args
from cutlint.pregen.records import (
    FAILING,
    BlockedTactic,
    GemmRunnerTactic,
    PregenOperation,
    RunnerTactic,
    WithheldTactic,
)
from cutlint.producers.flashinfer.releases import FlashInferRelease
from cutlint.producers.flashinfer.tactics import (
    QuantMode,
    TacticConfig,
    quant_mode_of,
    runner_tactics,
)
from cutlint.records import Verdict

METADATA_KEY = "_metadata"
"""flashinfer/autotuner/autotuner.py: _METADATA_KEY (read from the wheel when it has one)."""
METADATA_FIELDS = (
    "flashinfer_version", "cuda_version", "cublas_version", "cudnn_version",
    "cudnn_frontend_version", "cutlass_dsl_version", "gpu",
)  # fmt: skip
"""The keys of 0.7.2.post1's _collect_metadata(), for a wheel whose source cannot be read."""
WILDCARD = "*"
BLOCKING = (Verdict.FAILS_INITIALIZE, Verdict.FAILS_RUN, Verdict.UNREACHABLE)
"""Run-time failures: the autotuner skips these (or would fault on FAILS_RUN). FAILS_COMPILE
breaks the build instead."""


def _autotuner_source(root: Path) -> Path | None:
    for rel in ("flashinfer/autotuner/autotuner.py", "flashinfer/autotuner.py"):
        if (root / rel).is_file():
            return root / rel
    return None


def metadata_fields(root: Path) -> tuple[str, tuple[str, ...], bool]:
    """_METADATA_KEY and the keys `_collect_metadata()` fills, read from the wheel's autotuner
    with `ast` (importing it needs torch); the fallback when absent; and whether it was found."""
    path = _autotuner_source(root)
    if path is None:
        return METADATA_KEY, METADATA_FIELDS, False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    key, fields = METADATA_KEY, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_METADATA_KEY" for t in node.targets
        ):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                key = node.value.value
        if isinstance(node, ast.FunctionDef) and node.name == "_collect_metadata":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
                    if isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str):
                        fields.append(sub.slice.value)
    if not fields:
        return key, METADATA_FIELDS, False
    return key, tuple(dict.fromkeys(fields)), True


def has_loader(root: Path) -> bool:
    return (root / "flashinfer" / "tactics_blocklist.py").is_file()


def _same(c: TacticConfig, op: PregenOperation) -> bool:
    m = moe_args(op.result)
    return (
        m is not None and m.cta_tile == c.tile and m.fusion is c.fusion and m.swap_ab == c.swap_ab
    )


def _where(op: PregenOperation) -> str:
    span = op.result.instantiation.span
    return f"{Path(span.path).name}:{span.line}"


def _reason(op: PregenOperation) -> str:
    d = next((d for d in op.result.diagnostics if d.severity.value == "error"), None)
    d = d or (op.result.diagnostics[0] if op.result.diagnostics else None)
    return f"{d.rule} {d.name}: {d.message}" if d else op.result.verdict.value


def _status(
    c: TacticConfig,
    mode: QuantMode,
    ops: Sequence[PregenOperation],
    release: FlashInferRelease | None,
) -> tuple[str, str, tuple[str, ...]]:
    """("fails" | "runs" | "partly" | "unknown", reason, failing operations) for one config."""
    mine = [
        o
        for o in ops
        if (m := moe_args(o.result)) is not None and quant_mode_of(m) is mode and _same(c, o)
    ]
    if not mine:
        tile = (c.tile.m, c.tile.n, c.tile.k)
        if release is not None and tile not in release.sm120_tiles:
            return "fails", f"B: no generated kernel and no dispatch case for {c.tile}", ()
        return "unknown", "no generated operation for this config", ()
    failing = [o for o in mine if o.result.verdict in BLOCKING]
    where = tuple(_where(o) for o in failing)
    if failing and len(failing) == len(mine):
        return "fails", _reason(failing[0]), where
    if failing:
        return "partly", f"fails for {len(failing)} of its {len(mine)} output types only", where
    return "runs", "", ()


RUNNERS = ("nvfp4", "mxfp8_mxfp4", "fp8", "f16", "bf16")
"""The runners that share the fused-MoE ops' keys, as `--runner` names them: the SM120 TMA
warp-specialized NVFP4 and MXFP8 x MXFP4 runners, and MoeGemmRunner's CUTLASS 2.x grouped FP8 x
FP8, f16 and bf16 runners."""
_GROUPED_RUNNER = {"e4m3": "fp8", "f16": "f16", "bf16": "bf16"}


@dataclass(frozen=True)
class _Entry:
    """What one runner makes of one id."""

    runner: str
    """One of RUNNERS."""
    label: str
    config: str
    status: str
    reason: str
    where: tuple[str, ...] = ()


def select(
    version: str,
    ops: Sequence[PregenOperation],
    release: FlashInferRelease | None,
    grouped: Sequence[RunnerTactic] = (),
    runners: Collection[str] = RUNNERS,
    dense: Sequence[GemmRunnerTactic] = (),
) -> tuple[list[BlockedTactic], list[WithheldTactic]]:
    """The ids to block, and the failing ids withheld because another runner runs them.

    The runners: the SM120 TMA warp-specialized ones (NVFP4, MXFP8 x MXFP4; their configs are
    the generated operations) and `grouped`, MoeGemmRunner's CUTLASS 2.x grouped tactics; only
    those named in `runners` (a deployment that runs no FP8 x FP8 MoE need not keep its ids).
    `dense`: the dense SM120 GEMM runners' tactics, under keys of their own."""
    by_id: dict[tuple[str, int], list[_Entry]] = {}
    tables = {mode: runner_tactics(version, mode) for mode in QuantMode}
    if None in tables.values():
        # A release the fused-MoE tactic table lacks: none of the ops' ids (the grouped runners
        # share those keys, so theirs cannot be told safe either); the dense runners' keys are
        # their own.
        tables, grouped = {}, ()
    for mode, table in tables.items():
        assert table is not None
        if mode.value not in runners:
            continue
        for c in table.configs:
            key = f"{table.custom_ops[c.gemm - 1]}::{table.runner}"
            status, reason, where = _status(c, mode, ops, release)
            entry = _Entry(mode.value, mode.value, c.describe(), status, reason, where)
            by_id.setdefault((key, c.tactic), []).append(entry)
    for g in grouped:
        if _GROUPED_RUNNER[g.kind] in runners:
            entry = _Entry(_GROUPED_RUNNER[g.kind], g.runner, g.config, g.status, g.reason)
            by_id.setdefault((g.key, g.tactic), []).append(entry)
    for d in dense:
        # A dense runner's keys name its own class: no other runner shares them.
        status = "fails" if d.fails else "runs"
        for key in d.keys:
            entry = _Entry("dense", d.runner, d.config, status, f"{d.verdict}: {d.why}")
            for i in d.ids:
                by_id.setdefault((key, i), []).append(entry)
    blocked: list[BlockedTactic] = []
    withheld: list[WithheldTactic] = []
    for (key, tactic), entries in sorted(by_id.items()):
        if not any(e.status in ("fails", "partly") for e in entries):
            continue
        config = "; ".join(f"{e.config} ({e.label})" for e in entries)
        if all(e.status == "fails" for e in entries):
            reason = "; ".join(dict.fromkeys(e.reason for e in entries))
            where = tuple(w for e in entries for w in e.where)
            blocked.append(
                BlockedTactic(
                    key=key, tactic=tactic, config=config, reason=reason, operations=where
                )
            )
        else:
            why = "; ".join(
                f"{e.label}: {e.status}" + (f" ({e.reason})" if e.reason else "") for e in entries
            )
            withheld.append(WithheldTactic(key=key, tactic=tactic, config=config, reason=why))
    return blocked, withheld


def blocklist_json(
    blocked: Sequence[BlockedTactic],
    metadata_key: str,
    fields: Sequence[str],
    flashinfer_version: str,
    gpu: str | None,
    arch: str,
) -> str:
    """The file TacticsBlocklist.save would write for these tactics."""
    meta = {f: WILDCARD for f in fields}
    meta["flashinfer_version"] = flashinfer_version  # tactic ids are this release's order
    if gpu is not None:
        meta["gpu"] = gpu
    meta["generated_at"] = datetime.now(UTC).isoformat()
    meta["generator"] = f"cutlint pregen (static, no GPU probe) for {arch}"
    invalid: dict[str, list[int]] = {}
    for b in blocked:
        invalid.setdefault(b.key, []).append(b.tactic)
    out = {
        metadata_key: meta,
        "invalid_tactics": {k: sorted(v) for k, v in sorted(invalid.items())},
    }
    return json.dumps(out, indent=2) + "\n"


__all__ = ["FAILING", "RUNNERS", "blocklist_json", "has_loader", "metadata_fields", "select"]
