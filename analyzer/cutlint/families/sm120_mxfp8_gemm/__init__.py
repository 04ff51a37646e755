"""Dense MXFP8 GEMM for SM120/SM121 (FlashInfer JIT module mxfp8_gemm_cutlass_sm120)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily
from cutlint.families.sm120_mxfp8_gemm import model


class Sm120Mxfp8Gemm(JitModuleFamily):
    name: ClassVar[str] = "sm120-mxfp8-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_mxfp8_gemm"
    model: ClassVar[ModuleType] = model


FAMILY = Sm120Mxfp8Gemm()

__all__ = ["FAMILY"]
