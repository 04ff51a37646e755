"""The CUTLASS 2.x grouped GEMM as cutlass_library writes it
(`DefaultGemmGrouped<...>::GemmKernel`). See model.py and docs/families/cutlass2-gemm-grouped.md."""

from cutlint.families.cutlass2_gemm_grouped.family import FAMILY

__all__ = ["FAMILY"]
