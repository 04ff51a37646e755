"""SM120 dense F8F6F4 GEMMs built by the CUTLASS 3.x CollectiveBuilder (`sm120_mma_builder.inl`):
vLLM's `cutlass_scaled_mm` SM120 FP8 kernels and hand-written chains of the same shape."""

from cutlint.families.sm120_dense_gemm.family import FAMILY

__all__ = ["FAMILY"]
