"""NVFP4 / MXFP4 groupwise grouped GEMM for SM120/SM121 (FlashInfer JIT module gemm_sm120)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily
from cutlint.families.sm120_fp4_group_gemm import model


class Sm120Fp4GroupGemm(JitModuleFamily):
    name: ClassVar[str] = "sm120-fp4-group-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_fp4_group_gemm"
    model: ClassVar[ModuleType] = model


FAMILY = Sm120Fp4GroupGemm()

__all__ = ["FAMILY"]
