"""What every CUTLASS 2.x family says the same way, as one base (`Cutlass2Family`): the kernel
cannot run below its ArchTag, the stage count is a template argument (no builder), its per-stage
terms are the mainloop's operand tiles, its `SharedStorage` is the union of the mainloop's and the
epilogue's storage, the variants are the same kernel with fewer stages, its inputs and element
types read alike, and `cutlint verify` builds it with the `cutlass-alias` probe. Each family
(families/cutlass2_*) subclasses it with its own description: the template it claims, its recipe,
its kernel model's parts (`KernelParts`), what its model leaves out, its columns and metrics."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from cutlint.cutlass.layout import Block
from cutlint.families.base import CannotRun, Facts, InputField, smem_layout
from cutlint.families.groups import RuleGroup
from cutlint.model.context import ModelContext
from cutlint.records import Recipe, Resources, Shape3, SmemLayout, StageCount, StageTerm, Variant

OPERANDS = ("operand_A", "operand_B")
"""MmaBase::SharedStorage's per-stage tiles (cutlass/gemm/threadblock/mma_base.h)."""


def fixed_stage_count(
    stages: int,
    mma: Block,
    smem_optin: int,
    stages_argument: str,
    operands: Sequence[str] = OPERANDS,
) -> StageCount:
    """`Stages` as the kernel's template argument gives it (`stages_argument`: which one); the
    per-stage terms are `mma`'s `operands` tiles divided by the stage count."""
    per_stage = tuple(
        StageTerm(
            name=p.name.rsplit(".", 1)[-1],
            bytes=p.size // stages,
            source=p.source,
            derived_from=p.derived_from,
        )
        for p in mma.flat()
        if p.name.rsplit(".", 1)[-1] in operands
    )
    return StageCount(
        stages=stages,
        capacity=smem_optin,
        reductions=(),
        carveout=0,
        stage_budget=smem_optin,
        per_stage=per_stage,
        stage_bytes=sum(t.bytes for t in per_stage),
        formula=f"{stages_argument}: Stages (as cutlass_library's tile description gives it)",
        capacity_source="the arch's opt-in shared memory per block (model/data/arches.toml)",
        fixed=True,
    )


def fewer_stages(
    stages: int,
    tile: Shape3,
    smem_optin: int,
    smem_with: Callable[[int], int],
    lowest: int = 2,
) -> tuple[Variant, ...]:
    """The kernel with one stage fewer at a time, down to `lowest` (the fewest its mainloop
    takes), up to the first that fits; `smem_with(n)` is its SharedStorage with n stages.

    SharedStorage grows with the stage count, so the first that fits is found by bisection and
    at most `SHOWN` stage counts above it are listed: a stage count written as 2,147,483,795 is
    answered at once, not after two billion layouts."""
    optin = smem_optin

    def variant(n: int) -> Variant:
        smem = smem_with(n)
        return Variant(label=f"{n}-stage", tile=tile, stages=n, smem_bytes=smem, fits=smem <= optin)

    if stages - 1 < lowest:
        return ()
    fitting = None
    lo, hi = lowest, stages - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if smem_with(mid) <= optin:
            fitting, lo = mid, mid + 1
        else:
            hi = mid - 1
    stop = fitting if fitting is not None else lowest
    listed = range(stages - 1, max(stop, stages - SHOWN) - 1, -1)
    out = [variant(n) for n in listed]
    if fitting is not None and (not out or out[-1].stages != fitting):
        out.append(variant(fitting))
    return tuple(out)


SHOWN = 8
"""How many stage counts `fewer_stages` lists above the first that fits."""


def element_types(a: str, c: str, accumulator: str) -> str:
    """`half_t` when A, C and the accumulator agree, else `A -> C (accumulator)`."""
    a, c, accumulator = (e.replace("cutlass::", "") for e in (a, c, accumulator))
    return a if a == c == accumulator else f"{a} -> {c} ({accumulator})"


class Kernel2x(Protocol):
    """What the shared methods read of a family's kernel model record (and its recipe)."""

    @property
    def element_a(self) -> str: ...
    @property
    def element_c(self) -> str: ...
    @property
    def element_accumulator(self) -> str: ...
    @property
    def arch_tag(self) -> int: ...
    @property
    def opclass(self) -> str: ...
    @property
    def stages(self) -> int: ...
    @property
    def threadblock(self) -> Shape3: ...
    @property
    def warp(self) -> Shape3: ...


class Recipe2x(Kernel2x, Protocol):
    """What the shared methods read of a family's recipe: the kernel's fields (`kernel_fields`),
    the alias that defines it and the template arguments as written."""

    @property
    def kernel(self) -> str: ...
    @property
    def args(self) -> tuple[str, ...]: ...


def kernel_fields(k: Kernel2x) -> dict[str, Any]:
    """The recipe fields every 2.x family reads off its kernel model record."""
    return {
        "element_a": k.element_a,
        "element_c": k.element_c,
        "element_accumulator": k.element_accumulator,
        "opclass": k.opclass,
        "arch_tag": k.arch_tag,
        "threadblock": k.threadblock,
        "warp": k.warp,
        "stages": k.stages,
    }


K = TypeVar("K", bound=Kernel2x)


@dataclass(frozen=True)
class KernelParts(Generic[K]):
    """A family's kernel model, as the shared methods call it (each from its model.py, or the
    universal GEMM's where the kernel shares its parts)."""

    kernel_shared_storage: Callable[[K], Block]
    """The kernel's `SharedStorage` (the union the launcher sizes)."""
    mma_shared_storage: Callable[[K], Block]
    epilogue_shared_storage: Callable[[K], Block]
    threads_per_block: Callable[[K], int]
    with_stages: Callable[[K, int], K]


OPCLASS_METRICS: Mapping[str, str] = {
    "cutlass2.opclass": "OperatorClass: TensorOp or Simt",
    "cutlass2.arch_tag": "the kernel's ArchTag (80 for Sm80)",
}
OPCLASS_INPUTS: Mapping[str, tuple[str, ...]] = {
    "cutlass2.opclass": ("input.opclass",),
    "cutlass2.arch_tag": ("input.opclass",),
}


def opclass_facts(k: Kernel2x) -> Facts:
    """The values of OPCLASS_METRICS."""
    return {
        "cutlass2.opclass": k.opclass.rsplit("::", 1)[-1].removeprefix("OpClass"),
        "cutlass2.arch_tag": k.arch_tag,
    }


class Cutlass2Family(Generic[K]):
    """The protocol's answers every CUTLASS 2.x family gives alike. A subclass describes its
    family: `name`, `package`, `columns`, `parts`, and `kernel`, `scope_reason`,
    `stages_argument`, `claim`, `describe`, `inputs`, `title`; it may add `metrics` and `facts`."""

    joins: ClassVar[frozenset[RuleGroup]] = frozenset({RuleGroup.SMEM_AT_INITIALIZE})
    """The 2.x device adapters call cudaFuncSetAttribute with sizeof(SharedStorage) when they
    initialize; no static_assert holds it at compile time."""
    metrics: ClassVar[Mapping[str, str]] = OPCLASS_METRICS
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = OPCLASS_INPUTS
    probe: ClassVar[str | None] = "cutlass-alias"
    """`cutlint verify` compiles the kernel files with the cutlass-alias probe (the truth files:
    tests/tools/make_nvcc_alias_truth.py)."""
    stage_operands: ClassVar[Sequence[str]] = OPERANDS
    """The mainloop storage's per-stage tiles."""
    fewest_stages: ClassVar[int] = 2
    """The fewest stages its mainloops take (the variants stop there)."""
    parts: KernelParts[K]

    def kernel(self, recipe: Recipe) -> K:
        """The model's kernel record of the family's recipe."""
        raise NotImplementedError

    def scope_reason(self, recipe: Recipe, k: K) -> str | None:
        """Why the kernel is outside what the model computes exactly (None: inside)."""
        raise NotImplementedError

    def stages_argument(self, k: K) -> str:
        """Which template argument gives Stages (`DefaultGemmUniversal template argument 18`)."""
        raise NotImplementedError

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        k: K = _kernel(self, recipe)
        if ctx.arch.sm < k.arch_tag:
            # its ArchTag's instructions (cp.async and mma.sync shapes of Sm80, ...) are not there
            return CannotRun(f"an Sm{k.arch_tag} kernel does not run on {ctx.arch.name}")
        return self.scope_reason(recipe, k)

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        n = _numbers(self, _kernel(self, recipe), ctx.arch.smem_optin)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=n.stage_count,
            layout=n.layout,
            max_threads_per_block=n.max_threads_per_block,
            tma_descriptors=0,
            variants=n.variants,
        )

    def numbers(self, k: K, smem_optin: int) -> Numbers:
        """What the kernel lays out, against the arch's opt-in shared memory per block."""
        block = self.parts.kernel_shared_storage(k)
        mma = self.parts.mma_shared_storage(k)
        return Numbers(
            stage_count=fixed_stage_count(
                k.stages, mma, smem_optin, self.stages_argument(k), self.stage_operands
            ),
            layout=smem_layout(block, mma.size, self.parts.epilogue_shared_storage(k).size),
            max_threads_per_block=self.parts.threads_per_block(k),
            variants=self.variants(k, smem_optin),
        )

    def variants(self, k: K, smem_optin: int) -> tuple[Variant, ...]:
        """Fewer stages, one at a time down to `fewest_stages`, up to the first that fits: the
        stage count the tile can keep (cutlass_library emits other stage counts of a tile)."""
        parts = self.parts
        return fewer_stages(
            k.stages,
            k.threadblock,
            smem_optin,
            lambda n: parts.kernel_shared_storage(parts.with_stages(k, n)).size,
            lowest=self.fewest_stages,
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return opclass_facts(_kernel(self, recipe))

    type_arguments: ClassVar[str] = "ElementA, ElementB, ElementC, ElementAccumulator"
    """The template arguments its element types are read from (`input.types`)."""

    def fields(self, recipe: Recipe) -> Recipe2x:
        """The family's recipe, as the shared methods read it."""
        assert recipe.family == getattr(self, "name", None), recipe
        return cast(Recipe2x, recipe)

    def template(self, recipe: Recipe) -> str:
        """The template the recipe instantiates (`input.*` sources)."""
        raise NotImplementedError

    def epilogue(self, recipe: Recipe) -> str:
        """The EpilogueOutputOp argument as written."""
        raise NotImplementedError

    def opclass_input(self, recipe: Recipe) -> tuple[str, str]:
        """`input.opclass`: its value and the arguments it is read from."""
        r = self.fields(recipe)
        return f"{r.opclass} Sm{r.arch_tag}", "OperatorClass, ArchTag"

    def types(self, recipe: Recipe) -> str:
        """The element types in a table cell (`half_t`, or `A -> C (accumulator)`)."""
        r = self.fields(recipe)
        return element_types(r.element_a, r.element_c, r.element_accumulator)

    def title_prefix(self, recipe: Recipe) -> str:
        """What the title says before the tile (`Symm `, `planar complex `)."""
        return ""

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = self.fields(recipe)
        return common_inputs(
            f"{self.template(recipe)} template argument",
            r.threadblock,
            r.warp,
            r.stages,
            (self.types(recipe), self.type_arguments),
            self.opclass_input(recipe),
            self.epilogue(recipe),
        )

    def title(self, recipe: Recipe) -> str:
        r = self.fields(recipe)
        prefix = self.title_prefix(recipe)
        return f"{r.kernel}: {prefix}{r.threadblock}, {r.stages} stages, {self.types(recipe)}"


def common_inputs(
    src: str,
    threadblock: Shape3,
    warp: Shape3,
    stages: int,
    types: tuple[str, str],
    opclass: tuple[str, str],
    epilogue: str,
) -> tuple[InputField, ...]:
    """The inputs every 2.x kernel has, read from template arguments of `src` (`<template>
    template argument`): `types` and `opclass` are (value, which arguments)."""
    return (
        InputField("input.tile", "threadblock", str(threadblock), f"{src} ThreadblockShape"),
        InputField("input.warp", "warp", str(warp), f"{src} WarpShape"),
        InputField("input.stages", "stages", str(stages), f"{src} Stages"),
        InputField("input.types", "elements", types[0], f"{src}s {types[1]}"),
        InputField("input.opclass", "operator class", opclass[0], f"{src}s {opclass[1]}"),
        InputField("input.epilogue", "epilogue", epilogue, f"{src} EpilogueOutputOp"),
    )


@dataclass(frozen=True)
class Numbers:
    """What a 2.x kernel lays out: the Resources fields that are not the context's (arch,
    CUTLASS label and origin)."""

    stage_count: StageCount
    layout: SmemLayout
    max_threads_per_block: int
    variants: tuple[Variant, ...]


@lru_cache(maxsize=1)
def _kernel(family: Cutlass2Family[Any], recipe: Recipe) -> Any:
    """`family.kernel(recipe)`, its last answer kept: the engine asks covers(), resources() and
    facts() of one recipe in turn (the family is a stateless singleton, the recipe frozen and
    compared by value: a complete key)."""
    return family.kernel(recipe)


KERNEL_MEMO = 4096
"""Distinct (family, kernel, opt-in) kept: a cutlass_library 2.x build's kernels are far fewer
distinct kernel records than files (they differ in names and alignments)."""


@lru_cache(maxsize=KERNEL_MEMO)
def _numbers(family: Cutlass2Family[Any], k: Any, smem_optin: int) -> Numbers:
    """`family.numbers(k, smem_optin)`, once per distinct key. The key is complete: `numbers`
    reads `k` (a frozen record, compared by value), `smem_optin` and the family's class-level
    parts and constants (a stateless singleton, compared by identity), nothing else."""
    return family.numbers(k, smem_optin)
