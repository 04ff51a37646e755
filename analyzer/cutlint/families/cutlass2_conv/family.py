"""The CUTLASS 2.x implicit-GEMM convolution family: claims the `using` chains that define
`cutlass::conv::kernel::DefaultConv{2,3}d{Fprop,Dgrad,Wgrad}<...>::Kernel` and
`DefaultConv2dGroupFprop<...>::Kernel` (cutlass_library's conv2d/ and conv3d/ kernel files), and
computes their Resources with model.py (ImplicitGemmConvolution's SharedStorage union, laid out by
cutlint.cutlass.gemm_2x). It claims `DefaultDepthwiseDirect2dConvFprop` too, to say why that one
is not modeled."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.cutlass2_conv import model
from cutlint.families.cutlass2_family import element_types, fewer_stages, fixed_stage_count
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType, arch_tag, shape
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

NAME = "cutlass2-conv"
_UNREADABLE = "the conv kernel's template arguments could not be read (see the CUT0xx diagnostic)"


class Cutlass2ConvRecipe(Recipe):
    """A `DefaultConv*<...>::Kernel` alias, typed."""

    kernel: str = Field(description="the alias that defines the kernel (`<operation>_base`)")
    template: str = Field(description="the DefaultConv* template it instantiates")
    args: tuple[str, ...] = Field(description="the template arguments as written")
    element_a: str
    element_c: str
    element_accumulator: str
    opclass: str = Field(description="OperatorClass: OpClassTensorOp or OpClassSimt")
    arch_tag: int = Field(description="ArchTag SmNN")
    threadblock: Shape3
    warp: Shape3
    stages: int = Field(description="Stages (template argument 14)")
    iterator_algorithm: str = Field(description="kAnalytic, kOptimized, kFixedChannels, ...")


class Cutlass2Conv:
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
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "conv")
    probe: ClassVar[str | None] = "cutlass-alias"
    """cutlint.verify.alias_run.ALIAS_PROBE: `cutlint verify` compiles the kernel files with
    cutlint.verify.alias_probe (the truth file: tests/tools/make_nvcc_alias_truth.py)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        if inst.name not in model.TEMPLATES and inst.name != model.DEPTHWISE:
            return None
        if not inst.chain or inst.chain[0].member != "Kernel":
            return None
        args = chain_arguments(inst)
        if inst.name == model.DEPTHWISE:
            return _depthwise(inst, args)
        try:
            k = model.kernel_of(inst.name, args)
        except UnreadableType as e:
            code = "CUT004" if len(args) < model.COMMON_ARGUMENTS else "CUT005"
            return Unreadable(problems=((code, f"`{inst.name}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2ConvRecipe(
            family=NAME,
            kernel=inst.chain[0].name,
            template=inst.name,
            args=args,
            element_a=k.element_a,
            element_c=k.element_c,
            element_accumulator=k.element_accumulator,
            opclass=k.opclass,
            arch_tag=k.arch_tag,
            threadblock=k.threadblock,
            warp=k.warp,
            stages=k.stages,
            iterator_algorithm=k.iterator_algorithm,
        )

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        r = _recipe(recipe)
        if r.template == model.DEPTHWISE:
            return (
                "DefaultDepthwiseDirect2dConvFprop builds kernel::DirectConvolution, whose shared "
                "memory is dynamic and set by the problem: DirectConvolution::Params computes "
                "smem_size_ = max(activation_size, sizeof(Epilogue::SharedStorage)) * kStages + "
                "filter_size from the input, stride and dilation (conv/kernel/direct_convolution.h), "
                "and device::DirectConvolution::run() launches with it; not decidable from the "
                "source alone"
            )
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
        k = _kernel(recipe)
        return {
            "cutlass2.opclass": k.opclass.rsplit("::", 1)[-1].removeprefix("OpClass"),
            "cutlass2.arch_tag": k.arch_tag,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        conv = r.template.rsplit("::", 1)[-1].removeprefix("Default")
        return (str(r.threadblock), _types(r), f"{conv} {r.iterator_algorithm}".strip())

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        src = f"{r.template} template argument"
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
            InputField(
                "input.epilogue",
                "epilogue",
                r.args[12] if len(r.args) > 12 else "",
                f"{src} EpilogueOutputOp",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.kernel}: {r.threadblock}, {r.stages} stages, {_types(r)}"


FAMILY = Cutlass2Conv()


def _depthwise(inst: Instantiation, args: tuple[str, ...]) -> Claim:
    """DefaultDepthwiseDirect2dConvFprop (conv/kernel/default_depthwise_fprop.h): ElementA ...
    ArchTag as the implicit-GEMM kernels, then ThreadblockShape, ThreadBlockOutputShape,
    FilterShape, WarpShape, InstructionShape, EpilogueOutputOp, Swizzle, Stages, ..."""
    try:
        tb, warp, stages = shape(args[9]), shape(args[12]), int(args[16])
        tag = arch_tag(args[8])
    except (IndexError, ValueError) as e:
        return Unreadable(problems=(("CUT005", f"`{inst.name}`: {e}"),), reason=_UNREADABLE)
    return Cutlass2ConvRecipe(
        family=NAME,
        kernel=inst.chain[0].name,
        template=inst.name,
        args=args,
        element_a=args[0],
        element_c=args[4],
        element_accumulator=args[6],
        opclass=args[7],
        arch_tag=tag,
        threadblock=tb,
        warp=warp,
        stages=stages,
        iterator_algorithm="",
    )


def _recipe(recipe: Recipe) -> Cutlass2ConvRecipe:
    assert isinstance(recipe, Cutlass2ConvRecipe), recipe
    return recipe


def _kernel(recipe: Recipe) -> model.Kernel:
    r = _recipe(recipe)
    return model.kernel_of(r.template, r.args)


def _types(r: Cutlass2ConvRecipe) -> str:
    return element_types(r.element_a, r.element_c, r.element_accumulator)


def _stage_count(k: model.Kernel, mma: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages is a template argument; the per-stage terms are MmaBase's operand tiles."""
    return fixed_stage_count(
        k.stages, mma, ctx, f"{k.template} template argument {model.STAGES_ARGUMENT}"
    )


def _variants(k: model.Kernel, ctx: ModelContext) -> tuple[Variant, ...]:
    """Fewer stages, one at a time down to 2, up to the first that fits."""
    return fewer_stages(
        k.stages,
        k.threadblock,
        ctx,
        lambda n: model.kernel_shared_storage(model.with_stages(k, n)).size,
    )
