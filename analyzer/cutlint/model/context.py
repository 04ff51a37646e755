"""What every family's model needs besides the recipe: the target arch, the CUTLASS version, and
the producer release that wrote the file (its dispatch lists, its macro's parameter list)."""

from __future__ import annotations

from dataclasses import dataclass

from cutlint.cutlass.versions import CutlassModel
from cutlint.producers.flashinfer.releases import FlashInferRelease
from cutlint.records import ArchLimits


@dataclass(frozen=True)
class ModelContext:
    arch: ArchLimits
    cutlass: CutlassModel
    flashinfer: FlashInferRelease | None = None

    @property
    def key(self) -> tuple[object, ...]:
        """What distinguishes two contexts for the per-run memo (engine.judge)."""
        release = self.flashinfer.version if self.flashinfer else None
        return (self.arch.name, self.cutlass.version, self.cutlass.origin, release)
