"""FP8 groupwise-scaled GEMM and grouped GEMM for SM120/SM121 (FlashInfer JIT module gemm_sm120)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily
from cutlint.families.sm120_fp8_groupwise import model


class Sm120Fp8Groupwise(JitModuleFamily):
    name: ClassVar[str] = "sm120-fp8-groupwise"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_fp8_groupwise"
    model: ClassVar[ModuleType] = model


FAMILY = Sm120Fp8Groupwise()

__all__ = ["FAMILY"]
