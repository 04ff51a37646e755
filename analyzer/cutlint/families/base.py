"""The family seam: what a kernel family is to the rest of cutlint.

A family is one recipe as a producer instantiates it (the FlashInfer fused-MoE macro for `Sm120`,
the same macro for `Sm90`, the Ampere fused-MoE launcher, ...). It claims source forms, types them
into its recipe, and computes their Resources from CUTLASS's shared parts (cutlint.cutlass). The
engine, the reporters, explain, pregen and verify reach a family only through this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Protocol, runtime_checkable

from cutlint import tables
from cutlint.cutlass.layout import Block
from cutlint.families.groups import RuleGroup
from cutlint.model.context import ModelContext
from cutlint.records import (
    Instantiation,
    InstantiationResult,
    MoeGemmArgs,
    Recipe,
    Region,
    Resources,
    Shape3,
    SmemLayout,
)

Facts = dict[str, int | bool | str]


@dataclass(frozen=True)
class Unreadable:
    """The form is this family's, but arguments cannot be read: the messages become input
    diagnostics (`code`, e.g. CUT004 or CUT005) and the instantiation is reported not modeled."""

    problems: tuple[tuple[str, str], ...]
    """(rule code, message) pairs."""
    reason: str


@dataclass(frozen=True)
class InputField:
    """One input of a recipe, as the derivation graph shows it (`input.tile`: `256x128x128`)."""

    node: str
    """`input.<name>`: what records' `derived_from` name."""
    label: str
    value: str
    source: str
    """Where it was read: the macro argument(s) or launcher template argument(s)."""


class CannotRun(str):
    """What `Family.covers` returns when the recipe's kernel cannot run on the target arch at all
    (an Sm120 kernel checked for sm_90): not a gap in the model but a failure of class E, which
    the engine reports as one (CUT204), with this reason."""

    __slots__ = ()


Claim = Recipe | Unreadable | None
"""A family's answer to a form: its recipe, its form with unreadable arguments, or not mine."""


def built_for(ctx: ModelContext) -> frozenset[int] | None:
    """The compute capabilities the file's compile command emits code for (its `-gencode`
    list, cutlint.context), or None when no command says: what a family reads of the build
    where one header name or macro stands for several arches' kernels. FlashInfer's JIT builds
    each module for the device its kernels run on (jit/gemm: `gen_gemm_sm100_module` with the
    SM100 family's `-gencode`, `gen_gemm_sm120_module` with sm_120a/121a), so a file compiled
    for none of a family's arches is another module's."""
    build = ctx.build
    if build is None or build.targets is None or not build.targets.value:
        return None
    return frozenset(t.sm for t in build.targets.value)


def moe_args(result: InstantiationResult) -> MoeGemmArgs | None:
    """The typed MoE macro arguments of a judged instantiation, where a family of that macro
    claimed it (its recipe carries them as `args`): FlashInfer's MoE runner knowledge (tactic ids,
    blocklists) is keyed by them, and explain and pregen read them here, not in a family."""
    args = getattr(result.recipe, "args", None)
    return args if isinstance(args, MoeGemmArgs) else None


@dataclass(frozen=True)
class RunnerKernel:
    """What a producer's runner selects a launcher kernel by, as its tactic list names it: the
    element type, the threadblock tile, the stage count and the activation routed into the kernel
    (FlashInfer's MoeGemmRunner takes the SM80 fused-MoE kernel for GEMM 1 of its 16-bit runner
    with a gated activation; runners/sm8x_grouped). Explain and pregen match a runner's tactic
    against a judged instantiation through it, without the family's recipe."""

    element: str
    """The element type as written (`cutlass::half_t`)."""
    tile: Shape3
    stages: int
    activation: str
    """The activation the kernel runs (`Swiglu`), as the launcher routes its epilogue tag."""
    epilogue_tag: str
    """The epilogue tag as written."""


@runtime_checkable
class RunnerSelected(Protocol):
    """A recipe whose kernel a producer's runner selects by tactic (`RunnerKernel`)."""

    def runner_kernel(self) -> RunnerKernel: ...


def runner_kernel(result: InstantiationResult) -> RunnerKernel | None:
    """The runner's keys of a judged instantiation, where its family's recipe is one a runner
    selects by tactic (`RunnerSelected`); None for every other kernel."""
    recipe = result.recipe
    return recipe.runner_kernel() if isinstance(recipe, RunnerSelected) else None


@dataclass(frozen=True)
class FamilyData:
    """A family's data file (`data/family.toml`): what it is and every constant with its source."""

    title: str
    producer: str
    recipe_source: str
    doc: str
    fixtures: str
    truth: str
    constants: Mapping[str, int]
    sources: Mapping[str, str]
    todo: str | None = None
    """What a scaffolded family does not model yet (cutlint.testing.new_family): while set, the
    family reports every claim not modeled and owes its `// model:` fixture line and its truth
    rows; None for a modeled family."""


@cache
def family_toml(package: str) -> dict[str, Any]:
    """A family's `data/family.toml`, every table as written (read once)."""
    return tables.load(tables.data_file(package, "family.toml"))


@cache
def family_data(package: str) -> FamilyData:
    """The family's data, built once (its constants are read per instantiation)."""
    raw = family_toml(package)
    constants = raw.get("constants", {})
    return FamilyData(
        title=raw["title"],
        producer=raw["producer"],
        recipe_source=raw["recipe_source"],
        doc=raw["doc"],
        fixtures=raw["fixtures"],
        truth=raw["truth"],
        constants={k: int(v["value"]) for k, v in constants.items()},
        sources={k: str(v["source"]) for k, v in constants.items()},
        todo=raw.get("todo"),
    )


@cache
def regions(block: Block) -> tuple[Region, ...]:
    """The laid-out `SharedStorage` as the records' regions (`Resources.layout.regions`).
    Memoized: a run's instantiations share their layouts (f16 and bf16 outputs, variants)."""
    return tuple(
        Region(
            name=p.name.removeprefix("SharedStorage."),
            offset=p.offset,
            size=p.size,
            align=p.align,
            source=p.source,
            derived_from=p.derived_from,
        )
        for p in block.flat()
    )


def smem_layout(block: Block, mainloop_size: int, epilogue_size: int) -> SmemLayout:
    """The kernel's laid-out `SharedStorage` (`block`) as the records' layout, with the bytes of
    its mainloop's and its epilogue's storage."""
    return SmemLayout(
        regions=regions(block),
        size=block.size,
        align=block.align,
        mainloop_size=mainloop_size,
        epilogue_size=epilogue_size,
    )


class Family(Protocol):
    """One kernel family. Implementations are stateless singletons listed in the registry.

    One hook is optional, asked for with getattr: `kernel_tile(recipe) -> (m, n, k) | None`, the
    tile a built kernel's mangled type names when it is not the CTA tile (the SM100 fused-MoE
    launcher's MMA tile), read by families/kernel_signature.py to match measured kernels."""

    name: ClassVar[str]
    """Kebab-case, e.g. `sm120-blockscaled-grouped`."""
    joins: ClassVar[frozenset[RuleGroup]]
    """The rule groups whose mechanism its kernel has (cutlint.families.groups): the rules that
    select one of them check it. Exactly one capacity group; TMEM when it reports columns."""
    package: ClassVar[str]
    """The family's package (holds `data/family.toml`)."""
    metrics: ClassVar[Mapping[str, str]]
    """The family's own metrics for rules (namespaced, e.g. `moe.swap_ab`) -> what each means."""
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]]
    """For each of its metrics, the input nodes (`input.tile`) it is read from."""
    columns: ClassVar[tuple[str, ...]]
    """Its columns of the text table, in order (between `line` and `stages`)."""
    probe: ClassVar[str | None]
    """The name of the compiler probe `cutlint verify` uses for it, or None. What the probe builds
    (its header patches, launcher patch, C++ helpers, how its output reads back) is the family's
    `probe.py` where it has one, or the module several families share (`registry.SHARED_PROBES`;
    cutlint.families.probe; `registry.probe_module`)."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim: ...

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        """Why this recipe is outside what the model computes exactly (None: it is inside); a
        `CannotRun` when its kernel cannot run on `ctx.arch` at all."""
        ...

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        """Stage count, SharedStorage layout, threads, registers, TMA, variants, dispatch."""
        ...

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        """Values of `metrics` for this recipe."""
        ...

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        """The recipe's cells, one per entry of `columns`."""
        ...

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        """The recipe's inputs, for the derivation graph."""
        ...

    def title(self, recipe: Recipe) -> str:
        """One line naming the tactic, for explanations (`FINALIZE 256x128x128 SwapAB off`)."""
        ...
