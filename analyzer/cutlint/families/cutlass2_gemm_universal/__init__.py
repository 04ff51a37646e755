"""The CUTLASS 2.x universal GEMM as cutlass_library writes it
(`DefaultGemmUniversal<...>::GemmKernel`). See model.py and docs/families/cutlass2-gemm-universal.md."""

from cutlint.families.cutlass2_gemm_universal.family import FAMILY

__all__ = ["FAMILY"]
