"""FlashInfer's TGV GEMM on SM100/SM103 (JIT modules tgv_gemm_bf16, tgv_gemm_fp16)."""

from collections.abc import Mapping
from types import ModuleType
from typing import ClassVar

from cutlint.cutlass.sm100_mainloop import TMEM_COLUMNS
from cutlint.families.base import Facts
from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily, KernelCallRecipe
from cutlint.families.sm100_tgv_gemm import model
from cutlint.families.sm100_tgv_gemm.model import Tactic
from cutlint.model.context import ModelContext
from cutlint.records import Recipe, Resources


class Sm100TgvGemm(JitModuleFamily):
    name: ClassVar[str] = "sm100-tgv-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.TMEM}
    )
    package: ClassVar[str] = "cutlint.families.sm100_tgv_gemm"
    model: ClassVar[ModuleType] = model
    runs_on: ClassVar[tuple[int, ...]] = (100, 103)
    """gemm/gemm_base.py `_tgv_gemm_requirement`: `@supported_compute_capability([100, 103,
    107])`; the module is built with sm100a or sm100f flags (jit/gemm/core.py
    gen_tgv_gemm_sm10x_module), neither of which targets 11.0 or 12.x."""
    built_for: ClassVar[str] = "the TGV GEMM kernel (sm_100a/sm_100f)"
    module_dirs: ClassVar[tuple[str, ...]] = ("gen_tgv_gemm",)
    metrics: ClassVar[Mapping[str, str]] = {
        **JitModuleFamily.metrics,
        "umma.tmem.columns": "TMEM columns MMA_warp allocates for the accumulator (max(CTA_N, 32))",
        "umma.tmem.capacity": "TMEM columns per SM (MMA_warp static_asserts Acc_col below it)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        **JitModuleFamily.metric_inputs,
        "umma.tmem.columns": ("input.call",),
        "umma.tmem.capacity": ("input.arch",),
    }

    def _tactic(self, recipe: KernelCallRecipe) -> Tactic | str:
        return model.tactic_of(recipe.name, recipe.args)

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        res = super().resources(recipe, ctx)
        assert isinstance(recipe, KernelCallRecipe)
        t = self._tactic(recipe)
        tmem = None if isinstance(t, str) else model.tmem_columns(t)
        return res.model_copy(update={"tmem_columns": tmem})

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {
            **super().facts(recipe, res),
            "umma.tmem.columns": res.tmem_columns or 0,
            "umma.tmem.capacity": TMEM_COLUMNS,
        }


FAMILY = Sm100TgvGemm()

__all__ = ["FAMILY"]
