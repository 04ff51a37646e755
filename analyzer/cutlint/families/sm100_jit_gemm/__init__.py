"""Dense SM100/SM103 FP4 (with SM103 ultra), MXFP8, FP8, BF16 and SVDQuant NVFP4 GEMMs (FlashInfer JIT
modules fp4/mxfp8/fp8/bf16_gemm_cutlass, fp4_gemm_cutlass_sm103, nvfp4_svdquant_gemm_cutlass)."""

from collections.abc import Mapping
from types import ModuleType
from typing import ClassVar

from cutlint.cutlass import sm100_kernel
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.sm100_mainloop import SM100_SMEM_CAPACITY, TMEM_COLUMNS
from cutlint.families.base import CannotRun, Claim, Facts
from cutlint.families.groups import RuleGroup
from cutlint.families.jit_module_family import JitModuleFamily, KernelCallRecipe
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.families.sm100_jit_gemm import model
from cutlint.families.sm100_jit_gemm.model import Tactic
from cutlint.model.arch import builds
from cutlint.model.context import ModelContext
from cutlint.producers.trtllm import fp4_gemm as trtllm_fp4
from cutlint.records import Instantiation, Recipe, Resources

SM103_ONLY = 103
"""fp4_gemm_template_sm103.h: Sm103Only runs the kernel where flashinfer::arch::is_match_v<103>;
TensorRT-LLM's Sm103 struct is built only for it (model/data/arches.toml: only sm_103 builds the
CUTLASS arch tag Sm103)."""

ARCH = "ARCH_"
"""The arch-tag parameter of TensorRT-LLM's `INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER` (family.toml
[fixed_parameters], [trtllm_arch])."""


class Sm100JitGemm(JitModuleFamily):
    name: ClassVar[str] = "sm100-jit-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_COMPILE, RuleGroup.TMEM})
    package: ClassVar[str] = "cutlint.families.sm100_jit_gemm"
    model: ClassVar[ModuleType] = model
    runs_on: ClassVar[tuple[int, ...]] = builds("Sm100")
    """The arches whose targets build Sm100 kernels (model/data/arches.toml
    `builds_cutlass_arch_tags`: sm_100, sm_103, sm_110): gemm/gemm_base.py builds these modules
    on every SM10x/SM11x part (their nvcc flags take majors 10 and 11; the FP4 one is replaced by
    fp4_gemm_cutlass_sm103 on 10.3)."""
    built_for: ClassVar[str] = "an Sm100 kernel (sm_100a/103a/110a)"
    module_dirs: ClassVar[tuple[str, ...]] = ("gen_gemm_sm100", "gen_gemm_sm103")
    metrics: ClassVar[Mapping[str, str]] = {
        **JitModuleFamily.metrics,
        "umma.tmem.columns": "TMEM columns the accumulators (and scale factors) take",
        "umma.tmem.capacity": "TMEM columns per SM (the kernel allocates all of them)",
        "umma.smem.capacity": "sm100_smem_capacity_bytes, which the kernel shell static_asserts",
        "umma.smem.assert": "the header and line of that static_assert in the modeled CUTLASS",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        **JitModuleFamily.metric_inputs,
        "umma.tmem.columns": ("input.call",),
        "umma.tmem.capacity": ("input.arch",),
        "umma.smem.capacity": ("input.arch",),
        "umma.smem.assert": ("input.cutlass",),
    }

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        got = super().claim(inst, ctx)
        if isinstance(got, KernelCallRecipe) and inst.parameters and ARCH in inst.parameters:
            # TensorRT-LLM's header (its #define takes the arch first): the recipe by arch tag,
            # on the build's CUTLASS rather than a FlashInfer release's
            arch = inst.args[inst.parameters.index(ARCH)]
            modeled_as, args = model.trtllm_reading(got.name, arch, got.args)
            return got.model_copy(
                update={
                    "args": args,
                    "modeled_as": modeled_as,
                    "release": trtllm_fp4.release(ctx.cutlass.label),
                }
            )
        if isinstance(got, KernelCallRecipe):
            variant = model.variant_of(ctx.defines)
            if variant is not None:
                return got.model_copy(update={"variant": variant})
        return got

    def _evaluate(self, recipe: KernelCallRecipe, label: str) -> KernelNumbers | str:
        return model.evaluate(recipe.model_name, recipe.args, recipe.release, label, recipe.variant)

    def _tactic(self, recipe: KernelCallRecipe) -> Tactic | str:
        return model.tactic_of(recipe.model_name, recipe.args, None, recipe.variant)

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        res = super().resources(recipe, ctx)
        tmem = self._tmem(recipe)
        return res.model_copy(update={"tmem_columns": tmem})

    def _tmem(self, recipe: Recipe) -> int | None:
        assert isinstance(recipe, KernelCallRecipe)
        t = self._tactic(recipe)
        if isinstance(t, str):
            return None
        columns = model.tmem_columns(t)
        return columns.total if columns is not None else None

    def _ptr_array(self, recipe: Recipe) -> bool:
        assert isinstance(recipe, KernelCallRecipe)
        t = self._tactic(recipe)
        return not isinstance(t, str) and t.ptr_array

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        # fp4_gemm_template_sm103.h wraps the ultra kernel in Sm103Only: on any other device its
        # operator() prints "This kernel shall only run on SM103 devices." and traps
        if self._sm103(recipe) and ctx.arch.sm != SM103_ONLY:
            assert isinstance(recipe, KernelCallRecipe)
            why = (
                "TensorRT-LLM builds its Arch = Sm103 struct for sm_103 only (CUTLASS's SM103 "
                "block-scaled MMAs: CUTLASS_ARCH_MMA_SM103A_ENABLED)"
                if trtllm_fp4.cutlass_of(recipe.release) is not None
                else f"fp4_gemm_template_sm103.h's Sm103Only traps on {ctx.arch.name}"
            )
            return CannotRun(
                f"the SM103 ultra FP4 kernel (`{self.name}`) runs only on sm_103: {why}"
            )
        return super().covers(recipe, ctx)

    def _sm103(self, recipe: Recipe) -> bool:
        """The SM103 ultra kernel (the one-problem SM103 shell)."""
        assert isinstance(recipe, KernelCallRecipe)
        t = self._tactic(recipe)
        return not isinstance(t, str) and t.mainloop.kind is ml.UmmaKind.SM103_BLOCKSCALED

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {
            **super().facts(recipe, res),
            "umma.tmem.columns": res.tmem_columns or 0,
            "umma.tmem.capacity": TMEM_COLUMNS,
            "umma.smem.capacity": SM100_SMEM_CAPACITY,
            "umma.smem.assert": sm100_kernel.smem_static_assert(
                res.cutlass_version, self._sm103(recipe), ptr_array=self._ptr_array(recipe)
            ),
        }


FAMILY = Sm100JitGemm()

__all__ = ["FAMILY"]
