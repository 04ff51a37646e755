"""SM120 CUTLASS 3.x GEMMs defined by CollectiveBuilder chains (cutlass_library's generated
kernels and hand-written chains of the same shape)."""

from cutlint.families.sm120_collective_builder.family import FAMILY

__all__ = ["FAMILY"]
