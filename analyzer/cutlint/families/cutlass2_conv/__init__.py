"""The CUTLASS 2.x implicit-GEMM convolutions as cutlass_library writes them
(`DefaultConv*<...>::Kernel`). See model.py and docs/families/cutlass2-conv.md."""

from cutlint.families.cutlass2_conv.family import FAMILY

__all__ = ["FAMILY"]
