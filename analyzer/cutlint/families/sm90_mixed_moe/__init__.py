"""The SM90 mixed-input grouped MoE family: `sm90_generic_mixed_moe_gemm_kernelLauncher` (model.py,
family.py)."""

from cutlint.families.sm90_mixed_moe.family import FAMILY

__all__ = ["FAMILY"]
