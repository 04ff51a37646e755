"""The tactics FlashInfer's MoeGemmRunner offers its autotuner on SM8x and SM12x, with their ids.

No file names them: the runner builds its profile list from C++ lists (data/tactics.toml has each
one's source). This module rebuilds that list in the runner's order, so that an autotuner id reads
as a configuration ("tactic 5 = GEMM1 64x128x64 warp 64x32x64, 4 stages") and the configuration
can be given a shared-memory verdict (model.py):

    get_candidate_configs(sm)   the heuristic's tiles, tile-major, stages ascending
    getConfigs(sm)              getTmaWarpSpecializedConfigs ++ getAmpereConfigs
    mAllProfiles                getTactics(GEMM_1) ++ getTactics(GEMM_2): the autotuner's ids
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from cutlint.records import Shape3


class RunnerKind(StrEnum):
    """The MoeGemmRunner<T, WeightType, OutputType> instances with CUTLASS 2.x grouped tactics."""

    FP8 = "e4m3"
    """e4m3 x e4m3 (per-tensor FP8): `cutlass::arch::Sm89` kernels, also on SM120/SM121."""
    F16 = "f16"
    """half x half: `cutlass::arch::Sm80` kernels."""
    BF16 = "bf16"
    """bf16 x bf16: `cutlass::arch::Sm80` kernels."""

    @property
    def element_bytes(self) -> int:
        return 1 if self is RunnerKind.FP8 else 2


@cache
def table() -> dict[str, Any]:
    path = resources.files("cutlint.runners.sm8x_grouped").joinpath("data", "tactics.toml")
    with path.open("rb") as f:
        return tomllib.load(f)


_TILE = re.compile(r"CtaShape([0-9]+)x([0-9]+)x([0-9]+)_WarpShape([0-9]+)x([0-9]+)x([0-9]+)")


@dataclass(frozen=True)
class TileConfig:
    """A `CutlassTileConfig` enumerator and the shapes the dispatch switch gives it."""

    name: str
    threadblock: Shape3
    warp: Shape3

    @staticmethod
    def of(name: str) -> TileConfig:
        m = _TILE.fullmatch(name)
        if m is None:
            raise ValueError(f"not a CtaShape..._WarpShape... tile config: {name}")
        v = [int(x) for x in m.groups()]
        return TileConfig(name, Shape3(m=v[0], n=v[1], k=v[2]), Shape3(m=v[3], n=v[4], k=v[5]))


@dataclass(frozen=True)
class CandidateConfig:
    """`CutlassGemmConfig(tile_config, NO_SPLIT_K, 1, stages)` (sm_version 80)."""

    tile: TileConfig
    stages: int
    swap_ab: bool = False
    """Set on the copies getTmaWarpSpecializedConfigs appends below sm 90 (ignored by the
    Ampere dispatch: the same kernel runs)."""


@dataclass(frozen=True)
class RunnerTactic:
    tactic: int
    """The id the autotuner logs and a blocklist stores (GEMM_1's ids first, then GEMM_2's)."""
    gemm: int
    config: CandidateConfig
    arch_tag: int
    """80 or 89: the `cutlass::arch::SmXX` the kernel is built for."""
    source_list: str
    """Which list of getConfigs it comes from: `tma` (the Ampere list again, below sm 90),
    `tma-swap_ab`, or `ampere`."""

    def describe(self) -> str:
        c = self.config
        swap = " swap_ab" if c.swap_ab else ""
        return (
            f"GEMM{self.gemm} {c.tile.threadblock} warp {c.tile.warp} stages={c.stages}"
            f"{swap} (Sm{self.arch_tag})"
        )


def supported_sms(kind: RunnerKind) -> tuple[int, ...]:
    """The sms this model covers for a kind: where the runner uses these kernels."""
    a = table()["arch_tag"]
    return tuple(a["fp8_sms"] if kind is RunnerKind.FP8 else a["sixteen_bit_sms"])


def candidate_configs(sm: int, kind: RunnerKind) -> list[CandidateConfig]:
    """get_candidate_configs(sm, 1, GROUPED_GEMM [| FP8_ONLY]) for the runner's flags."""
    c = table()["candidates"]
    if kind is RunnerKind.FP8:
        names = c["fp8_grouped"] if sm in c["fp8_grouped_sms"] else []
    else:
        names = c["default"]
    low = int(c["min_stages_sm89"]) if sm == 89 else int(c["min_stages"])
    high = int(c["max_stages"])
    return [CandidateConfig(TileConfig.of(n), s) for n in names for s in range(low, high + 1)]


def runner_configs(sm: int, kind: RunnerKind) -> list[tuple[str, CandidateConfig]]:
    """MoeGemmRunner::getConfigs(sm, finalize): (which list, config) in order."""
    if sm not in supported_sms(kind):
        raise ValueError(f"{kind} runner on sm {sm} is outside this model")
    p = table()["profiles"]
    ampere = candidate_configs(sm, kind)
    tma: list[tuple[str, CandidateConfig]] = []
    if sm in p["tma_list_is_ampere_list_sms"]:
        tma = [("tma", c) for c in ampere]
        tma += [("tma-swap_ab", CandidateConfig(c.tile, c.stages, swap_ab=True)) for c in ampere]
    return [*tma, *(("ampere", c) for c in ampere)]


def arch_tag(kind: RunnerKind) -> int:
    a = table()["arch_tag"]
    return int(a["fp8"]) if kind is RunnerKind.FP8 else int(a["sixteen_bit"])


def runner_tactics(sm: int, kind: RunnerKind) -> list[RunnerTactic]:
    """The autotuner's profile list: GEMM_1's configs, then GEMM_2's, numbered from 0."""
    configs = runner_configs(sm, kind)
    dispatched = table()["dispatch"][
        "fp8_same_type" if kind is RunnerKind.FP8 else "same_type_16bit"
    ]
    missing = {c.tile.name for _, c in configs} - set(dispatched)
    if missing:
        raise ValueError(f"candidate tiles without a dispatch case: {sorted(missing)}")
    out: list[RunnerTactic] = []
    for gemm in (1, 2):
        for source, config in configs:
            out.append(RunnerTactic(len(out), gemm, config, arch_tag(kind), source))
    return out


__all__ = [
    "CandidateConfig",
    "RunnerKind",
    "RunnerTactic",
    "TileConfig",
    "arch_tag",
    "candidate_configs",
    "runner_configs",
    "runner_tactics",
    "supported_sms",
    "table",
]
