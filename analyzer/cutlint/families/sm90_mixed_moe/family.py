"""The SM90 mixed-input grouped MoE family: claims the explicit instantiations
`template void sm90_generic_mixed_moe_gemm_kernelLauncher<...>(...);` and
`sm90_generic_mixed_moe_small_k_kernelLauncher<...>` (the single-warpgroup small-K kernel) and computes their
Resources with model.py (the folded-scale mixed-input builder's stage count and the compiler's
layout of GemmKernel::SharedStorage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.versions import outside_modeled_range
from cutlint.families import sm90_mixed_family as mixed
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable
from cutlint.families.groups import RuleGroup
from cutlint.families.sm90_mixed_moe import model
from cutlint.model.context import ModelContext
from cutlint.producers.flashinfer import sm90_mixed_dispatch
from cutlint.records import FormKind, Instantiation, Recipe, Resources

NAME = "sm90-mixed-moe"
SM = 90
"""`sm_90a` cubins load only on compute capability 9.0 (H100, H200)."""


class Sm90MixedMoeRecipe(Recipe):
    """An `sm90_generic_mixed_gemm_kernelLauncher<...>` instantiation, as written."""

    args: tuple[str, ...] = Field(
        description="the 9 or 10 template arguments, whitespace-normalized"
    )
    release: str | None = Field(
        default=None,
        description="the FlashInfer release that wrote it (its runner's tactic list)",
    )


class Sm90MixedMoe:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR, RuleGroup.MOE_RUNNER_OFFERS}
    )
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "mixed_moe.scale_mode": "the MixedInputScaleMode (kPostMma, kPreMmaE8M0)",
        "mixed_moe.schedule": "the mainloop's kernel schedule (Pingpong or Cooperative)",
        "mixed_moe.tactics": "the runner's tactic ids that dispatch this instantiation",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "mixed_moe.scale_mode": ("input.types",),
        "mixed_moe.schedule": ("input.schedule",),
        "mixed_moe.tactics": ("input.tile", "input.cluster", "input.schedule", "input.types"),
    }
    columns: ClassVar[tuple[str, ...]] = (
        "tile",
        "cluster",
        "types",
        "scales",
        "schedule",
        "tactic ids",
    )
    probe: ClassVar[str | None] = "sm90-mixed-launcher"
    """`cutlint verify` compiles its files with cutlint.verify.sm90_mixed_probe (cutlint.verify.probes)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.EXPLICIT_INSTANTIATION:
            return None
        name = inst.name.rsplit("::", 1)[-1]
        if name not in model.LAUNCHER_NAMES:
            return None
        args = tuple(" ".join(a.split()) for a in inst.args)
        expected = (11,) if name == model.SMALL_K_LAUNCHER_NAME else (9, 10)
        if len(args) not in expected:
            message = f"`{inst.name}` takes {expected[-1]} template arguments, found {len(args)}"
            return Unreadable(problems=(("CUT004", message),), reason=_UNREADABLE)
        release = ctx.flashinfer.version if ctx.flashinfer is not None else None
        return Sm90MixedMoeRecipe(family=NAME, args=args, release=release)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        st = model.storage_tactic(t)
        res = mixed.resources(model, st, ctx, model.tma_descriptors(st))
        offer = _offer(recipe)
        if offer is None:
            return res
        return res.model_copy(
            update={
                "dispatch_supported": offer.offered,
                "dispatch_source": sm90_mixed_dispatch.source(_recipe(recipe).release),
                "dispatch_reason": offer.reason,
            }
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        a = _recipe(recipe).args
        return {
            "mixed_moe.scale_mode": _scale_mode(a),
            "mixed_moe.schedule": mixed.short(a[6]),
            "mixed_moe.tactics": _tactic_ids(recipe),
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        a = _recipe(recipe).args
        return (
            mixed.dims(model, a[4]),
            mixed.dims(model, a[5]),
            f"{mixed.short(a[0])} x {mixed.short(a[1])} -> {mixed.short(a[2])}",
            _scale_mode(a),
            (mixed.short(a[6]).removeprefix("KernelTmaWarpSpecialized") or "basic")
            + (f" {mixed.short(a[10]).lower()}" if len(a) > 10 else ""),
            _tactic_ids(recipe),
        )

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        a = _recipe(recipe).args
        src = f"{model.LAUNCHER_NAME} template argument"
        return (
            InputField("input.tile", "CTA tile", mixed.dims(model, a[4]), f"{src} CTAShape"),
            InputField("input.cluster", "cluster", mixed.dims(model, a[5]), f"{src} ClusterShape"),
            InputField(
                "input.types",
                "types",
                f"{a[0]} x {a[1]}, out {a[2]}, {mixed.short(a[8])}, {_scale_mode(a)}",
                f"{src}s T, WeightType, GemmOutputType, QuantOp, ScaleMode",
            ),
            InputField(
                "input.schedule",
                "schedules",
                f"{mixed.short(a[6])} / {mixed.short(a[7])}",
                f"{src}s MainloopScheduleType, EpilogueScheduleType",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        a = _recipe(recipe).args
        return (
            f"mixed MoE {mixed.short(a[0])} x {mixed.short(a[1])} {mixed.dims(model, a[4])}, cluster {mixed.dims(model, a[5])}, "
            f"{_scale_mode(a)}, {mixed.short(a[6])}"
        )


FAMILY = Sm90MixedMoe()


def _offer(recipe: Recipe) -> sm90_mixed_dispatch.Offer | None:
    """The runner's answer for this instantiation (None: the release's list is not in the
    table, e.g. the 0.6.x launcher's)."""
    r = _recipe(recipe)
    legacy = r.release in model.family_data()["legacy"]["releases"]
    t = model.tactic_of(r.args, legacy)
    if isinstance(t, str) or r.release is None:
        return None
    a = r.args
    return sm90_mixed_dispatch.offer(
        r.release,
        t.tile,
        t.cluster,
        "pingpong" if t.pingpong else "cooperative",
        a[9] if len(a) > 9 else model.POST_MMA,
        mixed.short(a[10]) if len(a) > 10 else None,
    )


def _tactic_ids(recipe: Recipe) -> str:
    """`GEMM1 44, GEMM2 160` (the binding's tactic ids: GEMM2's list follows GEMM1's), `never`
    for an instantiation no tactic names, `-` where the release's list is not known."""
    offer = _offer(recipe)
    if offer is None:
        return "-"
    if not offer.offered:
        return "never"
    n = offer.tactics_per_gemm
    return "; ".join(f"GEMM1 {i}, GEMM2 {n + i}" for i in offer.gemm1_ids)


_UNREADABLE = "the launcher's template arguments could not be read (see the CUT0xx diagnostic)"


def _scale_mode(a: tuple[str, ...]) -> str:
    return mixed.short(a[9]) if len(a) > 9 else "kPostMma"


def _recipe(recipe: Recipe) -> Sm90MixedMoeRecipe:
    assert isinstance(recipe, Sm90MixedMoeRecipe), recipe
    return recipe


def _producer(ctx: ModelContext) -> str | None:
    """Who wrote the file, as its resolved context says (a TensorRT-LLM tree's version file or
    its installed package), when no FlashInfer release does."""
    build = ctx.build
    return build.producer.value if build is not None and build.producer is not None else None


def _fusion(arg: str) -> bool:
    """An EpilogueFusion value (`EpilogueFusion::NONE`, `...::FINALIZE`), not a tile shape."""
    return "Fusion" in arg or arg.rsplit("::", 1)[-1] in ("NONE", "FINALIZE")


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    """The model's tactic, or why this instantiation is outside what the model covers."""
    if ctx.arch.sm != SM:
        return CannotRun(f"an Sm90 mixed-input MoE kernel (sm_90a) does not run on {ctx.arch.name}")
    if why := outside_modeled_range(ctx.cutlass):
        return why
    release = ctx.flashinfer.version if ctx.flashinfer is not None else None
    data = model.family_data()
    legacy = release in data["legacy"]["releases"] or (
        release is None and _producer(ctx) in data["legacy"]["producers"]
    )
    if release is not None and not legacy and release not in data["launcher_releases"]:
        known = ", ".join([*data["legacy"]["releases"], *data["launcher_releases"]])
        return (
            f"FlashInfer {release}'s {model.LAUNCHER.rsplit('/', 1)[-1]} is not one the model "
            f"covers ({known})"
        )
    args = _recipe(recipe).args
    if len(args) == 10 and _fusion(args[4]):
        # TensorRT-LLM's newer launcher: `EpilogueFusion FUSION` after the epilogue tag (its
        # moe_gemm_tma_ws_mixed_input_launcher.inl; FINALIZE builds a scatter epilogue)
        return (
            f"epilogue fusion {args[4]}: TensorRT-LLM's launcher with an EpilogueFusion "
            "parameter is not one the model covers (its FINALIZE epilogue is another)"
        )
    t = model.tactic_of(args, legacy)
    if release is None and isinstance(t, str) and not isinstance(model.tactic_of(args, True), str):
        # A TensorRT-LLM build or a file outside FlashInfer's layout: the pair is one that only
        # the 0.6.x launcher builds (its generator spells the FP4 weight __nv_fp4_e2m1, 0.7.x's
        # SafeFP4), and which launcher the file includes is not known here.
        return (
            f"{args[0]} x {args[1]}: the pair of FlashInfer's 0.5.2-0.6.11.post2 launcher, whose "
            "recipe differs from 0.7.x's; the file's release is unknown (context unknown), so "
            "which launcher builds it is not decidable"
        )
    return t
