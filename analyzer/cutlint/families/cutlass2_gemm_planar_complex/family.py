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

from cutlint.families.base import Claim, Facts, Unreadable
from cutlint.families.cutlass2_family import (
    Cutlass2Family,
    KernelParts,
    kernel_fields,
)
from cutlint.families.cutlass2_gemm_planar_complex import model
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    Shape3,
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


class Cutlass2GemmPlanarComplex(Cutlass2Family[model.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {}
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    columns: ClassVar[tuple[str, ...]] = ("tile", "element")
    parts = KernelParts(
        model.kernel_shared_storage,
        model.mma_shared_storage,
        model.epilogue_shared_storage,
        model.threads_per_block,
        model.with_stages,
    )

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
            **kernel_fields(k),
            math_op=k.math_op,
        )

    def kernel(self, recipe: Recipe) -> model.Kernel:
        return model.kernel_of(_recipe(recipe).args)

    def scope_reason(self, recipe: Recipe, k: model.Kernel) -> str | None:
        return model.scope_reason(k)

    def stages_argument(self, k: model.Kernel) -> str:
        return f"{model.TEMPLATE} template argument {_STAGES_ARGUMENT}"

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), self.types(recipe))

    type_arguments: ClassVar[str] = "ElementA, ElementC, ElementAccumulator"

    def template(self, recipe: Recipe) -> str:
        return model.TEMPLATE

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.args[16]

    def opclass_input(self, recipe: Recipe) -> tuple[str, str]:
        r = _recipe(recipe)
        return f"{r.opclass} {r.math_op} Sm{r.arch_tag}", "OperatorClass, Operator, ArchTag"

    def title_prefix(self, recipe: Recipe) -> str:
        return "planar complex "


FAMILY = Cutlass2GemmPlanarComplex()


def _recipe(recipe: Recipe) -> Cutlass2GemmPlanarComplexRecipe:
    assert isinstance(recipe, Cutlass2GemmPlanarComplexRecipe), recipe
    return recipe
