"""The CUTLASS 2.x implicit-GEMM convolution family: claims the `using` chains that define
`cutlass::conv::kernel::DefaultConv{2,3}d{Fprop,Dgrad,Wgrad}<...>::Kernel` and
`DefaultConv2dGroupFprop<...>::Kernel` (cutlass_library's conv2d/ and conv3d/ kernel files), and
computes their Resources with model.py (ImplicitGemmConvolution's SharedStorage union, laid out by
cutlint.cutlass.gemm_2x). It claims `DefaultDepthwiseDirect2dConvFprop` too, to say why that one
is not modeled."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import Claim, Unreadable
from cutlint.families.cutlass2_conv import model
from cutlint.families.cutlass2_family import (
    Cutlass2Family,
    KernelParts,
    kernel_fields,
)
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType, arch_tag, shape
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Shape3,
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


class Cutlass2Conv(Cutlass2Family[model.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "conv")
    parts = KernelParts(
        model.kernel_shared_storage,
        model.mma_shared_storage,
        model.epilogue_shared_storage,
        model.threads_per_block,
        model.with_stages,
    )

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
            **kernel_fields(k),
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
        return super().covers(recipe, ctx)

    def kernel(self, recipe: Recipe) -> model.Kernel:
        r = _recipe(recipe)
        return model.kernel_of(r.template, r.args)

    def scope_reason(self, recipe: Recipe, k: model.Kernel) -> str | None:
        return model.scope_reason(k)

    def stages_argument(self, k: model.Kernel) -> str:
        return f"{k.template} template argument {model.STAGES_ARGUMENT}"

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        conv = r.template.rsplit("::", 1)[-1].removeprefix("Default")
        return (str(r.threadblock), self.types(recipe), f"{conv} {r.iterator_algorithm}".strip())

    def template(self, recipe: Recipe) -> str:
        return _recipe(recipe).template

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.args[12] if len(r.args) > 12 else ""


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
