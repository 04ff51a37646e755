"""The CUTLASS 2.x BLAS-3 family: claims the `using` aliases of `cutlass::gemm::device::Trmm`,
`Symm`, `RankK` and `Rank2K` (cutlass_library's trmm, symm, rank_k and rank_2k kernel files), and
computes their Resources with model.py (the kernel shells' SharedStorage union of MmaBase's operand
tiles and the epilogue's accumulator staging, cutlint.cutlass.gemm_2x)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from cutlint.cutlass.layout import Block
from cutlint.families.base import CannotRun, Claim, Facts, InputField, Unreadable, regions
from cutlint.families.cutlass2_blas3 import model
from cutlint.families.cutlass2_family import element_types, fewer_stages, fixed_stage_count
from cutlint.families.cutlass2_gemm_universal.model import UnreadableType
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


class Cutlass2Blas3:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_INITIALIZE})
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "blas3.operation": "the device type: Trmm, Symm, RankK or Rank2K",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "blas3.operation": ("input.operation",),
    }
    columns: ClassVar[tuple[str, ...]] = ("operation", "tile", "element")
    probe: ClassVar[str | None] = "cutlass-alias"
    """cutlint.verify.alias_run.ALIAS_PROBE: `cutlint verify` compiles the kernel files with
    cutlint.verify.alias_probe, which unwraps the device type's TrmmKernel / SymmKernel /
    RankKkernel / Rank2Kkernel (the truth file: tests/tools/make_nvcc_alias_truth.py)."""

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
        return {"blas3.operation": _operation(_recipe(recipe))}

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        return (_operation(r), str(r.threadblock), _types(r))

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        src = f"{r.template} template argument"
        return (
            InputField("input.operation", "operation", _operation(r), "the device template"),
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
            InputField(
                "input.epilogue",
                "epilogue",
                r.args[model.TEMPLATES[r.template].opclass + 5],
                f"{src} EpilogueOutputOp",
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{r.kernel}: {_operation(r)} {r.threadblock}, {r.stages} stages, {_types(r)}"


FAMILY = Cutlass2Blas3()


def _recipe(recipe: Recipe) -> Cutlass2Blas3Recipe:
    assert isinstance(recipe, Cutlass2Blas3Recipe), recipe
    return recipe


def _kernel(recipe: Recipe) -> model.Kernel:
    r = _recipe(recipe)
    return model.kernel_of(r.template, r.args)


def _operation(r: Cutlass2Blas3Recipe) -> str:
    return r.template.rsplit("::", 1)[-1]


def _types(r: Cutlass2Blas3Recipe) -> str:
    return element_types(r.element_a, r.element_c, r.element_accumulator)


def _stage_count(k: model.Kernel, mma: Block, ctx: ModelContext) -> StageCount:
    """No builder: Stages is a template argument. The per-stage terms are MmaBase's operand tiles
    (Symm and Rank2K keep two such mainloops in one union: the same bytes)."""
    return fixed_stage_count(
        k.stages, mma, ctx, f"{k.template.name} template argument {k.template.opclass + 7}"
    )


def _variants(k: model.Kernel, ctx: ModelContext) -> tuple[Variant, ...]:
    """Fewer stages, one at a time down to 3 (the modeled multistage mainloops), up to the first
    that fits."""
    return fewer_stages(
        k.stages,
        k.threadblock,
        ctx,
        lambda n: model.kernel_shared_storage(model.with_stages(k, n)).size,
        lowest=3,
    )
