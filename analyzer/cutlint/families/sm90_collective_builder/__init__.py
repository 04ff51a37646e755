"""SM90 CUTLASS 3.x GEMMs defined by CollectiveBuilder `using` chains (cutlass_library's
`cutlass3x_sm90_*` kernels, hand-written CUTLASS code). See model.py and
docs/families/sm90-collective-builder.md."""

from cutlint.families.sm90_collective_builder.family import FAMILY

__all__ = ["FAMILY"]
