"""The SM90 fpA_intB mixed-input GEMM family: `sm90_generic_mixed_gemm_kernelLauncher` (model.py,
family.py)."""

from cutlint.families.sm90_mixed_gemm.family import FAMILY

__all__ = ["FAMILY"]
