"""The SM90 fpA_intB mixed-input GEMM family: claims the explicit instantiations
`template void sm90_generic_mixed_gemm_kernelLauncher<...>(...);` and computes their Resources
with model.py (the interleaved mixed-input builder's stage count and the compiler's layout of
GemmKernel::SharedStorage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.versions import outside_modeled_range
from cutlint.families import sm90_mixed_family as mixed
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable
from cutlint.families.groups import RuleGroup
from cutlint.families.sm90_mixed_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources

NAME = "sm90-mixed-gemm"
SM = 90
"""`sm_90a` cubins load only on compute capability 9.0 (H100, H200)."""


class Sm90MixedGemmRecipe(Recipe):
    """An `sm90_generic_mixed_gemm_kernelLauncher<...>` instantiation, as written."""

    args: tuple[str, ...] = Field(description="the 11 template arguments, whitespace-normalized")


class Sm90MixedGemm:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "mixed_gemm.quant_op": "the WeightOnlyQuantOp (PER_COLUMN_SCALE_ONLY, FINEGRAINED_...)",
        "mixed_gemm.schedule": "the mainloop's kernel schedule (Pingpong or Cooperative)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "mixed_gemm.quant_op": ("input.types",),
        "mixed_gemm.schedule": ("input.schedule",),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "cluster", "types", "quant", "schedule")
    probe: ClassVar[str | None] = "sm90-mixed-launcher"
    """`cutlint verify` compiles its files with cutlint.verify.sm90_mixed_probe (cutlint.verify.probes)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.EXPLICIT_INSTANTIATION:
            return None
        if inst.name.rsplit("::", 1)[-1] != model.LAUNCHER_NAME:
            return None
        args = tuple(" ".join(a.split()) for a in inst.args)
        if len(args) != model.TEMPLATE_ARGS:
            message = (
                f"`{inst.name}` takes {model.TEMPLATE_ARGS} template arguments, found {len(args)}"
            )
            return Unreadable(problems=(("CUT004", message),), reason=_UNREADABLE)
        return Sm90MixedGemmRecipe(family=NAME, args=args)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        st = model.storage_tactic(t)
        return mixed.resources(model, st, ctx, 0)

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        a = _recipe(recipe).args
        return {"mixed_gemm.quant_op": mixed.short(a[5]), "mixed_gemm.schedule": mixed.short(a[9])}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        a = _recipe(recipe).args
        return (
            mixed.dims(model, a[7]),
            mixed.dims(model, a[8]),
            f"{mixed.short(a[0])} x {mixed.short(a[1])} -> {mixed.short(a[4])}",
            mixed.short(a[5]),
            mixed.short(a[9]).removeprefix("KernelTmaWarpSpecialized") or "basic",
        )

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        a = _recipe(recipe).args
        src = f"{model.LAUNCHER_NAME} template argument"
        return (
            InputField("input.tile", "CTA tile", mixed.dims(model, a[7]), f"{src} CTAShape"),
            InputField("input.cluster", "cluster", mixed.dims(model, a[8]), f"{src} ClusterShape"),
            InputField(
                "input.types",
                "types",
                f"{a[0]} x {a[1]}, scale {a[2]}, out {a[4]}, {mixed.short(a[5])}",
                f"{src}s ActivationType, WeightType, ScaleZeroType, OutputType, QuantOp",
            ),
            InputField(
                "input.schedule",
                "schedules",
                f"{mixed.short(a[9])} / {mixed.short(a[10])}",
                f"{src}s MainloopScheduleType, EpilogueScheduleType",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        a = _recipe(recipe).args
        return (
            f"fpA_intB {mixed.short(a[0])} x {mixed.short(a[1])} {mixed.dims(model, a[7])}, cluster {mixed.dims(model, a[8])}, "
            f"{mixed.short(a[5])}, {mixed.short(a[9])}"
        )


FAMILY = Sm90MixedGemm()

_UNREADABLE = "the launcher's template arguments could not be read (see the CUT0xx diagnostic)"


def _recipe(recipe: Recipe) -> Sm90MixedGemmRecipe:
    assert isinstance(recipe, Sm90MixedGemmRecipe), recipe
    return recipe


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    """The model's tactic, or why this instantiation is outside what the model covers."""
    if ctx.arch.sm != SM:
        return CannotRun(f"an Sm90 fpA_intB kernel (sm_90a) does not run on {ctx.arch.name}")
    if why := outside_modeled_range(ctx.cutlass):
        return why
    return model.tactic_of(_recipe(recipe).args)
