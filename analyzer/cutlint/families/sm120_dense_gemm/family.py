"""The SM120 dense F8F6F4 family: claims a TYPE_ALIAS `GemmUniversal` chain whose mainloop is
`CollectiveBuilder<Sm120|Sm121, OpClassTensorOp, ...>` with plain A/B layouts and a dense schedule
(sm120_mma_builder.inl's), read as the sm120-collective-builder family reads its chains; computes
its Resources from CUTLASS's shared parts (model.py). It comes before sm120-collective-builder in
claim order, which claims every other SM120 builder chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cutlint.families.base import CannotRun, Claim, Facts, InputField, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe, read
from cutlint.families.sm120_dense_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources, SmemLayout

TENSOROP = "cutlass::arch::OpClassTensorOp"


def _recipe(recipe: Recipe) -> CollectiveBuilderRecipe:
    assert isinstance(recipe, CollectiveBuilderRecipe)
    return recipe


def _short(text: str) -> str:
    return text.rsplit("::", 1)[-1].replace(" ", "")


class Sm120DenseGemm:
    name: ClassVar[str] = "sm120-dense-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_dense_gemm"
    metrics: ClassVar[Mapping[str, str]] = {
        "dense.pingpong": "whether the builder picked the pingpong kernel (IsCooperative false)",
        "dense.epilogue_tile": "the epilogue tile, MxN (EpilogueTileAuto: 64x32)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "dense.pingpong": ("input.mainloop",),
        "dense.epilogue_tile": ("input.epilogue",),
    }
    columns: ClassVar[tuple[str, ...]] = ("schedule", "tile", "epilogue")
    probe: ClassVar[str | None] = "cutlass-alias"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        r = read(inst, self.name)
        if r is None or r.opclass.replace(" ", "") != TENSOROP or r.scale_granularity:
            return None
        mainloop = inst.alias(inst.args[1])
        layouts = mainloop.args[3] + mainloop.args[6] if mainloop and mainloop.args else ""
        if "tuple<" in layouts.replace(" ", ""):
            return None  # (layout, scale layout) pairs: the blockwise builder's
        if model.schedule_of(r) not in model.data()["schedules"]:
            return None
        return r

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        r = _recipe(recipe)
        if ctx.arch.sm not in (120, 121):
            return CannotRun(f"an {_short(r.arch_tag)} kernel does not run on {ctx.arch.name}")
        p = model.plan(r, ctx.cutlass)
        return p if isinstance(p, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        p = model.plan(_recipe(recipe), ctx.cutlass)
        assert not isinstance(p, str), p  # the engine asks covers() first
        sc = model.stage_count(p)
        k = model.kernel_shared_storage(p, sc.stages)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=sc,
            layout=SmemLayout(
                regions=regions(k),
                size=k.size,
                align=k.align,
                mainloop_size=model.mainloop_shared_storage(p, sc.stages).size,
                epilogue_size=model.epilogue_shared_storage(p).size,
            ),
            max_threads_per_block=model.max_threads_per_block(p),
            registers=model.register_plan(p),
            epilogue=model.epilogue_shape(p),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        r = _recipe(recipe)
        e = res.epilogue
        return {
            "dense.pingpong": bool(model.data()["schedules"][model.schedule_of(r)]),
            "dense.epilogue_tile": f"{e.m}x{e.n}" if e else "?",
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        fusion = _short(r.fusion.split("<", 1)[0]) if r.fusion else "LinearCombination"
        return (_short(r.kernel_schedule), str(r.tile), f"{_short(r.element_d)} {fusion}")

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        return (
            InputField(
                "input.mainloop",
                "mainloop",
                f"{r.element_a} x {r.element_b}, {r.tile}, {r.stage_policy}, {_short(r.kernel_schedule)}",
                "the mainloop CollectiveBuilder's arguments (sm120_mma_builder.inl)",
            ),
            InputField(
                "input.epilogue",
                "epilogue",
                f"C {r.element_c}, D {r.element_d} {r.layout_d}, tile {r.epilogue_tile}, {r.fusion or 'default fusion'}",
                f"the epilogue CollectiveBuilder's arguments ({r.epilogue_alias})",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{_short(r.kernel_schedule)} {r.tile} -> {_short(r.element_d)}"


FAMILY = Sm120DenseGemm()
