"""GPU names (`rtx-5090`, `h200`, `dgx-spark`) as compute capabilities (data/gpus.toml)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from cutlint import tables


@cache
def gpus() -> dict[str, tuple[int, str]]:
    """name -> (compute capability XY, the part's name)."""
    data = tables.load(Path(__file__).parent / "data" / "gpus.toml")
    return {name: (int(d["sm"]), str(d["part"])) for name, d in data["gpus"].items()}


def gpu_sm(name: str) -> int | None:
    """`RTX 5090`, `rtx-5090`, `rtx_5090` -> 120; None when the table has no such GPU."""
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    hit = gpus().get(key) or gpus().get(key.removeprefix("nvidia-"))
    return hit[0] if hit else None
