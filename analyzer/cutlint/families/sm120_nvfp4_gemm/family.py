"""The SM120 NVFP4 dense family: claims a TYPE_ALIAS `GemmUniversal` chain whose mainloop is
`CollectiveBuilder<Sm120|Sm121, OpClassBlockScaledTensorOp, ..., KernelScheduleAuto>` of one
problem (the block-scaled builder picks the instruction from the element types), read as the
sm120-collective-builder family reads its chains; computes its Resources from CUTLASS's shared
parts (model.py). It comes before sm120-collective-builder in claim order, which claims every
other SM120 builder chain (block-scaled with an explicit schedule among them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cutlint.families.base import CannotRun, Claim, Facts, InputField, regions
from cutlint.families.groups import RuleGroup
from cutlint.families.sm120_collective_builder.recipe import CollectiveBuilderRecipe, read
from cutlint.families.sm120_nvfp4_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import FormKind, Instantiation, Recipe, Resources, SmemLayout


def _recipe(recipe: Recipe) -> CollectiveBuilderRecipe:
    assert isinstance(recipe, CollectiveBuilderRecipe)
    return recipe


def _short(text: str) -> str:
    return text.rsplit("::", 1)[-1].replace(" ", "")


class Sm120Nvfp4Gemm:
    name: ClassVar[str] = "sm120-nvfp4-gemm"
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_INITIALIZE, RuleGroup.STAGE_FLOOR}
    )
    package: ClassVar[str] = "cutlint.families.sm120_nvfp4_gemm"
    metrics: ClassVar[Mapping[str, str]] = {
        "nvfp4.operands": "what select_instr picked for the element pair (NVFP4: MXF4_NVF4, "
        "4-bit data, ue4m3 scales every 16 elements)",
        "nvfp4.bias": "whether the fusion is LinCombPerColBias (a CTA row of bias in shared memory)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "nvfp4.operands": ("input.mainloop",),
        "nvfp4.bias": ("input.epilogue",),
    }
    columns: ClassVar[tuple[str, ...]] = ("schedule", "tile", "epilogue")
    probe: ClassVar[str | None] = "cutlass-alias"

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        r = read(inst, self.name)
        return r if r is not None and model.claims(r) else None

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
        operands = model.data()["operands"].get(r.element_a.replace(" ", ""), "?")
        return {
            "nvfp4.operands": operands,
            "nvfp4.bias": "LinCombPerColBias" in r.fusion,
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
                "the mainloop CollectiveBuilder's arguments (sm120_blockscaled_mma_builder.inl)",
            ),
            InputField(
                "input.epilogue",
                "epilogue",
                f"C {r.element_c}, D {r.element_d} {r.layout_d}, {r.fusion or 'default fusion'}",
                f"the epilogue CollectiveBuilder's arguments ({r.epilogue_alias})",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{_short(r.kernel_schedule)} {r.tile} -> {_short(r.element_d)}"


FAMILY = Sm120Nvfp4Gemm()
