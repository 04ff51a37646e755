"""The CUTLASS 2.x structured-sparse GEMM as cutlass_library writes it
(`device::SparseGemm<...>`). See model.py and docs/families/cutlass2-sparse-gemm.md."""

from cutlint.families.cutlass2_sparse_gemm.family import FAMILY

__all__ = ["FAMILY"]
