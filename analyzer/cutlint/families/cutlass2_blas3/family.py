"""The CUTLASS 2.x BLAS-3 family: claims the `using` aliases of `cutlass::gemm::device::Trmm`,
`Symm`, `RankK` and `Rank2K` (cutlass_library's trmm, symm, rank_k and rank_2k kernel files), and
computes their Resources with model.py (the kernel shells' SharedStorage union of MmaBase's operand
tiles and the epilogue's accumulator staging, cutlint.cutlass.gemm_2x)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.families.base import Claim, Facts, InputField, Unreadable
from cutlint.families.cutlass2_blas3 import model
from cutlint.families.cutlass2_family import (
    Cutlass2Family,
    KernelParts,
    kernel_fields,
)
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType
from cutlint.model.context import ModelContext
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    Shape3,
)

NAME = "cutlass2-blas3"
_UNREADABLE = (
    "the BLAS-3 device type's template arguments could not be read (see the CUT0xx diagnostic)"
)


class Cutlass2Blas3Recipe(Recipe):
    """A `device::Trmm<...>` / `Symm` / `RankK` / `Rank2K` alias, typed."""

    template: str = Field(description="the device template (`cutlass::gemm::device::Trmm`)")
    kernel: str = Field(description="the alias that defines the operation")
    args: tuple[str, ...] = Field(description="the template arguments as written")
    element_a: str
    element_c: str
    element_accumulator: str
    opclass: str
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    stages: int
    math_op: str


class Cutlass2Blas3(Cutlass2Family[model.Kernel]):
    name: ClassVar[str] = NAME
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "blas3.operation": "the device type: Trmm, Symm, RankK or Rank2K",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "blas3.operation": ("input.operation",),
    }
    columns: ClassVar[tuple[str, ...]] = ("operation", "tile", "element")
    fewest_stages: ClassVar[int] = 3
    """The modeled multistage mainloops."""
    parts = KernelParts(
        model.kernel_shared_storage,
        model.mma_shared_storage,
        model.epilogue_shared_storage,
        model.threads_per_block,
        model.with_stages,
    )

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS or inst.name not in model.TEMPLATES:
            return None
        if not inst.chain or inst.chain[0].member is not None:
            return None
        args = tuple(" ".join(a.split()) for a in inst.args)
        try:
            k = model.kernel_of(inst.name, args)
        except UnreadableType as e:
            code = "CUT004" if len(args) < model.TEMPLATES[inst.name].min_args else "CUT005"
            return Unreadable(problems=((code, f"`{inst.name}`: {e}"),), reason=_UNREADABLE)
        return Cutlass2Blas3Recipe(
            family=NAME,
            template=inst.name,
            kernel=inst.chain[0].name,
            args=args,
            **kernel_fields(k),
            math_op=k.math_op,
        )

    def kernel(self, recipe: Recipe) -> model.Kernel:
        r = _recipe(recipe)
        return model.kernel_of(r.template, r.args)

    def scope_reason(self, recipe: Recipe, k: model.Kernel) -> str | None:
        return model.scope_reason(k)

    def stages_argument(self, k: model.Kernel) -> str:
        # Symm and Rank2K keep two MmaBase mainloops in one union: the same per-stage bytes
        return f"{k.template.name} template argument {k.template.opclass + 7}"

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {"blas3.operation": _operation(_recipe(recipe))}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (_operation(r), str(r.threadblock), self.types(recipe))

    type_arguments: ClassVar[str] = "ElementA, ElementC, ElementAccumulator"

    def template(self, recipe: Recipe) -> str:
        return _recipe(recipe).template

    def epilogue(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return r.args[model.TEMPLATES[r.template].opclass + 5]

    def opclass_input(self, recipe: Recipe) -> tuple[str, str]:
        r = _recipe(recipe)
        return f"{r.opclass} {r.math_op} Sm{r.arch_tag}", "OperatorClass, Operator, ArchTag"

    def title_prefix(self, recipe: Recipe) -> str:
        return f"{_operation(_recipe(recipe))} "

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        operation = _operation(_recipe(recipe))
        return (
            InputField("input.operation", "operation", operation, "the device template"),
            *super().inputs(recipe),
        )


FAMILY = Cutlass2Blas3()


def _recipe(recipe: Recipe) -> Cutlass2Blas3Recipe:
    assert isinstance(recipe, Cutlass2Blas3Recipe), recipe
    return recipe


def _operation(r: Cutlass2Blas3Recipe) -> str:
    return r.template.rsplit("::", 1)[-1]
