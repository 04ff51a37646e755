"""FlashInfer's SM90 segment GEMM (JIT module gemm_sm90: `CutlassSegmentGEMMSM90Run`)."""

from types import ModuleType
from typing import ClassVar

from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily, KernelCallRecipe
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.families.sm90_segment_gemm import model


class Sm90SegmentGemm(JitModuleFamily):
    name: ClassVar[str] = "sm90-segment-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = model.PACKAGE
    model: ClassVar[ModuleType] = model
    runs_on: ClassVar[tuple[int, ...]] = (90,)
    """gemm/gemm_base.py get_gemm_sm90_module: built with sm90a_nvcc_flags (sm_90a cubins load
    only on 9.0: H100, H200)."""
    built_for: ClassVar[str] = "an Sm90 kernel (sm_90a)"
    module_dirs: ClassVar[tuple[str, ...]] = ("gen_gemm_sm90",)

    def _compute_kernels(self, recipe: KernelCallRecipe) -> tuple[KernelNumbers, ...] | str:
        # DISPATCH_WEIGHT_LAYOUT builds two kernels for a 16-bit input, one for FP8
        t = model.tactic_of(recipe.name, recipe.args)
        if isinstance(t, str):
            return t
        out: list[KernelNumbers] = []
        for label in model.kernels_of(t):
            got = self._evaluate(recipe, label)
            if isinstance(got, str):
                return got
            out.append(got)
        return tuple(out)


FAMILY = Sm90SegmentGemm()

__all__ = ["FAMILY"]
