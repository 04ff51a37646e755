"""SM100 CUTLASS 3.x GEMMs defined by CollectiveBuilder alias chains (cutlass_library's SM100 kernel
files, hand-written CUTLASS code)."""

from cutlint.families.sm100_collective_builder.family import FAMILY

__all__ = ["FAMILY"]
