"""The SM100 / SM103 TMA warp-specialized grouped MoE GEMM family: claims
`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM` with `Sm100` or `Sm103`, and computes its Resources
with model.py (the builder's stage count, the compiler's layout of GemmKernel::SharedStorage, the
tensor memory the accumulators take)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import ClassVar

from cutlint.cutlass import sm100_kernel
from cutlint.cutlass.sm100_mainloop import SM100_SMEM_CAPACITY, TMEM_COLUMNS
from cutlint.cutlass.versions import CutlassModel
from cutlint.families import moe_macro_family as macro
from cutlint.families.base import CannotRun, Claim, Facts, InputField, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm100_tma_ws_grouped import model as sm100
from cutlint.model.context import ModelContext
from cutlint.producers.flashinfer import sm100_dispatch
from cutlint.records import (
    Instantiation,
    MoeGemmArgs,
    Recipe,
    RegisterPlan,
    Resources,
    Shape3,
    SmemLayout,
    Variant,
)

PACKAGE = "cutlint.families.sm100_tma_ws_grouped"

METRICS: Mapping[str, str] = {
    **macro.METRICS,
    "umma.tmem.columns": "TMEM columns the accumulators and scale factors take",
    "umma.tmem.capacity": "TMEM columns per SM (the kernel allocates all of them)",
    "umma.two_sm": "a 2-SM MMA (CGA_M = 2)",
    "umma.smem.capacity": "sm100_smem_capacity_bytes, which the kernel shell static_asserts",
    "umma.smem.assert": "the header and line of that static_assert in the modeled CUTLASS",
}
METRIC_INPUTS: Mapping[str, tuple[str, ...]] = {
    **macro.METRIC_INPUTS,
    "umma.tmem.columns": ("input.tile", "input.types", "input.cluster"),
    "umma.tmem.capacity": ("input.arch",),
    "umma.two_sm": ("input.cluster",),
    "umma.smem.capacity": ("input.arch",),
    "umma.smem.assert": ("input.cutlass",),
}


class Sm100TmaWsGrouped:
    name: ClassVar[str] = "sm100-tma-ws-grouped"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_COMPILE, RuleGroup.TMEM, RuleGroup.TMA_WS_MOE_DISPATCH}
    )
    package: ClassVar[str] = PACKAGE
    metrics: ClassVar[Mapping[str, str]] = METRICS
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = METRIC_INPUTS
    columns: ClassVar[tuple[str, ...]] = macro.COLUMNS
    probe: ClassVar[str | None] = "tma-ws-moe-launcher"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        return macro.claim_macro(self.name, (100, 103), inst, ctx)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(macro.args_of(recipe), ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        a = macro.args_of(recipe)
        t = _tactic(a, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        stage_count = sm100.stage_count(t, ctx.cutlass)
        supported, reason = (
            sm100_dispatch.dispatched(
                ctx.flashinfer.version if ctx.flashinfer else None, a, ctx.arch.sm
            )
            if _dispatch_reaches(a, ctx)
            else (None, "")
        )
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=stage_count,
            layout=_smem_layout(t, stage_count.stages, ctx.cutlass),
            max_threads_per_block=sm100.max_threads_per_block(t, ctx.cutlass),
            tma_descriptors=sm100.tma_descriptors(t, ctx.cutlass),
            registers=_register_plan(t, ctx.cutlass),
            dispatch_supported=supported,
            dispatch_source=sm100_dispatch.source(
                ctx.flashinfer.version if ctx.flashinfer else None, ctx.arch.sm
            ),
            dispatch_reason=reason,
            tmem_columns=_tmem_total(t),
            variants=_variants(t, ctx),
            epilogue=sm100.epilogue_shape(t),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        a = macro.args_of(recipe)
        return {
            **macro.facts(recipe),
            "umma.tmem.columns": res.tmem_columns or 0,
            "umma.tmem.capacity": TMEM_COLUMNS,
            "umma.two_sm": a.cluster.m == 2,
            "umma.smem.capacity": SM100_SMEM_CAPACITY,
            "umma.smem.assert": sm100_kernel.smem_static_assert(res.cutlass_version, a.sm == 103),
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        return macro.describe(recipe)

    def kernel_tile(self, recipe: Recipe) -> tuple[int, int, int] | None:
        """The tile a built kernel's type names: the MMA tile (families/kernel_signature.py);
        None for the 14-parameter launcher of FlashInfer 0.5.x (no epilogue schedule), whose
        macro tile is the cluster's."""
        a = macro.args_of(recipe)
        if a.epilogue_schedule == "void":
            return None
        mma = sm100.mma_tile(a)
        return (mma.m, mma.n, mma.k)

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        return macro.inputs(recipe)

    def title(self, recipe: Recipe) -> str:
        a = macro.args_of(recipe)
        return f"{a.arch_tag} {macro.title(recipe)}, cluster {a.cluster}"


FAMILY = Sm100TmaWsGrouped()


def _dispatch_reaches(a: MoeGemmArgs, ctx: ModelContext) -> bool:
    """Whether the release's launcher dispatch reaches this kernel's arch tag on the target
    (releases.toml `dispatch`: `dispatchMoeGemmSelectTileShapeTmaWarpSpecialized`'s `sm_version`
    chain; a Jetson Thor's 110 takes the Sm100 switch, as 100, 101, 103 and 107 do), so that
    the SM100 dispatch rules judge it there and no other arch's rule does. True where the
    release is unknown: the rules' own table then decides."""
    release = ctx.flashinfer
    if release is None or not release.dispatch:
        return True
    tag = a.arch_tag.rsplit("::", 1)[-1]
    return any(d.arch_tag.rsplit("::", 1)[-1] == tag for d in release.dispatch_for(ctx.arch.sm))


def _tmem_total(t: sm100.Tactic) -> int | None:
    cols = sm100.tmem_columns(t)
    return cols.total if cols is not None else None


def _load_covered() -> tuple[str, ...]:
    with resources.files(PACKAGE).joinpath("data", "family.toml").open("rb") as f:
        return tuple(tomllib.load(f)["covered_cutlass"]["versions"])


COVERED_CUTLASS = _load_covered()
"""The CUTLASS releases whose SM100 headers the model is checked against (family.toml)."""


def _covered_cutlass(cutlass: CutlassModel) -> str | None:
    if cutlass.label in COVERED_CUTLASS:
        return None
    return (
        f"CUTLASS {cutlass.label}: the SM100 model is checked against the SM100 headers of "
        f"CUTLASS {' and '.join(COVERED_CUTLASS)} only (builders, kernel shell and epilogue "
        "change between releases)"
    )


def _tactic(a: MoeGemmArgs, ctx: ModelContext) -> sm100.Tactic | str:
    """The SM100 recipe's parts, or why this instantiation is outside what the model covers."""
    if a.sm == 103 and ctx.arch.sm != 103:
        return CannotRun(
            "an Sm103 kernel runs only on sm_103 (the SM103 module's compute_103a), "
            f"not on {ctx.arch.name}"
        )
    if a.arch_tag.rsplit("::", 1)[-1] not in ctx.arch.builds_cutlass_arch_tags:
        # The arch data says which CUTLASS arch tags' kernels a target builds: a Jetson Thor
        # (sm_110a) builds the Sm100 ones (FlashInfer's SM100 module is its fused-MoE module), an
        # sm_120 part none of them.
        return CannotRun(f"an {a.arch_tag} kernel does not run on {ctx.arch.name}")
    why = _covered_cutlass(ctx.cutlass)
    if why is not None:
        return why
    legacy = a.epilogue_schedule == "void" and _legacy_launcher(ctx)
    return sm100.tactic(a, ctx.cutlass, legacy)


def _load_legacy_releases() -> tuple[str, ...]:
    with resources.files(PACKAGE).joinpath("data", "family.toml").open("rb") as f:
        return tuple(tomllib.load(f)["legacy_launcher"]["releases"])


LEGACY_RELEASES = _load_legacy_releases()
"""The FlashInfer releases whose 14-parameter launcher the model builds (family.toml)."""


def _legacy_launcher(ctx: ModelContext) -> bool:
    """Whether the file's release is one whose launcher has no EpilogueSchedule parameter (the
    macro reader fills in `void` for it) and whose Sm100 recipe the model knows; elsewhere a
    `void` schedule stays not modeled."""
    return ctx.flashinfer is not None and ctx.flashinfer.version in LEGACY_RELEASES


def _smem_layout(t: sm100.Tactic, stages: int, cutlass: CutlassModel) -> SmemLayout:
    kernel = sm100.kernel_shared_storage(t, stages, cutlass)
    return SmemLayout(
        regions=regions(kernel),
        size=kernel.size,
        align=kernel.align,
        mainloop_size=sm100.mainloop_shared_storage(t, stages, cutlass).size,
        epilogue_size=sm100.epilogue_shared_storage(t).size,
    )


def _register_plan(t: sm100.Tactic, cutlass: CutlassModel) -> RegisterPlan | None:
    """The kernel shells' setmaxnreg split, where they make one (sm100_kernel.register_split)."""
    split = sm100_kernel.register_split(sm100.shell(t, cutlass))
    if split is None:
        return None
    other, epilogue, block, source = split
    return RegisterPlan(
        accumulator_registers=0,
        reconfigured=True,
        load_warpgroup_registers=other,
        mma_warpgroup_registers=epilogue,
        block_registers=block,
        source=f"{source}; the accumulators live in tensor memory, not registers",
    )


def _variant(label: str, t: sm100.Tactic, ctx: ModelContext) -> Variant:
    stages = sm100.stage_count(t, ctx.cutlass).stages
    size = sm100.kernel_shared_storage(t, stages, ctx.cutlass).size
    return Variant(
        label=label,
        tile=t.cta_tile,
        stages=stages,
        smem_bytes=size,
        fits=stages >= 1 and size <= SM100_SMEM_CAPACITY,
    )


def _variants(t: sm100.Tactic, ctx: ModelContext) -> tuple[Variant, ...]:
    """The same tactic one tile-K step smaller, and the other epilogue (TMA <-> no-smem)."""
    out: list[Variant] = []
    if t.cta_tile.k >= 64:
        # the 14-parameter launcher's macro tile is the cluster's: halve K of that one
        base = t.args.cta_tile if t.legacy else t.cta_tile
        smaller = sm100.with_tile(t, Shape3(m=base.m, n=base.n, k=base.k // 2))
        if smaller is not None:
            out.append(_variant(f"K = {t.cta_tile.k // 2}", smaller, ctx))
    other = sm100.with_other_epilogue(t)
    if other is not None:
        name = "TMA" if other.epilogue.kind.value == "tma" else "no-smem"
        out.append(_variant(f"{name} epilogue", other, ctx))
    return tuple(out)
