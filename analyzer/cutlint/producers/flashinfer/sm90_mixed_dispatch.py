"""Whether FlashInfer's MoE runner ever offers an SM90 mixed-input MoE GEMM instantiation as a
tactic, and under which tactic ids.

The runner's list is data (data/sm90_mixed_dispatch.toml, per release, with the header and lines it
was read from); this module rebuilds it the way `get_candidate_configs_sm90` and
`MoeGemmRunner::getTmaWarpSpecializedConfigs` do, and maps each config to the instantiation the
mixed-input dispatch (`sm90_dispatch_moe_mixed_dtype_gemm_to_cutlass`) calls for it. The launcher
instantiates both mainloop schedules for every tile (a run-time switch), so an instantiation that
no config names compiles and is never dispatched: a failure of it costs no user a tactic.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from cutlint.records import Shape3

COOPERATIVE = "COOPERATIVE"
PINGPONG = "PINGPONG"


@dataclass(frozen=True)
class Config:
    """One entry of the runner's tactic list, as the dispatch instantiates it."""

    index: int
    """Its position in the GEMM1 list (= the binding's tactic id for GEMM1)."""
    tile: tuple[int, int, int]
    cluster: tuple[int, int, int]
    schedule: str
    """COOPERATIVE, PINGPONG or a SINGLE_WARPGROUP_* schedule (the small-K launcher)."""


@dataclass(frozen=True)
class Rules:
    release: str
    source: str
    tiles: tuple[tuple[int, int, int], ...]
    coop: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    clusters: tuple[tuple[int, int, int], ...]
    small_k_tiles: tuple[tuple[int, int, int], ...]
    small_k_schedules: tuple[str, ...]
    small_k_scale_mode: str


def _triple(v: Any) -> tuple[int, int, int]:
    return int(v[0]), int(v[1]), int(v[2])


@cache
def rules() -> dict[str, Rules]:
    with (
        resources.files("cutlint.producers.flashinfer")
        .joinpath("data", "sm90_mixed_dispatch.toml")
        .open("rb") as f
    ):
        raw: dict[str, Any] = tomllib.load(f)["releases"]
    out: dict[str, Rules] = {}
    for release, d in raw.items():
        r = Rules(
            release=release,
            source=d["source"],
            tiles=tuple(_triple(t) for t in d["tiles"]),
            coop=tuple((int(m), tuple(ns), tuple(ks)) for m, ns, ks in d["coop"]),
            clusters=tuple(_triple(c) for c in d["clusters"]),
            small_k_tiles=tuple(_triple(t) for t in d["small_k_tiles"]),
            small_k_schedules=tuple(d["small_k_schedules"]),
            small_k_scale_mode=d["small_k_scale_mode"],
        )
        for name in (release, *d.get("same_as", ())):
            out[name] = r
    return out


def supports_coop(r: Rules, tile: tuple[int, int, int]) -> bool:
    """cutlass_heuristic.cpp sm90_supports_coop."""
    m, n, k = tile
    return any(m == cm and n in ns and k in ks for cm, ns, ks in r.coop)


def tactic_list(r: Rules, small_k: bool) -> tuple[Config, ...]:
    """The runner's GEMM1 tactic list (the GEMM2 list is the same)."""
    configs: list[Config] = []
    for tile in r.tiles:
        schedule = COOPERATIVE if supports_coop(r, tile) else PINGPONG
        for cluster in r.clusters:
            configs.append(Config(len(configs), tile, cluster, schedule))
    if small_k:
        for tile in r.small_k_tiles:
            for schedule in r.small_k_schedules:
                configs.append(Config(len(configs), tile, (1, 1, 1), schedule))
    return tuple(configs)


@dataclass(frozen=True)
class Offer:
    offered: bool
    reason: str
    """Why no config names it; or, when offered, which tactic ids do."""
    gemm1_ids: tuple[int, ...]
    tactics_per_gemm: int


def offer(
    release: str | None,
    tile: Shape3,
    cluster: Shape3,
    schedule: str,
    scale_mode: str,
    kernel_type: str | None,
) -> Offer | None:
    """Whether the runner's list names this instantiation (schedule: `cooperative`/`pingpong` of
    the launcher's MainloopScheduleType argument; kernel_type: the small-K launcher's
    SINGLE_WARPGROUP_* or None); None when the release's list is not in the table."""
    r = rules().get(release or "")
    if r is None:
        return None
    small_k = scale_mode == r.small_k_scale_mode
    listed = tactic_list(r, small_k)
    want_schedule = kernel_type if kernel_type is not None else schedule.upper()
    t = (tile.m, tile.n, tile.k)
    c = (cluster.m, cluster.n, cluster.k)
    ids = tuple(x.index for x in listed if (x.tile, x.cluster, x.schedule) == (t, c, want_schedule))
    if ids:
        return Offer(True, "", ids, len(listed))
    same_tile = [x for x in listed if x.tile == t]
    if not same_tile:
        why = f"no tactic of the runner's list has tile {tile}"
    elif not any(x.schedule == want_schedule for x in same_tile):
        paired = sorted({x.schedule.lower() for x in same_tile})
        why = (
            f"the runner's list pairs tile {tile} with {' and '.join(paired)} only "
            f"(sm90_supports_coop is {'true' if supports_coop(r, t) else 'false'} for it)"
        )
    else:
        clusters = sorted({"x".join(map(str, x.cluster)) for x in same_tile})
        why = f"the runner's list has tile {tile} with clusters {', '.join(clusters)} only"
    return Offer(False, why, (), len(listed))


def source(release: str | None) -> str:
    r = rules().get(release or "")
    return r.source if r else ""
