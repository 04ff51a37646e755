"""The CUTLASS 2.x universal GEMM family: claims the `using` chains that define
`cutlass::gemm::kernel::DefaultGemmUniversal<...>::GemmKernel` (cutlass_library's gemm/50 ... gemm/80
kernel files), and computes their Resources with model.py (GemmUniversal's SharedStorage union of
MmaBase's operand tiles and the epilogue's accumulator staging, cutlint.cutlass.gemm_2x)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import Claim, Facts, Unreadable
from cutlint.families.cutlass2_family import (
    OPCLASS_INPUTS,
    OPCLASS_METRICS,
    Cutlass2Family,
    KernelParts,
    kernel_fields,
    opclass_facts,
)
from cutlint.families.cutlass2_gemm_universal import model
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    Shape3,
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
    epilogue_visitor: str | None = Field(
        default=None,
        description="GemmWithEpilogueVisitor's EpilogueVisitor (a kernel `cutlint tu` found);"
        " None: DefaultGemmUniversal's kernel",
    )


class Cutlass2GemmUniversal(Cutlass2Family[model.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        **OPCLASS_METRICS,
        "cutlass2.library_estimate": "cutlass_library's CalculateSmemUsage, in bytes: A and B tiles x stages",
        "cutlass2.library_undercount": "smem.total - cutlass2.library_estimate: what the generator's estimate leaves out",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        **OPCLASS_INPUTS,
        "cutlass2.library_estimate": ("input.tile", "input.stages", "input.types"),
        "cutlass2.library_undercount": ("input.tile", "input.stages", "input.types"),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "opclass")
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
        visitor = None
        if inst.name == model.VISITOR_KERNEL and len(inst.args) == model.ARGUMENT_COUNT + 1:
            args, visitor = inst.args[:-1], inst.args[-1]
        elif inst.name != model.TEMPLATE or not inst.chain or inst.chain[0].member != "GemmKernel":
            return None
        else:
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
            **kernel_fields(k),
            element_b=k.element_b,
            layout_a=k.layout_a,
            layout_b=k.layout_b,
            layout_c=k.layout_c,
            alignment_a=k.alignment_a,
            alignment_b=k.alignment_b,
            instruction=k.instruction,
            epilogue_op=args[16],
            math_op=k.math_op,
            epilogue_visitor=visitor,
        )

    def kernel(self, recipe: Recipe) -> model.Kernel:
        r = _recipe(recipe)
        return dataclasses.replace(model.kernel_of(r.args), visitor=r.epilogue_visitor)

    def scope_reason(self, recipe: Recipe, k: model.Kernel) -> str | None:
        return model.scope_reason(k)

    def stages_argument(self, k: model.Kernel) -> str:
        return f"{model.TEMPLATE} template argument {model.STAGES_ARGUMENT}"

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        k = self.kernel(recipe)
        estimate = model.library_estimate(k)
        return {
            **opclass_facts(k),
            "cutlass2.library_estimate": estimate,
            "cutlass2.library_undercount": res.layout.size - estimate,
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), self.types(recipe), r.opclass.rsplit("::", 1)[-1])

    def types(self, recipe: Recipe) -> str:
        """`half_t` when A, B, C and the accumulator agree, else `A x B -> C (accumulator)`."""
        r = _recipe(recipe)
        a, b, c, acc = (
            e.replace("cutlass::", "")
            for e in (r.element_a, r.element_b, r.element_c, r.element_accumulator)
        )
        return a if a == b == c == acc else f"{a} x {b} -> {c} ({acc})"

    def template(self, recipe: Recipe) -> str:
        return model.TEMPLATE

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.epilogue_op

    def opclass_input(self, recipe: Recipe) -> tuple[str, str]:
        r = _recipe(recipe)
        return f"{r.opclass} {r.math_op} Sm{r.arch_tag}", "OperatorClass, Operator, ArchTag"


FAMILY = Cutlass2GemmUniversal()


def _recipe(recipe: Recipe) -> Cutlass2GemmUniversalRecipe:
    assert isinstance(recipe, Cutlass2GemmUniversalRecipe), recipe
    return recipe
