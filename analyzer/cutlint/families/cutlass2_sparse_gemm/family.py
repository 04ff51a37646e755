"""The CUTLASS 2.x structured-sparse GEMM family: claims the `using` aliases of
`cutlass::gemm::device::SparseGemm<...>` (cutlass_library's gemm/80 *spgemm* kernel files), and
computes their Resources with model.py (kernel::SparseGemm's union of SparseMmaBase's A, B and
metadata E tiles and the dense GEMM's epilogue)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from cutlint.families.alias_args import chain_arguments
from cutlint.families.base import Claim, Unreadable
from cutlint.families.cutlass2_family import (
    Cutlass2Family,
    KernelParts,
    kernel_fields,
)
from cutlint.families.cutlass2_gemm_universal import model as universal
from cutlint.families.cutlass2_sparse_gemm import model
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Shape3,
)

NAME = "cutlass2-sparse-gemm"
_UNREADABLE = "SparseGemm's template arguments could not be read (see the CUT0xx diagnostic)"


class Cutlass2SparseGemmRecipe(Recipe):
    """A `device::SparseGemm<...>` alias, typed."""

    kernel: str = Field(description="the alias that names the device type (`Operation_<name>`)")
    args: tuple[str, ...] = Field(description="the 19 template arguments as written")
    element_a: str
    element_c: str
    element_accumulator: str
    opclass: str = Field(description="OperatorClass: OpClassTensorOp or OpClassSimt")
    arch_tag: int = Field(description="ArchTag SmNN")
    threadblock: Shape3
    warp: Shape3
    stages: int = Field(description="Stages (template argument 14)")


class Cutlass2SparseGemm(Cutlass2Family[universal.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    columns: ClassVar[tuple[str, ...]] = ("tile", "element", "opclass")
    stage_operands: ClassVar[Sequence[str]] = ("operand_A", "operand_B", "operand_E")
    """SparseMmaBase's A, B and metadata E tiles."""
    parts = KernelParts(
        model.kernel_shared_storage,
        model.mma_shared_storage,
        model.epilogue_shared_storage,
        universal.threads_per_block,
        model.with_stages,
    )

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS or inst.name != model.TEMPLATE:
            return None
        if not inst.chain or inst.chain[0].member is not None:
            return None
        args = chain_arguments(inst)
        try:
            k = model.kernel_of(args)
        except universal.UnreadableType as e:
            code = "CUT004" if len(args) != model.ARGUMENT_COUNT else "CUT005"
            return Unreadable(problems=((code, f"`{model.TEMPLATE}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2SparseGemmRecipe(
            family=NAME,
            kernel=inst.chain[0].name,
            args=args,
            **kernel_fields(k),
        )

    def kernel(self, recipe: Recipe) -> universal.Kernel:
        return model.kernel_of(_recipe(recipe).args)

    def scope_reason(self, recipe: Recipe, k: universal.Kernel) -> str | None:
        return model.scope_reason(k)

    def stages_argument(self, k: universal.Kernel) -> str:
        return f"{model.TEMPLATE} template argument 14"

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (str(r.threadblock), self.types(recipe), r.opclass.rsplit("::", 1)[-1])

    def template(self, recipe: Recipe) -> str:
        return model.TEMPLATE

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.args[12]


FAMILY = Cutlass2SparseGemm()


def _recipe(recipe: Recipe) -> Cutlass2SparseGemmRecipe:
    assert isinstance(recipe, Cutlass2SparseGemmRecipe), recipe
    return recipe
