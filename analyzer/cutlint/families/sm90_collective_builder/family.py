"""The SM90 CollectiveBuilder GEMM family: claims `using` chains that define
`cutlass::gemm::kernel::GemmUniversal` with an SM90 mainloop CollectiveBuilder (cutlass_library's
CUTLASS 3.x SM90 kernels, hand-written CUTLASS code) and computes their Resources with model.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from cutlint.cutlass.versions import outside_modeled_range
from cutlint.families.base import (
    CannotRun,
    Claim,
    Facts,
    InputField,
    Unreadable,
    smem_layout,
)
from cutlint.families.groups import RuleGroup
from cutlint.families.sm90_collective_builder import model
from cutlint.families.sm90_collective_builder.recipe import (
    NAME,
    Sm90CollectiveBuilderRecipe,
    claim,
    tactic_of,
)
from cutlint.model.context import ModelContext
from cutlint.records import (
    EpilogueTile,
    FormKind,
    Instantiation,
    Recipe,
    RegisterPlan,
    Resources,
    SmemLayout,
    StageCount,
)

SM = 90
"""`sm_90a` cubins load only on compute capability 9.0 (H100, H200)."""


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


class Sm90CollectiveBuilder:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {
            RuleGroup.SMEM_AT_INITIALIZE,
            RuleGroup.STAGE_FLOOR,
            RuleGroup.SM90_TMA_BUILDER_ALIGNMENT,
        }
    )
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "cb.kernel_schedule": "the mainloop builder's KernelSchedule as written",
        "cb.epilogue_schedule": "the epilogue builder's EpilogueSchedule as written",
        "cb.stage_policy": "StageCountAutoCarveout / StageCount / StageCountAuto",
        "cb.tma_alignment": "the A/B alignment the TMA builder's static_assert rejects, in words "
        "(empty: aligned, or no TMA)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cb.kernel_schedule": ("input.schedule",),
        "cb.epilogue_schedule": ("input.epilogue",),
        "cb.stage_policy": ("input.stages",),
        "cb.tma_alignment": ("input.types",),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "cluster", "A x B -> D", "schedule", "epilogue")
    probe: ClassVar[str | None] = "cutlass-alias"
    """`cutlint verify` compiles its files with cutlint.verify.alias_probe."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        got = claim(inst)
        if isinstance(got, str):
            return Unreadable(problems=(("CUT005", got),), reason=got)
        return got

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        n = _numbers(t)
        r = _recipe(recipe)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=n.stage_count,
            layout=n.layout,
            max_threads_per_block=n.max_threads_per_block,
            tma_descriptors=n.tma_descriptors,
            tma=model.tma_plan(
                t,
                (r.mainloop[2], r.mainloop[5]),
                (_int(r.mainloop[4]), _int(r.mainloop[7])),
                "GroupProblemShape" in r.problem_shape,
            ),
            registers=n.registers,
            epilogue=n.epilogue,
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        r = _recipe(recipe)
        return {
            "cb.kernel_schedule": _short(r.mainloop[12]),
            "cb.epilogue_schedule": _short(r.epilogue[13]),
            "cb.stage_policy": _short(r.mainloop[11].split("<", 1)[0]),
            "cb.tma_alignment": t.tma_misaligned
            if isinstance(t := _tactic_of(r), model.Tactic)
            else "",
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        types = f"{_short(r.mainloop[2])} x {_short(r.mainloop[5])} -> {_short(r.epilogue[10])}"
        return (
            str(r.tile),
            str(r.cluster),
            types,
            _short(r.mainloop[12]),
            _short(r.epilogue[13]),
        )

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        ml = "mainloop CollectiveBuilder argument"
        ep = "epilogue CollectiveBuilder argument"
        return (
            InputField("input.tile", "CTA tile", str(r.tile), f"{ml} TileShape_MNK"),
            InputField("input.cluster", "cluster", str(r.cluster), f"{ml} ClusterShape_MNK"),
            InputField(
                "input.types",
                "A x B -> C, D",
                f"{r.mainloop[2]} x {r.mainloop[5]} -> {r.epilogue[7]}, {r.epilogue[10]}",
                f"{ml}s ElementA, ElementB; {ep}s ElementC, ElementD",
            ),
            InputField("input.stages", "stage policy", r.mainloop[11], f"{ml} StageCountType"),
            InputField("input.schedule", "kernel schedule", r.mainloop[12], f"{ml} KernelSchedule"),
            InputField("input.epilogue", "epilogue schedule", r.epilogue[13], f"{ep} Schedule"),
            InputField(
                "input.scheduler", "tile scheduler", r.tile_scheduler, "GemmUniversal argument 4"
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{_short(r.mainloop[12])} {r.tile}, {_short(r.epilogue[13])} epilogue"


FAMILY = Sm90CollectiveBuilder()


def _recipe(recipe: Recipe) -> Sm90CollectiveBuilderRecipe:
    assert isinstance(recipe, Sm90CollectiveBuilderRecipe), recipe
    return recipe


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    if ctx.arch.sm != SM:
        return CannotRun(f"an Sm90 kernel (sm_90a) does not run on {ctx.arch.name}")
    if why := outside_modeled_range(ctx.cutlass):
        return why
    return _tactic_of(_recipe(recipe))


_tactic_of = lru_cache(maxsize=1)(tactic_of)
"""`tactic_of`, its last answer kept: the engine asks covers(), resources() and facts() of one
recipe in turn (the recipe is frozen and compared by value: a complete key)."""


@dataclass(frozen=True)
class Numbers:
    """What a tactic lays out: the Resources fields that are neither the context's (arch,
    CUTLASS label and origin) nor the A/B tensor maps' (which the elements and alignments as
    written decide)."""

    stage_count: StageCount
    layout: SmemLayout
    max_threads_per_block: int
    tma_descriptors: int
    registers: RegisterPlan | None
    epilogue: EpilogueTile | None


TACTIC_MEMO = 4096
"""Distinct tactics kept: a cutlass_library SM90 build's kernels are far fewer distinct tactics
(they differ in names, and in layouts and alignments that the tactic reads as a few flags)."""


@lru_cache(maxsize=TACTIC_MEMO)
def _numbers(t: model.Tactic) -> Numbers:
    """The numbers of `t`, computed once per distinct tactic. The key is complete: the model's
    functions called here are given nothing but `t` (frozen, compared by value) and read no
    other state than the family's constant data."""
    stage_count = model.stage_count(t)
    stages = stage_count.stages
    block = model.kernel_shared_storage(t, stages)
    return Numbers(
        stage_count=stage_count,
        layout=smem_layout(
            block,
            model.mainloop_shared_storage(t, stages).size,
            model.epilogue_shared_storage(t).size,
        ),
        max_threads_per_block=model.max_threads_per_block(t),
        tma_descriptors=model.tma_descriptors(t),
        registers=model.register_plan(t),
        epilogue=model.epilogue_tile(t),
    )


def _int(arg: str) -> int | None:
    return int(arg) if arg.isascii() and arg.strip().isdigit() else None
