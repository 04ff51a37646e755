"""The CUTLASS 2.x universal GEMM family: claims the `using` chains that define
`cutlass::gemm::kernel::DefaultGemmUniversal<...>::GemmKernel` (cutlass_library's gemm/50 ... gemm/80
kernel files), and computes their Resources with model.py (GemmUniversal's SharedStorage union of
MmaBase's operand tiles and the epilogue's accumulator staging, cutlint.cutlass.gemm_2x)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.cutlass2_family import fewer_stages, fixed_stage_count
from cutlint.families.cutlass2_gemm_universal import model
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

NAME = "cutlass2-gemm-universal"
_UNREADABLE = (
    "DefaultGemmUniversal's template arguments could not be read (see the CUT0xx diagnostic)"
)


class Cutlass2GemmUniversalRecipe(Recipe):
    """A `DefaultGemmUniversal<...>::GemmKernel` alias, typed."""

    kernel: str = Field(description="the alias that defines the kernel (`<operation>_base`)")
    args: tuple[str, ...] = Field(description="the 20 template arguments as written")
    element_a: str
    element_b: str
    element_c: str
    element_accumulator: str
    layout_a: str
    layout_b: str
    layout_c: str
    alignment_a: int
    alignment_b: int
    opclass: str = Field(description="OperatorClass: OpClassTensorOp or OpClassSimt")
    arch_tag: int = Field(description="ArchTag SmNN")
    threadblock: Shape3
    warp: Shape3
    instruction: Shape3
    epilogue_op: str = Field(description="EpilogueOutputOp as written")
    stages: int = Field(description="Stages (template argument 18)")
    math_op: str = Field(description="Operator: OpMultiplyAdd, OpMultiplyAddFastF32, ...")


class Cutlass2GemmUniversal:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_INITIALIZE})
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "cutlass2.opclass": "OperatorClass: TensorOp or Simt",
        "cutlass2.arch_tag": "the kernel's ArchTag (80 for Sm80)",
        "cutlass2.library_estimate": "cutlass_library's CalculateSmemUsage, in bytes: A and B tiles x stages",
        "cutlass2.library_undercount": "smem.total - cutlass2.library_estimate: what the generator's estimate leaves out",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cutlass2.opclass": ("input.opclass",),
        "cutlass2.arch_tag": ("input.opclass",),
        "cutlass2.library_estimate": ("input.tile", "input.stages", "input.types"),
        "cutlass2.library_undercount": ("input.tile", "input.stages", "input.types"),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "opclass")
    probe: ClassVar[str | None] = "cutlass-alias"
    """cutlint.verify.alias_run.ALIAS_PROBE: `cutlint verify` compiles the kernel files with
    cutlint.verify.alias_probe (the truth files: tests/tools/make_nvcc_alias_truth.py)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS or inst.name != model.TEMPLATE:
            return None
        if not inst.chain or inst.chain[0].member != "GemmKernel":
            return None
        args = chain_arguments(inst)
        try:
            k = model.kernel_of(args)
        except model.UnreadableType as e:
            code = "CUT004" if len(args) != model.ARGUMENT_COUNT else "CUT005"
            return Unreadable(problems=((code, f"`{model.TEMPLATE}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2GemmUniversalRecipe(
            family=NAME,
            kernel=inst.chain[0].name,
            args=args,
            element_a=k.element_a,
            element_b=k.element_b,
            element_c=k.element_c,
            element_accumulator=k.element_accumulator,
            layout_a=k.layout_a,
            layout_b=k.layout_b,
            layout_c=k.layout_c,
            alignment_a=k.alignment_a,
            alignment_b=k.alignment_b,
            opclass=k.opclass,
            arch_tag=k.arch_tag,
            threadblock=k.threadblock,
            warp=k.warp,
            instruction=k.instruction,
            epilogue_op=args[16],
            stages=k.stages,
            math_op=k.math_op,
        )

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        k = _kernel(recipe)
        if ctx.arch.sm < k.arch_tag:
            # its ArchTag's instructions (cp.async and mma.sync shapes of Sm80, ...) are not there
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
        k = _kernel(recipe)
        estimate = model.library_estimate(k)
        return {
            "cutlass2.opclass": k.opclass.rsplit("::", 1)[-1].removeprefix("OpClass"),
            "cutlass2.arch_tag": k.arch_tag,
            "cutlass2.library_estimate": estimate,
            "cutlass2.library_undercount": res.layout.size - estimate,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), _types(r), r.opclass.rsplit("::", 1)[-1])

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
                f"{r.opclass} {r.math_op} Sm{r.arch_tag}",
                f"{src}s OperatorClass, Operator, ArchTag",
            ),
            InputField("input.epilogue", "epilogue", r.epilogue_op, f"{src} EpilogueOutputOp"),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.kernel}: {r.threadblock}, {r.stages} stages, {_types(r)}"


FAMILY = Cutlass2GemmUniversal()


def _recipe(recipe: Recipe) -> Cutlass2GemmUniversalRecipe:
    assert isinstance(recipe, Cutlass2GemmUniversalRecipe), recipe
    return recipe


def _kernel(recipe: Recipe) -> model.Kernel:
    return model.kernel_of(_recipe(recipe).args)


def _short(element: str) -> str:
    return element.replace("cutlass::", "")


def _types(r: Cutlass2GemmUniversalRecipe) -> str:
    """`half_t` when A, B, C and the accumulator agree, else `A x B -> C (accumulator)`."""
    a, b, c, acc = (
        _short(e) for e in (r.element_a, r.element_b, r.element_c, r.element_accumulator)
    )
    if a == b == c == acc:
        return a
    return f"{a} x {b} -> {c} ({acc})"


def _stage_count(k: model.Kernel, mma: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages is a template argument. The per-stage terms are MmaBase's operand tiles
    (each holds Stages copies of the K slice, plus the core's padding)."""
    return fixed_stage_count(
        k.stages, mma, ctx, f"{model.TEMPLATE} template argument {model.STAGES_ARGUMENT}"
    )


def _variants(k: model.Kernel, ctx: ModelContext) -> tuple[Variant, ...]:
    """Fewer stages, one at a time down to 2 (the mainloops need 2), up to the first that fits:
    the stage count the tile can keep (cutlass_library emits other stage counts of a tile)."""
    return fewer_stages(
        k.stages,
        k.threadblock,
        ctx,
        lambda n: model.kernel_shared_storage(model.with_stages(k, n)).size,
    )
