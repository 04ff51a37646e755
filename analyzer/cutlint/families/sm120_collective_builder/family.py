"""The SM120 CollectiveBuilder family: claims a TYPE_ALIAS `GemmUniversal` whose mainloop alias is
`CollectiveBuilder<cutlass::arch::Sm120|Sm121, ...>::CollectiveOp` (recipe.py), and computes its
Resources from CUTLASS's shared parts (model.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cutlint.families.base import CannotRun, Claim, Facts, InputField, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm120_collective_builder import model
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe, read
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources, SmemLayout


def _recipe(recipe: Recipe) -> CollectiveBuilderRecipe:
    assert isinstance(recipe, CollectiveBuilderRecipe)
    return recipe


def _short(text: str) -> str:
    return text.rsplit("::", 1)[-1].replace(" ", "")


class Sm120CollectiveBuilder:
    name: ClassVar[str] = "sm120-collective-builder"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {
            RuleGroup.SMEM_AT_INITIALIZE,
            RuleGroup.STAGE_FLOOR,
            RuleGroup.SM120_BUILDER_ASSERTS,
            RuleGroup.SM1XX_TMA_BUILDER_ALIGNMENT,
        }
    )
    package: ClassVar[str] = "cutlint.families.sm120_collective_builder"
    metrics: ClassVar[Mapping[str, str]] = {
        "cb.kind": "the mainloop: `block-scaled`, `blockwise` or `sparse` (`?` otherwise)",
        "cb.pingpong": "whether the kernel schedule is a pingpong one",
        "cb.grouped": "whether the problem shape is GroupProblemShape (ptr-array kernel)",
        "cb.static_assert": "the SM120 builder static_assert the chain fails, with its header "
        "(empty when none): the file does not compile",
        "cb.tma_alignment": "the A/B alignment no TMA builder specialization takes, in words "
        "(empty: aligned, or not decided)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cb.kind": ("input.mainloop",),
        "cb.pingpong": ("input.mainloop",),
        "cb.grouped": ("input.kernel",),
        "cb.static_assert": ("input.mainloop", "input.epilogue"),
        "cb.tma_alignment": ("input.mainloop",),
    }
    columns: ClassVar[tuple[str, ...]] = ("schedule", "tile", "C/D")
    probe: ClassVar[str | None] = "cutlass-alias"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        return read(inst, self.name)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        r = _recipe(recipe)
        if ctx.arch.sm not in (120, 121):
            return CannotRun(f"an {_short(r.arch_tag)} kernel does not run on {ctx.arch.name}")
        p = model.plan(r, ctx.cutlass)
        return p if isinstance(p, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        p = model.plan(_recipe(recipe), ctx.cutlass)
        assert not isinstance(p, str), p  # the engine asks covers() first
        sc = model.stage_count(p, ctx.cutlass)
        k = model.kernel_shared_storage(p, sc.stages, ctx.cutlass)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            tma=model.tma_plan(_recipe(recipe)),
            stage_count=sc,
            layout=SmemLayout(
                regions=regions(k),
                size=k.size,
                align=k.align,
                mainloop_size=model.mainloop_shared_storage(p, sc.stages, ctx.cutlass).size,
                epilogue_size=model.epilogue_shared_storage(p).size,
            ),
            max_threads_per_block=model.max_threads_per_block(p),
            registers=model.register_plan(p, ctx.cutlass),
            epilogue=model.epilogue_shape(p),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        r = _recipe(recipe)
        schedule = _short(r.kernel_schedule)
        kind = (
            "sparse"
            if "Sparse" in r.opclass
            else "block-scaled"
            if "BlockScaled" in r.opclass
            else "blockwise"
            if "Blockwise" in schedule
            else "?"
        )
        failed = model.static_assert_failure(r)
        return {
            "cb.static_assert": failed,
            "cb.tma_alignment": model.tma_misaligned(r),
            "cb.kind": kind,
            "cb.pingpong": "Pingpong" in schedule,
            "cb.grouped": "GroupProblemShape" in r.problem_shape,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (
            _short(r.kernel_schedule),
            str(r.tile),
            f"{_short(r.element_c)}/{_short(r.element_d)}",
        )

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        return (
            InputField(
                "input.kernel",
                "kernel",
                f"{r.kernel} ({r.problem_shape}, {r.tile_scheduler})",
                "GemmUniversal's arguments",
            ),
            InputField(
                "input.mainloop",
                "mainloop",
                f"{_short(r.opclass)} {r.element_a} x {r.element_b}, {r.tile}, {r.stage_policy}, {_short(r.kernel_schedule)}",
                "the mainloop CollectiveBuilder's arguments",
            ),
            InputField(
                "input.epilogue",
                "epilogue",
                f"C {r.element_c} {r.layout_c}, D {r.element_d} {r.layout_d}, {r.fusion or 'default fusion'}",
                f"the epilogue CollectiveBuilder's arguments ({r.epilogue_alias})",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{_short(r.kernel_schedule)} {r.tile} {_short(r.element_c)}/{_short(r.element_d)}"


FAMILY = Sm120CollectiveBuilder()
