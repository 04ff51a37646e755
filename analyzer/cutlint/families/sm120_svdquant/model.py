"""FlashInfer's SVDQuant fused NVFP4 GEMM for SM120/SM121 (`INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_*`).

Read, not modeled: the macros' one argument (the tactic config) is typed into its tile, SwapAB and
scheduler; the kernel itself is FlashInfer's own LoRA-fused collective and kernel shell, whose
shared storage cutlint does not lay out yet (data/family.toml says why, and what the header
guarantees instead: an oversized tactic does not compile).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import Shape3

_CONFIG = re.compile(r"Tactic(\d+)x(\d+)x(\d+)(Swap)?(Sk|Static)?Config")
_SCHEDULER = {
    None: "PersistentScheduler",
    "Sk": "StreamKScheduler",
    "Static": "StaticPersistentScheduler",
}


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


@dataclass(frozen=True)
class Tactic:
    macro: str
    config: str
    tile: Shape3
    swap_ab: bool
    tile_scheduler: str


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    if name not in data["macros"]:
        return f"`{name}` is not one of {', '.join(data['macros'])}"
    if len(args) != 1:
        return f"`{name}` takes 1 argument; this call passes {len(args)}"
    m = _CONFIG.fullmatch(args[0])
    if m is None:
        return f"`{args[0]}` is not a config named {data['config_pattern']}"
    return Tactic(
        macro=name,
        config=args[0],
        tile=Shape3(m=int(m[1]), n=int(m[2]), k=int(m[3])),
        swap_ab=m[4] is not None,
        tile_scheduler=_SCHEDULER[m[5]],
    )


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "default"
) -> KernelNumbers | str:
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    reason: str = family_data()["not_modeled"]
    return f"{t.config} ({t.tile}, SwapAB {'on' if t.swap_ab else 'off'}, {t.tile_scheduler}): {reason}"
