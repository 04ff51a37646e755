"""What a family of the JIT-rendered SM120 modules says about one kernel of one instantiation:
the stage count, the laid-out SharedStorage, threads. One record for every such family, so that
the runner tactics (runners.runner_tactics) and the verdicts read them alike."""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.layout import Block
from cutlint.records import StageCount

MIN_STAGES = 2
"""The SM120 mainloops `static_assert(DispatchPolicy::Stages >= 2)`
(cutlass/gemm/collective/sm120_blockscaled_mma_tma.hpp and siblings): fewer does not compile."""


@dataclass(frozen=True)
class KernelNumbers:
    family: str
    kernel: str
    """Which kernel of the instantiation: `default`, or e.g. `streamk`."""
    stage_count: StageCount
    layout: Block
    """GemmKernel::SharedStorage; `layout.size` is SharedStorageSize, what initialize() asks for."""
    max_threads_per_block: int

    @property
    def stages(self) -> int:
        return self.stage_count.stages

    @property
    def smem(self) -> int:
        return self.layout.size

    @property
    def compiles(self) -> bool:
        return self.stages >= MIN_STAGES
