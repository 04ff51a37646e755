"""The SM100 CollectiveBuilder GEMM family: claims `using` chains that define
`cutlass::gemm::kernel::GemmUniversal` with an `Sm100` mainloop CollectiveBuilder (cutlass_library's
CUTLASS 3.x SM100 kernels, hand-written CUTLASS code) and computes their Resources with model.py."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from cutlint.cutlass.sm100_mainloop import SM100_SMEM_CAPACITY, TMEM_COLUMNS
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import (
    CannotRun,
    Claim,
    Facts,
    InputField,
    Unreadable,
    family_toml,
    smem_layout,
)
from cutlint.families.groups import RuleGroup
from cutlint.families.sm100_collective_builder import blockscaled, blockwise, model
from cutlint.families.sm100_collective_builder.recipe import (
    NAME,
    Sm100CollectiveBuilderRecipe,
    claim,
    is_grouped,
)
from cutlint.model.context import ModelContext
from cutlint.records import (
    EpilogueTile,
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    SmemLayout,
    StageCount,
)

COVERED_CUTLASS: tuple[str, ...] = tuple(family_toml(model.PACKAGE)["covered_cutlass"]["versions"])
"""The CUTLASS releases whose SM100 headers the model is checked against (family.toml)."""
ONE_PROBLEM_DENSE_CUTLASS: tuple[str, ...] = tuple(
    family_toml(model.PACKAGE)["covered_cutlass"]["one_problem_dense"]
)
"""Further releases for the dense one-problem chain only (not blockwise, not ptr-array): those
whose headers differ from 4.2.0's only where the model follows the release (family.toml)."""
BLOCKSCALED_PTR_ARRAY_CUTLASS: tuple[str, ...] = tuple(
    family_toml(model.PACKAGE)["covered_cutlass"]["blockscaled_ptr_array"]
)
"""Further releases for the block-scaled grouped chain (family.toml)."""
RUNS_ON = (100, 110)
"""The targets an `Sm100` kernel is built for: sm_100a (B200) and sm_110a (Jetson Thor), for which
cutlass_library's generator emits the same `cutlass3x_sm100_*` kernels (generator.py:
GenerateSM100, ThorSMRenumbering) and nvcc lays them out byte for byte as for sm_100a
(tests/data/nvcc_sm100_collective_builder_sm110_truth.json). The shell's static_assert compares
with sm100_smem_capacity_bytes on both: cutlass/arch/arch.h (4.2.0) has no SM110 capacity."""
THOR_DROPPED_CLUSTER = 16
"""cutlass_library generator.py (GenerateSM100_TensorOp_*_UMMA_gemm): when the Thor SM is in the
build's compute capabilities, `cluster_shapes_{1,2}sm.remove([4,4,1])`."""


@lru_cache(maxsize=1024)
def _short(name: str) -> str:
    """Namespaces dropped, template arguments kept (`cute::tuple<cutlass::float_e2m1_t,
    cutlass::float_ue4m3_t>` -> `tuple<float_e2m1_t,float_ue4m3_t>`). Once per distinct name:
    the facts ask it of every kernel's two schedules, a build's few dozen names (the key is
    complete: the answer reads nothing but `name`)."""
    return _NAMESPACE.sub("", name)


_NAMESPACE = re.compile(r"\b\w+::")


class Sm100CollectiveBuilder:
    name: ClassVar[str] = NAME
    joins: ClassVar[frozenset[RuleGroup]] = frozenset(
        {RuleGroup.SMEM_AT_COMPILE, RuleGroup.TMEM, RuleGroup.SM1XX_TMA_BUILDER_ALIGNMENT}
    )
    package: ClassVar[str] = model.PACKAGE
    metrics: ClassVar[Mapping[str, str]] = {
        "cb.kernel_schedule": "the mainloop builder's KernelSchedule as written",
        "cb.epilogue_schedule": "the epilogue builder's EpilogueSchedule as written",
        "umma.tmem.columns": "TMEM columns the accumulators take",
        "umma.tmem.capacity": "TMEM columns per SM (the kernel allocates all of them)",
        "umma.two_sm": "a 2-SM MMA (KernelTmaWarpSpecialized2SmSm100)",
        "umma.smem.capacity": "sm100_smem_capacity_bytes, which the kernel shell static_asserts",
        "umma.smem.assert": "the header and line of that static_assert in the modeled CUTLASS",
        "cb.tma_alignment": "the A/B alignment no TMA builder specialization takes, in words "
        "(empty: aligned, or not decided)",
    }
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "cb.kernel_schedule": ("input.schedule",),
        "cb.epilogue_schedule": ("input.epilogue",),
        "umma.tmem.columns": ("input.tile", "input.schedule"),
        "umma.tmem.capacity": ("input.arch",),
        "umma.two_sm": ("input.schedule",),
        "umma.smem.capacity": ("input.arch",),
        "umma.smem.assert": ("input.cutlass",),
        "cb.tma_alignment": ("input.types",),
    }
    columns: ClassVar[tuple[str, ...]] = ("tile", "cluster", "A x B -> D", "schedule", "epilogue")
    probe: ClassVar[str | None] = "cutlass-alias"
    """`cutlint verify` compiles its files with cutlint.verify.alias_probe."""

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.form is not FormKind.TYPE_ALIAS:
            return None
        got = claim(inst)
        if isinstance(got, str):
            return Unreadable(problems=(("CUT005", got),), reason=got)
        return got

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        t = _tactic(recipe, ctx)
        return t if isinstance(t, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        t = _tactic(recipe, ctx)
        assert not isinstance(t, str), t  # the engine asks covers() first
        n = _numbers(t.parts, ctx.cutlass)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=n.stage_count,
            layout=n.layout,
            max_threads_per_block=n.max_threads_per_block,
            tmem_columns=n.tmem_columns,
            tma=model.tma_plan(_recipe(recipe)),
            epilogue=n.epilogue,
        )

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        r = _recipe(recipe)
        return {
            "cb.tma_alignment": model.tma_misaligned(r),
            "cb.kernel_schedule": _short(r.mainloop[12]),
            "cb.epilogue_schedule": _short(r.epilogue[13]),
            "umma.tmem.columns": res.tmem_columns or 0,
            "umma.tmem.capacity": TMEM_COLUMNS,
            "umma.two_sm": model.is_two_sm(r)
            or blockscaled.KERNEL_SCHEDULES.get(r.mainloop[12], False),
            "umma.smem.capacity": SM100_SMEM_CAPACITY,
            "umma.smem.assert": model.smem_static_assert(r, res.cutlass_version),
        }

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        r = _recipe(recipe)
        types = f"{_short(r.mainloop[2])} x {_short(r.mainloop[5])} -> {_short(r.epilogue[10])}"
        cluster = str(r.cluster) if r.cluster is not None else "dynamic"
        return (str(r.tile), cluster, types, _short(r.mainloop[12]), _short(r.epilogue[13]))

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        r = _recipe(recipe)
        ml = "mainloop CollectiveBuilder argument"
        ep = "epilogue CollectiveBuilder argument"
        m, e = r.mainloop, r.epilogue
        return (
            InputField("input.tile", "MMA tile", str(r.tile), f"{ml} TileShape_MNK"),
            InputField("input.cluster", "cluster", m[10], f"{ml} ClusterShape_MNK"),
            InputField(
                "input.types",
                "A x B -> C, D",
                f"{m[2]} x {m[5]} -> {e[7]}, {e[10]}",
                f"{ml}s ElementA, ElementB; {ep}s ElementC, ElementD",
            ),
            InputField("input.stages", "stage policy", m[11], f"{ml} StageCountType"),
            InputField("input.schedule", "kernel schedule", m[12], f"{ml} KernelSchedule"),
            InputField("input.epilogue", "epilogue schedule", e[13], f"{ep} Schedule"),
            InputField(
                "input.scheduler", "tile scheduler", r.tile_scheduler, "GemmUniversal argument 4"
            ),
        )

    def title(self, recipe: Recipe) -> str:
        r = _recipe(recipe)
        return f"{_short(r.mainloop[12])} {r.tile}, {_short(r.epilogue[13])} epilogue"


FAMILY = Sm100CollectiveBuilder()


def _recipe(recipe: Recipe) -> Sm100CollectiveBuilderRecipe:
    assert isinstance(recipe, Sm100CollectiveBuilderRecipe), recipe
    return recipe


def _covered_cutlass(cutlass: CutlassModel, r: Sm100CollectiveBuilderRecipe) -> str | None:
    if cutlass.label in COVERED_CUTLASS:
        return None
    if cutlass.label in ONE_PROBLEM_DENSE_CUTLASS and _one_problem_dense(r):
        return None
    if cutlass.label in BLOCKSCALED_PTR_ARRAY_CUTLASS and _blockscaled_grouped(r):
        return None
    return (
        f"CUTLASS {cutlass.label}: the SM100 CollectiveBuilder model is checked against the "
        f"headers of CUTLASS {', '.join(COVERED_CUTLASS)} only, of "
        f"{', '.join(ONE_PROBLEM_DENSE_CUTLASS)} for the dense one-problem chain and of "
        f"{', '.join(BLOCKSCALED_PTR_ARRAY_CUTLASS)} for the block-scaled grouped chain (the "
        "kernel shells, builders and epilogue change between releases)"
    )


def _one_problem_dense(r: Sm100CollectiveBuilderRecipe) -> bool:
    """A dense UMMA chain for one problem: OpClassTensorOp, neither a blockwise nor a ptr-array
    schedule, no GroupProblemShape (sm100_umma_builder.inl's one-problem branch)."""
    m = r.mainloop
    return (
        m[1] == "cutlass::arch::OpClassTensorOp"
        and m[12] not in blockwise.KERNEL_SCHEDULES
        and model.PTR_ARRAY not in m[12]
        and not is_grouped(r)
    )


def _blockscaled_grouped(r: Sm100CollectiveBuilderRecipe) -> bool:
    """A block-scaled chain of a grouped problem with a ptr-array schedule
    (sm100_blockscaled_umma_builder.inl's IsArrayOfPointersGemm branch)."""
    return (
        r.mainloop[1] == blockscaled.OP_CLASS
        and model.PTR_ARRAY in r.mainloop[12]
        and is_grouped(r)
    )


def _tactic(recipe: Recipe, ctx: ModelContext) -> model.Tactic | str:
    return _tactic_on(_recipe(recipe), ctx.arch.sm, ctx.arch.name, ctx.cutlass)


@lru_cache(maxsize=1)
def _tactic_on(
    r: Sm100CollectiveBuilderRecipe, sm: int, arch: str, cutlass: CutlassModel
) -> model.Tactic | str:
    """`_tactic`, by what it reads of the context. The engine asks covers() and then resources()
    of one recipe: the last answer is kept for the second (every argument is frozen and
    compared by value, so the key is complete)."""
    if sm not in RUNS_ON:
        return CannotRun(f"an Sm100 kernel (sm_100a) does not run on {arch}")
    why = _covered_cutlass(cutlass, r)
    if why is not None:
        return why
    c = r.cluster
    if sm == 110 and c is not None and c.m * c.n * c.k >= THOR_DROPPED_CLUSTER:
        return (
            f"cluster {c} on sm_110: cutlass_library does not build 4x4x1 clusters for Jetson Thor "
            "(generator.py removes [4,4,1] when the Thor SM is targeted) and nvcc was not asked "
            "about such a kernel for sm_110a"
        )
    return tactic_of(r, cutlass)


@dataclass(frozen=True)
class Numbers:
    """What a chain's parts lay out: the Resources fields that are neither the context's (arch,
    CUTLASS label and origin) nor the A/B tensor maps' (which the alignments decide)."""

    stage_count: StageCount
    layout: SmemLayout
    max_threads_per_block: int
    tmem_columns: int | None
    epilogue: EpilogueTile


PARTS_MEMO = 4096
"""Distinct (parts, CUTLASS) kept: a cutlass_library SM100 build of tens of thousands of kernels
is a few hundred distinct parts (its kernels differ in alignments, layouts and names)."""


@lru_cache(maxsize=PARTS_MEMO)
def _numbers(parts: model.Parts, cutlass: CutlassModel) -> Numbers:
    """The numbers of `parts` under `cutlass`, computed once per distinct pair. The key is
    complete: the model's functions called here are given nothing but `parts` and `cutlass`
    (frozen, compared by value) and read no other state than the family's constant data."""
    stage_count = model.stage_count(parts, cutlass)
    stages = stage_count.stages
    block = model.kernel_shared_storage(parts, stages, cutlass)
    tmem = model.tmem_columns(parts)
    return Numbers(
        stage_count=stage_count,
        layout=smem_layout(
            block,
            model.mainloop_shared_storage(parts, stages).size,
            model.epilogue_shared_storage(parts).size,
        ),
        max_threads_per_block=model.max_threads_per_block(parts, cutlass),
        tmem_columns=tmem.total if tmem is not None else None,
        epilogue=model.epilogue_shape(parts),
    )


def tactic_of(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> model.Tactic | str:
    """The dense (model.py) or the block-scaled (blockscaled.py) builder's parts for `r`."""
    if r.mainloop[1] == blockscaled.OP_CLASS:
        return blockscaled.tactic_of(r, cutlass)
    return model.tactic_of(r, cutlass)
