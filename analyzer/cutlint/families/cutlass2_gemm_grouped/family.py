"""The CUTLASS 2.x grouped GEMM family: claims the `using` chains that define
`cutlass::gemm::kernel::DefaultGemmGrouped<...>::GemmKernel` (cutlass_library's gemm/80
*gemm_grouped* kernel files), and computes their Resources with model.py (GemmGrouped's
SharedStorage: cutlass2-gemm-universal's union and the problem visitor's storage)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import Claim, Unreadable
from cutlint.families.cutlass2_family import (
    Cutlass2Family,
    KernelParts,
    kernel_fields,
)
from cutlint.families.cutlass2_gemm_grouped import model
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Shape3,
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


class Cutlass2GemmGrouped(Cutlass2Family[universal.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "schedule")
    parts = KernelParts(
        model.kernel_shared_storage,
        universal.mma_shared_storage,
        universal.epilogue_shared_storage,
        universal.threads_per_block,
        universal.with_stages,
    )

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
            **kernel_fields(k),
            schedule=schedule,
        )

    def kernel(self, recipe: Recipe) -> universal.Kernel:
        return model.kernel_of(_recipe(recipe).args)[0]

    def scope_reason(self, recipe: Recipe, k: universal.Kernel) -> str | None:
        return model.scope_reason(k, _recipe(recipe).schedule)

    def stages_argument(self, k: universal.Kernel) -> str:
        return f"{model.TEMPLATE} template argument 18"

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), self.types(recipe), r.schedule.rsplit("::", 1)[-1])

    def template(self, recipe: Recipe) -> str:
        return model.TEMPLATE

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.args[16]


FAMILY = Cutlass2GemmGrouped()


def _recipe(recipe: Recipe) -> Cutlass2GemmGroupedRecipe:
    assert isinstance(recipe, Cutlass2GemmGroupedRecipe), recipe
    return recipe
