"""The CUTLASS 2.x grouped GEMM family: claims the `using` chains that define
`cutlass::gemm::kernel::DefaultGemmGrouped<...>::GemmKernel` (cutlass_library's gemm/80
*gemm_grouped* kernel files), and computes their Resources with model.py (GemmGrouped's
SharedStorage: cutlass2-gemm-universal's union and the problem visitor's storage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.cutlass2_family import element_types, fewer_stages, fixed_stage_count
from cutlint.families.cutlass2_gemm_grouped import model
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.groups import RuleGroup
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    Shape3,
    SmemLayout,
    StageCount,
    Variant,
)

NAME = "cutlass2-gemm-grouped"
_UNREADABLE = (
    "DefaultGemmGrouped's template arguments could not be read (see the CUT0xx diagnostic)"
)


class Cutlass2GemmGroupedRecipe(Recipe):
    """A `DefaultGemmGrouped<...>::GemmKernel` alias, typed."""

    kernel: str = Field(description="the alias that defines the kernel (`<operation>_base`)")
    args: tuple[str, ...] = Field(description="the 21 template arguments as written")
    element_a: str
    element_c: str
    element_accumulator: str
    opclass: str = Field(description="OperatorClass: OpClassTensorOp or OpClassSimt")
    arch_tag: int = Field(description="ArchTag SmNN")
    threadblock: Shape3
    warp: Shape3
    stages: int = Field(description="Stages (template argument 18)")
    schedule: str = Field(description="GroupScheduleMode (template argument 19)")


class Cutlass2GemmGrouped:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_INITIALIZE})
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "cutlass2.opclass": "OperatorClass: TensorOp or Simt",
        "cutlass2.arch_tag": "the kernel's ArchTag (80 for Sm80)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cutlass2.opclass": ("input.opclass",),
        "cutlass2.arch_tag": ("input.opclass",),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "schedule")
    probe: ClassVar[str | None] = "cutlass-alias"
    """cutlint.verify.alias_run.ALIAS_PROBE: `cutlint verify` compiles the kernel files with
    cutlint.verify.alias_probe (the truth file: tests/tools/make_nvcc_alias_truth.py)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS or inst.name != model.TEMPLATE:
            return None
        if not inst.chain or inst.chain[0].member != "GemmKernel":
            return None
        args = chain_arguments(inst)
        try:
            k, schedule = model.kernel_of(args)
        except universal.UnreadableType as e:
            code = "CUT004" if len(args) != model.ARGUMENT_COUNT else "CUT005"
            return Unreadable(problems=((code, f"`{model.TEMPLATE}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2GemmGroupedRecipe(
            family=NAME,
            kernel=inst.chain[0].name,
            args=args,
            element_a=k.element_a,
            element_c=k.element_c,
            element_accumulator=k.element_accumulator,
            opclass=k.opclass,
            arch_tag=k.arch_tag,
            threadblock=k.threadblock,
            warp=k.warp,
            stages=k.stages,
            schedule=schedule,
        )

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        k, schedule = _kernel(recipe)
        if ctx.arch.sm < k.arch_tag:
            return CannotRun(f"an Sm{k.arch_tag} kernel does not run on {ctx.arch.name}")
        return model.scope_reason(k, schedule)

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        k, _ = _kernel(recipe)
        block = model.kernel_shared_storage(k)
        mma = universal.mma_shared_storage(k)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=_stage_count(k, mma, ctx),
            layout=SmemLayout(
                regions=regions(block),
                size=block.size,
                align=block.align,
                mainloop_size=mma.size,
                epilogue_size=universal.epilogue_shared_storage(k).size,
            ),
            max_threads_per_block=universal.threads_per_block(k),
            tma_descriptors=0,
            variants=_variants(k, ctx),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        k, _ = _kernel(recipe)
        return {
            "cutlass2.opclass": k.opclass.rsplit("::", 1)[-1].removeprefix("OpClass"),
            "cutlass2.arch_tag": k.arch_tag,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), _types(r), r.schedule.rsplit("::", 1)[-1])

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        src = f"{model.TEMPLATE} template argument"
        return (
            InputField("input.tile", "threadblock", str(r.threadblock), f"{src} ThreadblockShape"),
            InputField("input.warp", "warp", str(r.warp), f"{src} WarpShape"),
            InputField("input.stages", "stages", str(r.stages), f"{src} Stages"),
            InputField(
                "input.types",
                "elements",
                _types(r),
                f"{src}s ElementA, ElementB, ElementC, ElementAccumulator",
            ),
            InputField(
                "input.opclass",
                "operator class",
                f"{r.opclass} Sm{r.arch_tag}",
                f"{src}s OperatorClass, ArchTag",
            ),
            InputField("input.epilogue", "epilogue", r.args[16], f"{src} EpilogueOutputOp"),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.kernel}: {r.threadblock}, {r.stages} stages, {_types(r)}"


FAMILY = Cutlass2GemmGrouped()


def _recipe(recipe: Recipe) -> Cutlass2GemmGroupedRecipe:
    assert isinstance(recipe, Cutlass2GemmGroupedRecipe), recipe
    return recipe


def _kernel(recipe: Recipe) -> tuple[universal.Kernel, str]:
    return model.kernel_of(_recipe(recipe).args)


def _types(r: Cutlass2GemmGroupedRecipe) -> str:
    return element_types(r.element_a, r.element_c, r.element_accumulator)


def _stage_count(k: universal.Kernel, mma: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages is a template argument; the per-stage terms are MmaBase's operand tiles."""
    return fixed_stage_count(k.stages, mma, ctx, f"{model.TEMPLATE} template argument 18")


def _variants(k: universal.Kernel, ctx: ModelContext) -> tuple[Variant, ...]:
    """Fewer stages, one at a time down to 2, up to the first that fits."""
    return fewer_stages(
        k.stages,
        k.threadblock,
        ctx,
        lambda n: model.kernel_shared_storage(universal.with_stages(k, n)).size,
    )
