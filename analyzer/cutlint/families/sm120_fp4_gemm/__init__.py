"""Dense FP4 GEMM for SM120/SM121 (FlashInfer JIT module fp4_gemm_cutlass_sm120)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.base import Claim
from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily, KernelCallRecipe
from cutlint.families.sm120_fp4_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import Instantiation


class Sm120Fp4Gemm(JitModuleFamily):
    name: ClassVar[str] = "sm120-fp4-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_fp4_gemm"
    model: ClassVar[ModuleType] = model

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        got = super().claim(inst, ctx)
        if isinstance(got, KernelCallRecipe) and got.name in model.family_data()["defined_as"]:
            # TensorRT-LLM's macro: its header on the build's CUTLASS, not a FlashInfer release's
            return got.model_copy(update={"release": model.trtllm_release(ctx.cutlass.label)})
        return got


FAMILY = Sm120Fp4Gemm()

__all__ = ["FAMILY"]
