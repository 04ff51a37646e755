"""FlashInfer releases cutlint knows: the CUTLASS each vendors and what its launchers dispatch.

The table is data (data/releases.toml), each entry with its source in the release's wheel.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from cutlint.cutlass.versions import Version, parse_version


@dataclass(frozen=True)
class FlashInferRelease:
    version: str
    cutlass: Version
    sm120_tiles: frozenset[tuple[int, int, int]]
    sm120_tiles_source: str


@cache
def flashinfer_releases() -> dict[str, FlashInferRelease]:
    data = _load_releases()["versions"]
    return {
        v: FlashInferRelease(
            v,
            parse_version(d["cutlass"]),
            frozenset((t[0], t[1], t[2]) for t in d["sm120_tiles"]),
            d["sm120_tiles_source"],
        )
        for v, d in data.items()
    }


def _load_releases() -> dict[str, Any]:
    with (
        resources.files("cutlint.producers.flashinfer")
        .joinpath("data", "releases.toml")
        .open("rb") as f
    ):
        return tomllib.load(f)
