"""The SM90 fpA_intB mixed-input GEMM family: claims the explicit instantiations
`template void sm90_generic_mixed_gemm_kernelLauncher<...>(...);` and computes their Resources
with model.py (the interleaved mixed-input builder's stage count and the compiler's layout of
GemmKernel::SharedStorage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.versions import format_version, modeled_range
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.sm90_mixed_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources, SmemLayout

NAME = "sm90-mixed-gemm"
SM = 90
"""`sm_90a` cubins load only on compute capability 9.0 (H100, H200)."""


class Sm90MixedGemmRecipe(Recipe):
    """An `sm90_generic_mixed_gemm_kernelLauncher<...>` instantiation, as written."""

    args: tuple[str, ...] = Field(description="the 11 template arguments, whitespace-normalized")


def _short(arg: str) -> str:
    return arg.rsplit("::", 1)[-1]


class Sm90MixedGemm:
    name: ClassVar[str] = NAME
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
    probe: ClassVar[str | None] = None
    """Its probe (cutlint.verify.sm90_mixed_probe) is not behind `cutlint verify` yet."""

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
        return _resources(model.storage_tactic(t), ctx)

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        a = _recipe(recipe).args
        return {"mixed_gemm.quant_op": _short(a[5]), "mixed_gemm.schedule": _short(a[9])}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        a = _recipe(recipe).args
        return (
            _dims(a[7]),
            _dims(a[8]),
            f"{_short(a[0])} x {_short(a[1])} -> {_short(a[4])}",
            _short(a[5]),
            _short(a[9]).removeprefix("KernelTmaWarpSpecialized") or "basic",
        )

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        a = _recipe(recipe).args
        src = f"{model.LAUNCHER_NAME} template argument"
        return (
            InputField("input.tile", "CTA tile", _dims(a[7]), f"{src} CTAShape"),
            InputField("input.cluster", "cluster", _dims(a[8]), f"{src} ClusterShape"),
            InputField(
                "input.types",
                "types",
                f"{a[0]} x {a[1]}, scale {a[2]}, out {a[4]}, {_short(a[5])}",
                f"{src}s ActivationType, WeightType, ScaleZeroType, OutputType, QuantOp",
            ),
            InputField(
                "input.schedule",
                "schedules",
                f"{_short(a[9])} / {_short(a[10])}",
                f"{src}s MainloopScheduleType, EpilogueScheduleType",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        a = _recipe(recipe).args
        return (
            f"fpA_intB {_short(a[0])} x {_short(a[1])} {_dims(a[7])}, cluster {_dims(a[8])}, "
            f"{_short(a[5])}, {_short(a[9])}"
        )


FAMILY = Sm90MixedGemm()

_UNREADABLE = "the launcher's template arguments could not be read (see the CUT0xx diagnostic)"


def _dims(shape: str) -> str:
    s = model._shape(shape)
    return shape if s is None else str(s)


def _recipe(recipe: Recipe) -> Sm90MixedGemmRecipe:
    assert isinstance(recipe, Sm90MixedGemmRecipe), recipe
    return recipe


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    """The model's tactic, or why this instantiation is outside what the model covers."""
    if ctx.arch.sm != SM:
        return CannotRun(f"an Sm90 fpA_intB kernel (sm_90a) does not run on {ctx.arch.name}")
    first, last = modeled_range()
    if not first <= ctx.cutlass.version <= last:
        return (
            f"CUTLASS {ctx.cutlass.label} is outside the modeled range "
            f"{format_version(first)}-{format_version(last)}"
        )
    return model.tactic_of(_recipe(recipe).args)


_RESOURCES: dict[tuple[object, ...], Resources] = {}


def _resources(t: model.Tactic, ctx: ModelContext) -> Resources:
    """One Resources per storage tactic and context: the instantiations that differ only in
    their cluster share it (a cache holds each tile in up to four clusters)."""
    key = (t, ctx.key)
    if key not in _RESOURCES:
        _RESOURCES[key] = _compute(t, ctx)
    return _RESOURCES[key]


def _compute(t: model.Tactic, ctx: ModelContext) -> Resources:
    stage_count = model.stage_count(t)
    stages = stage_count.stages
    block = model.kernel_shared_storage(t, stages)
    return Resources(
        arch=ctx.arch,
        cutlass_version=ctx.cutlass.label,
        cutlass_version_origin=ctx.cutlass.origin,
        stage_count=stage_count,
        layout=SmemLayout(
            regions=regions(block),
            size=block.size,
            align=block.align,
            mainloop_size=model.mainloop_shared_storage(t, stages).size,
            epilogue_size=model.epilogue_shared_storage(t).size,
        ),
        max_threads_per_block=model.max_threads_per_block(t),
        tma_descriptors=0,
        registers=model.register_plan(t),
        epilogue=model.epilogue_tile(t),
    )
