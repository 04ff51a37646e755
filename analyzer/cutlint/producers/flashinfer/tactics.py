"""FlashInfer's runtime tactic ids for the SM120 CUTLASS fused-MoE runner (data/tactics.toml).

The autotuner, its logs and its tactics blocklist name a tactic by its index in the runner's
profile list, not by its tile. This module rebuilds that list in FlashInfer's order, so that an id
can be read as a config ("tactic 15 = GEMM2 FINALIZE 256x128x128 SwapAB off") and a config can be
written as an id. The order is C++ code, not data a generator exposes; see the data file for the
functions it mirrors.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from cutlint.records import ElementType, Fusion, MoeGemmArgs, Shape3


class QuantMode(StrEnum):
    """The runner instances whose SM120 tactics are TMA warp-specialized block-scaled GEMMs."""

    NVFP4 = "nvfp4"
    """e2m1 activations and weights, ue4m3 scales."""
    MXFP8_MXFP4 = "mxfp8_mxfp4"
    """e4m3 activations, e2m1 weights, ue8m0 scales (the launcher's IsMXFPX)."""

    @property
    def act_bits(self) -> int:
        return 4 if self is QuantMode.NVFP4 else 8


def quant_mode_of(moe: MoeGemmArgs) -> QuantMode | None:
    if moe.act_type is ElementType.E2M1 and moe.weight_type is ElementType.E2M1 and not moe.mxfpx:
        return QuantMode.NVFP4
    if moe.act_type is ElementType.E4M3 and moe.weight_type is ElementType.E2M1 and moe.mxfpx:
        return QuantMode.MXFP8_MXFP4
    return None


@dataclass(frozen=True)
class TacticConfig:
    """One entry of the runner's profile list."""

    tactic: int
    """The id the autotuner logs and the blocklist stores (GEMM_1's ids first, then GEMM_2's)."""
    gemm: int
    """1 or 2 (trtllm::fused_moe::gemm1 / gemm2)."""
    tile: Shape3
    """In elements, as the instantiations write it."""
    fusion: Fusion
    swap_ab: bool

    def describe(self) -> str:
        swap = "on" if self.swap_ab else "off"
        return f"GEMM{self.gemm} {self.fusion.value} {self.tile} SwapAB {swap}"


@dataclass(frozen=True)
class RunnerTactics:
    version: str
    mode: QuantMode
    custom_ops: tuple[str, str]
    """The autotuned ops of GEMM_1 and GEMM_2."""
    runner: str
    """The runner's class name: the blocklist key is `<custom_op>::<runner>`."""
    configs: tuple[TacticConfig, ...]
    source: str

    def by_id(self, tactic: int) -> TacticConfig | None:
        return next((c for c in self.configs if c.tactic == tactic), None)

    def of_gemm(self, gemm: int) -> tuple[TacticConfig, ...]:
        return tuple(c for c in self.configs if c.gemm == gemm)


@cache
def _table() -> dict[str, Any]:
    with (
        resources.files("cutlint.producers.flashinfer")
        .joinpath("data", "tactics.toml")
        .open("rb") as f
    ):
        versions: dict[str, Any] = tomllib.load(f)["versions"]
    return versions


def known_versions() -> tuple[str, ...]:
    return tuple(_table())


def _gemm_configs(gemm: int, first: int, tiles: list[Shape3]) -> list[TacticConfig]:
    """getTmaWarpSpecializedConfigs: the tiles, (GEMM_2) their FINALIZE copies, then SwapAB copies."""
    fusions = [Fusion.NONE, Fusion.FINALIZE] if gemm == 2 else [Fusion.NONE]
    plain = [(t, f) for f in fusions for t in tiles]
    ordered = [(t, f, False) for t, f in plain] + [(t, f, True) for t, f in plain]
    return [
        TacticConfig(tactic=first + i, gemm=gemm, tile=t, fusion=f, swap_ab=s)
        for i, (t, f, s) in enumerate(ordered)
    ]


def runner_tactics(version: str, mode: QuantMode) -> RunnerTactics | None:
    """The profile list of FlashInfer `version`'s runner for `mode`, or None when not in the table."""
    entry = _table().get(version)
    if entry is None:
        return None
    # CtaShape<M>x<N>x<K>B: the dispatch converts K bytes to elements by the activation's bits
    # (moe_gemm_template_dispatch_tma_ws.h SHAPE_CASE: KtileBytes = K * 8 / sizeof_bits<T>).
    tiles = [Shape3(m=m, n=n, k=k * 8 // mode.act_bits) for m, n, k in entry[mode.value]]
    gemm1 = _gemm_configs(1, 0, tiles)
    gemm2 = _gemm_configs(2, len(gemm1), tiles)
    ops = entry["custom_ops"]
    return RunnerTactics(
        version=version,
        mode=mode,
        custom_ops=(ops[0], ops[1]),
        runner=entry["runner"],
        configs=tuple(gemm1 + gemm2),
        source=f"{entry['tiles_source']}; {entry['runner_source']}",
    )


def configs_for(moe: MoeGemmArgs, version: str) -> tuple[TacticConfig, ...]:
    """The runtime tactics an instantiation serves (one per GEMM it can run as), if known."""
    mode = quant_mode_of(moe)
    table = runner_tactics(version, mode) if mode else None
    if table is None or moe.fusion is None:
        return ()
    return tuple(
        c
        for c in table.configs
        if c.tile == moe.cta_tile and c.fusion is moe.fusion and c.swap_ab == moe.swap_ab
    )
