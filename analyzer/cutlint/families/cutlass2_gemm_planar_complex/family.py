"""The CUTLASS 2.x planar-complex GEMM family: claims the `using` chains that define
`cutlass::gemm::kernel::DefaultGemmPlanarComplexUniversal<...>::GemmKernel` or `::GemmArrayKernel`
(cutlass_library's
gemm/75 and gemm/80 `*_planar_complex*` kernel files), and computes their Resources with model.py
(GemmPlanarComplex's SharedStorage union of the real and imaginary operand tiles and the real and
imaginary accumulator staging, cutlint.cutlass.gemm_2x)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.cutlass2_family import element_types, fewer_stages, fixed_stage_count
from cutlint.families.cutlass2_gemm_planar_complex import model
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

NAME = "cutlass2-gemm-planar-complex"
_UNREADABLE = "DefaultGemmPlanarComplexUniversal's template arguments could not be read (see the CUT0xx diagnostic)"
_STAGES_ARGUMENT = 18
"""DefaultGemmPlanarComplexUniversal's `int Stages` (0-based template argument 18)."""


class Cutlass2GemmPlanarComplexRecipe(Recipe):
    """A `DefaultGemmPlanarComplexUniversal<...>::GemmKernel` alias, typed."""

    kernel: str = Field(description="the alias that defines the kernel")
    shell: str = Field(
        description="GemmKernel (GemmPlanarComplex) or GemmArrayKernel (GemmPlanarComplexArray)"
    )
    args: tuple[str, ...] = Field(description="the 20 template arguments as written")
    element_a: str
    element_c: str
    element_accumulator: str
    opclass: str
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    stages: int
    math_op: str


class Cutlass2GemmPlanarComplex:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_INITIALIZE})
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {}
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    columns: ClassVar[tuple[str, ...]] = ("tile", "element")
    probe: ClassVar[str | None] = "cutlass-alias"
    """cutlint.verify.alias_run.ALIAS_PROBE: `cutlint verify` compiles the kernel files with
    cutlint.verify.alias_probe (the truth file: tests/tools/make_nvcc_alias_truth.py)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS or inst.name != model.TEMPLATE:
            return None
        if not inst.chain or inst.chain[0].member not in model.KERNEL_MEMBERS:
            return None
        args = tuple(" ".join(a.split()) for a in inst.args)
        try:
            k = model.kernel_of(args)
        except model.UnreadableType as e:
            code = "CUT004" if len(args) != 20 else "CUT005"
            return Unreadable(problems=((code, f"`{model.TEMPLATE}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2GemmPlanarComplexRecipe(
            family=NAME,
            kernel=inst.chain[0].name,
            shell=str(inst.chain[0].member),
            args=args,
            element_a=k.element_a,
            element_c=k.element_c,
            element_accumulator=k.element_accumulator,
            opclass=k.opclass,
            arch_tag=k.arch_tag,
            threadblock=k.threadblock,
            warp=k.warp,
            stages=k.stages,
            math_op=k.math_op,
        )

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        k = _kernel(recipe)
        if ctx.arch.sm < k.arch_tag:
            return CannotRun(f"an Sm{k.arch_tag} kernel does not run on {ctx.arch.name}")
        return model.scope_reason(k)

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        k = _kernel(recipe)
        block = model.kernel_shared_storage(k)
        mma = model.mma_shared_storage(k)
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
                epilogue_size=model.epilogue_shared_storage(k).size,
            ),
            max_threads_per_block=model.threads_per_block(k),
            tma_descriptors=0,
            variants=_variants(k, ctx),
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), _types(r))

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
                f"{src}s ElementA, ElementC, ElementAccumulator",
            ),
            InputField(
                "input.opclass",
                "operator class",
                f"{r.opclass} {r.math_op} Sm{r.arch_tag}",
                f"{src}s OperatorClass, Operator, ArchTag",
            ),
            InputField("input.epilogue", "epilogue", r.args[16], f"{src} EpilogueOutputOp"),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.kernel}: planar complex {r.threadblock}, {r.stages} stages, {_types(r)}"


FAMILY = Cutlass2GemmPlanarComplex()


def _recipe(recipe: Recipe) -> Cutlass2GemmPlanarComplexRecipe:
    assert isinstance(recipe, Cutlass2GemmPlanarComplexRecipe), recipe
    return recipe


def _kernel(recipe: Recipe) -> model.Kernel:
    return model.kernel_of(_recipe(recipe).args)


def _types(r: Cutlass2GemmPlanarComplexRecipe) -> str:
    return element_types(r.element_a, r.element_c, r.element_accumulator)


def _stage_count(k: model.Kernel, mma: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages is a template argument. The per-stage terms are the operand tiles
    (each holds Stages copies of the K slice, real and imaginary)."""
    return fixed_stage_count(
        k.stages, mma, ctx, f"{model.TEMPLATE} template argument {_STAGES_ARGUMENT}"
    )


def _variants(k: model.Kernel, ctx: ModelContext) -> tuple[Variant, ...]:
    """Fewer stages, one at a time down to 2, up to the first that fits."""
    return fewer_stages(
        k.stages,
        k.threadblock,
        ctx,
        lambda n: model.kernel_shared_storage(model.with_stages(k, n)).size,
    )
