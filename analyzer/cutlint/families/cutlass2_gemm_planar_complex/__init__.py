"""The CUTLASS 2.x planar-complex GEMM as cutlass_library writes it
(`DefaultGemmPlanarComplexUniversal<...>::GemmKernel`). See model.py and
docs/families/cutlass2-gemm-planar-complex.md."""

from cutlint.families.cutlass2_gemm_planar_complex.family import FAMILY

__all__ = ["FAMILY"]
