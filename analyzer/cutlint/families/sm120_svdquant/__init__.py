"""SVDQuant fused NVFP4 GEMM for SM120/SM121 (FlashInfer JIT module
nvfp4_svdquant_gemm_cutlass_sm120)."""

from collections.abc import Mapping
from types import ModuleType
from typing import ClassVar

from cutlint.families.base import Facts
from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily, KernelCallRecipe
from cutlint.families.sm120_svdquant import model
from cutlint.records import Recipe, Resources


class Sm120Svdquant(JitModuleFamily):
    name: ClassVar[str] = "sm120-svdquant"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SVDQUANT_CONFIG_ASSERTS, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_svdquant"
    model: ClassVar[ModuleType] = model
    metrics: ClassVar[Mapping[str, str]] = {
        **JitModuleFamily.metrics,
        "svdquant.static_assert": "the header's static_assert that rejects this config (where, "
        "why), empty when none does",
        "svdquant.smem.capacity": "sm120_smem_capacity_bytes, which the header static_asserts "
        "SharedStorageSize against",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        **JitModuleFamily.metric_inputs,
        "svdquant.static_assert": ("input.call",),
        "svdquant.smem.capacity": ("input.call",),
    }

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        assert isinstance(recipe, KernelCallRecipe)
        t = model.tactic_of(recipe.name, recipe.args)
        assert not isinstance(t, str), t
        return {
            **super().facts(recipe, res),
            "svdquant.static_assert": model.static_assert(t, res.layout.size),
            "svdquant.smem.capacity": model.capacity(),
        }


FAMILY = Sm120Svdquant()

__all__ = ["FAMILY"]
