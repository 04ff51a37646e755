"""What the nvcc probe hands back: one row per instantiation, or an error saying why not.

Kept apart from the probe's stages (launcher_patch, probe_build, probe_output) so
that each of them, and cache and result, can share these without importing one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


class ProbeError(RuntimeError):
    """The probe could not produce numbers; ``stderr_tail`` holds the compiler's last words."""

    def __init__(self, message: str, stderr_tail: str = "", rows: Sequence[ProbeRow] = ()) -> None:
        full = message if not stderr_tail else f"{message}\n--- stderr tail ---\n{stderr_tail}"
        super().__init__(full)
        self.stderr_tail = stderr_tail
        # Rows that did come out, when only some instantiations failed.
        self.rows: tuple[ProbeRow, ...] = tuple(rows)


@dataclass(frozen=True)
class ProbeRow:
    path: str
    line: int  # line of the INSTANTIATE_ macro name in the generated file
    args: tuple[str, ...]  # the 17 macro arguments as written (whitespace-normalized)
    stages: int
    mainloop_smem: int
    epilogue_smem: int
    kernel_smem: int
    kernel_align: int
    max_threads_per_block: int
    members: dict[str, int] = field(default_factory=dict)
    unmeasured: tuple[str, ...] = ()
    """Compared fields (cutlint.verify.result.COMPARED) this probe does not measure: their
    numbers above are 0 and say nothing; verify reports them as not measured, never as agreeing."""


__all__ = ["ProbeError", "ProbeRow"]
