"""The Ampere fused-MoE family: `sm80_generic_fused_moe_gemm_kernelLauncher` (model.py, family.py)."""

from cutlint.families.sm80_fused_moe.family import FAMILY

__all__ = ["FAMILY"]
