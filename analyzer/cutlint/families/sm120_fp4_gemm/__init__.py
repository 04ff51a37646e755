"""Dense FP4 GEMM for SM120/SM121 (FlashInfer JIT module fp4_gemm_cutlass_sm120)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily
from cutlint.families.sm120_fp4_gemm import model


class Sm120Fp4Gemm(JitModuleFamily):
    name: ClassVar[str] = "sm120-fp4-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_fp4_gemm"
    model: ClassVar[ModuleType] = model


FAMILY = Sm120Fp4Gemm()

__all__ = ["FAMILY"]
