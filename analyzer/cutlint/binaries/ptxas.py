"""ptxas's own report (`-Xptxas -v`): per kernel registers, stack frame, spills, shared memory.

The lines it prints per entry function (nvcc 12.x/13.0):

    ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90a'
    ptxas info    : Function properties for _Z5heavyPfPKfi
        256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 148 registers, used 1 barriers, 256 bytes cumulative stack size, 4096 bytes smem

Spill stores and loads are known only here: a cubin records the frame, not what of it is spill."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


@dataclass(frozen=True, slots=True)
class PtxasKernel:
    name: str
    target: str
    registers: int
    stack_frame: int
    spill_stores: int
    spill_loads: int
    static_smem: int


def parse(text: str) -> list[PtxasKernel]:
    """Every entry function ptxas reports, in order."""
    out: list[PtxasKernel] = []
    name, target = "", ""
    frame = (0, 0, 0)
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            name, target, frame = m[1], m[2], (0, 0, 0)
        elif (m := _PROPS.search(line)) and m[1] != name:
            name = ""  # a device function's properties, not the entry's
        elif m := _FRAME.search(line):
            frame = (int(m[1]), int(m[2]), int(m[3]))
        elif name and (m := _USED.search(line)):
            smem = _SMEM.search(line)
            out.append(
                PtxasKernel(
                    name, target, int(m[1]), *frame, static_smem=int(smem[1]) if smem else 0
                )
            )
            name = ""
    return out
