"""SM120 NVFP4 / MXFP4 dense GEMMs whose mainloop schedule the block-scaled CollectiveBuilder
picks from the element types (`KernelScheduleAuto`): vLLM's `cutlass_scaled_fp4_mm` for SM120 and
hand-written chains of the same shape."""

from cutlint.families.sm120_nvfp4_gemm.family import FAMILY

__all__ = ["FAMILY"]
