"""The parts an SM100 CollectiveBuilder chain selects, and their shared memory.

The mainloop is `sm100_umma_builder.inl`'s dense UMMA builder for one problem
(`KernelTmaWarpSpecialized{1,2}SmSm100` -> `MainloopSm100TmaUmmaWarpSpecialized`,
`sm100_mma_warpspecialized.hpp`), the epilogue the SM100 epilogue builder's TMA epilogue
(`TmaWarpSpecialized{1,2}Sm`, or `EpilogueScheduleAuto` resolved as the builder resolves it ->
`sm100_epilogue_tma_warpspecialized.hpp`), and the kernel `GemmUniversal` with the one-problem
SM100 shell (`sm100_gemm_tma_warpspecialized.hpp`). The CUTLASS parts are in
cutlint.cutlass.sm100_mainloop / sm100_epilogue / sm100_kernel (`ptr_array=False`); this module only
decides, as the builders do, which parts the chain's arguments select. Header paths are relative to
CUTLASS's include/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cutlint.cutlass import sm90_evt, tma
from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_kernel as kernel
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_data
from cutlint.families.sm100_collective_builder import blockwise
from cutlint.families.sm100_collective_builder.recipe import (
    Sm100CollectiveBuilderRecipe,
    is_grouped,
)
from cutlint.records import EpilogueTile, StageCount, TmaPlan

PACKAGE = "cutlint.families.sm100_collective_builder"

_C = family_data(PACKAGE).constants
# Each constant's source is in data/family.toml beside this file.
TWO_SM_TILE_M = tuple(_C[f"auto_epilogue_2sm_tile_m_{i}"] for i in (1, 2))

ELEMENT_BITS = {
    "cutlass::half_t": 16,
    "cutlass::bfloat16_t": 16,
    "cutlass::float_e4m3_t": 8,
    "cutlass::float_e5m2_t": 8,
    "float": 32,
    "cutlass::tfloat32_t": 32,
    "int8_t": 8,
    "int32_t": 32,
}
"""cute::sizeof_bits of the element types whose layouts the compiler truth covers (float as an
operand is the MMA's tfloat32_t: sm1xx_kernel_input_element_to_mma_input_element maps it, 32 bits
either way; int32_t only as an output and accumulator)."""
OPERANDS = (
    ("cutlass::half_t", "cutlass::half_t"),
    ("cutlass::bfloat16_t", "cutlass::bfloat16_t"),
    ("cutlass::float_e4m3_t", "cutlass::float_e4m3_t"),
    ("cutlass::float_e5m2_t", "cutlass::float_e5m2_t"),
    ("cutlass::float_e5m2_t", "cutlass::float_e4m3_t"),
    ("cutlass::float_e4m3_t", "cutlass::float_e5m2_t"),
    ("float", "float"),
    ("cutlass::tfloat32_t", "cutlass::tfloat32_t"),
    ("int8_t", "int8_t"),
)
"""(ElementA, ElementB) of the truth's rows (the builder's ElementAMma is the same type:
sm1xx_kernel_input_element_to_mma_input_element keeps 8- and 16-bit types)."""
ACCUMULATORS = ("float", "cutlass::half_t", "int32_t")
"""ElementAccumulator of the rows the compiler truth holds (f16 x f16 accumulates in f16 too,
int8 x int8 in int32_t)."""

KERNEL_SCHEDULES = {
    "cutlass::gemm::KernelTmaWarpSpecialized1SmSm100": False,
    "cutlass::gemm::KernelTmaWarpSpecialized2SmSm100": True,
    "cutlass::gemm::KernelPtrArrayTmaWarpSpecialized1SmSm100": False,
    "cutlass::gemm::KernelPtrArrayTmaWarpSpecialized2SmSm100": True,
}
"""The builder's KernelScheduleType -> is_2sm (sm100_umma_builder.inl: is_base_of_v<
KernelSchedule2Sm, BuilderScheduleTag>)."""

EPILOGUE_SCHEDULES = {
    "cutlass::epilogue::TmaWarpSpecialized1Sm": False,
    "cutlass::epilogue::TmaWarpSpecialized2Sm": True,
    "cutlass::epilogue::PtrArrayTmaWarpSpecialized1Sm": False,
    "cutlass::epilogue::PtrArrayTmaWarpSpecialized2Sm": True,
}
PTR_ARRAY = "PtrArray"
"""The ptr-array (grouped) schedules' names: `KernelPtrArrayTmaWarpSpecialized{1,2}SmSm100` select
the ptr-array UMMA mainloop (sm100_mma_array_warpspecialized.hpp), `PtrArrayTmaWarpSpecialized
{1,2}Sm` the ptr-array epilogue, and `GroupProblemShape` the ptr-array kernel shell
(sm100_gemm_array_tma_warpspecialized.hpp): the parts the FlashInfer grouped family uses."""
EPILOGUE_AUTO = "cutlass::epilogue::collective::EpilogueScheduleAuto"
EPILOGUE_TILE_AUTO = "cutlass::epilogue::collective::EpilogueTileAuto"
LINEAR_COMBINATION = "cutlass::epilogue::fusion::LinearCombination<"
COLUMN_MAJOR = "cutlass::layout::ColumnMajor"
ROW_MAJOR = "cutlass::layout::RowMajor"
TILE_SCHEDULERS = ("void", "cutlass::gemm::PersistentScheduler", "cutlass::gemm::StreamKScheduler")
"""cutlass/gemm/kernel/tile_scheduler.hpp: on Sm100 each maps to PersistentTileSchedulerSm100
or PersistentTileSchedulerSm100StreamK, whose CLCResponse is the same 16 bytes."""

_CARVEOUT_SIZEOF = re.compile(
    r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*static_cast<int>\(\s*sizeof\(\s*"
    r"(?:typename\s+)?(\w+)::SharedStorage\s*\)\s*\)\s*>$"
)
_CARVEOUT_INT = re.compile(r"^cutlass::gemm::collective::StageCountAutoCarveout<\s*([0-9]+)\s*>$")


@dataclass(frozen=True)
class Parts:
    """The CUTLASS parts the builders select for a chain: all that its stage count, shared
    storage, threads, TMEM columns and epilogue tile are computed from (the functions below take
    nothing else), so chains of equal parts share those numbers (family.py: `_numbers`)."""

    mainloop: ml.Mainloop
    epilogue: epi.Epilogue
    carveout: int | None
    """StageCountAutoCarveout<N> with a literal N; None: sizeof(the epilogue's SharedStorage)."""


@dataclass(frozen=True)
class Tactic(Parts):
    """The builders' choices for one chain: its parts, and the chain they were read from."""

    recipe: Sm100CollectiveBuilderRecipe
    two_sm: bool

    @property
    def parts(self) -> Parts:
        """The parts alone (a key that holds no kernel name, alignment or layout tag)."""
        return Parts(self.mainloop, self.epilogue, self.carveout)


def auto_epilogue_is_2sm(r: Sm100CollectiveBuilderRecipe) -> bool:
    """SM100_EPILOGUE_BUILDER, the EpilogueScheduleAuto builder for TensorOp kernels: is_2sm() = a static, even
    ClusterShape M and an MMA tile M of 128 or 256 (OpClassTensorOp); a dynamic cluster
    (`cute::Shape<int, int, _1>`) gives TmaWarpSpecialized1Sm whatever the mainloop's schedule."""
    return r.cluster is not None and r.cluster.m % 2 == 0 and r.tile.m in TWO_SM_TILE_M


KERNEL_AUTO = "cutlass::gemm::collective::KernelScheduleAuto"
EVT_ELEMENT_BYTES = {
    "float": 4,
    "cutlass::half_t": 2,
    "cutlass::bfloat16_t": 2,
    "cutlass::float_e4m3_t": 1,
    "cutlass::float_e5m2_t": 1,
}
"""sizeof of the elements an epilogue visitor tree's row broadcasts stage (cutlass/numeric_types.h)."""


def auto_mainloop_is_2sm(r: Sm100CollectiveBuilderRecipe) -> bool:
    """KernelScheduleAuto (sm100_common.inl: sm100_make_trivial_tiled_mma): the 2-SM MMA for a
    static cluster whose M is a multiple of 2 and a tile M that is a multiple of 128, else the
    1-SM one (a dynamic cluster: 1-SM)."""
    c = r.cluster
    return c is not None and c.m % 2 == 0 and r.tile.m % 128 == 0


def tactic_of(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> Tactic | str:
    """The parts the builders select for `r`, or why the model does not cover the chain."""
    m, e = r.mainloop, r.epilogue
    if m[1] != "cutlass::arch::OpClassTensorOp":
        return (
            f"mainloop OpClass {m[1]}: the model covers the dense OpClassTensorOp UMMA builder only"
        )
    grouped = is_grouped(r)
    scaled = m[12] in blockwise.KERNEL_SCHEDULES
    two_sm = blockwise.KERNEL_SCHEDULES[m[12]] if scaled else KERNEL_SCHEDULES.get(m[12])
    if m[12] == KERNEL_AUTO and not grouped:
        two_sm = auto_mainloop_is_2sm(r)
    if two_sm is None:
        return (
            f"kernel schedule {m[12]}: the model covers KernelTmaWarpSpecialized{{1,2}}SmSm100 and "
            "KernelPtrArrayTmaWarpSpecialized{1,2}SmSm100 (sm100_umma_builder.inl), and their "
            "Blockwise ones (sm100_blockwise_umma_builder.inl)"
        )
    if grouped != (PTR_ARRAY in m[12]) or (grouped and PTR_ARRAY not in e[13]):
        return (
            f"problem shape {r.problem_shape} with kernel schedule {m[12]} and epilogue schedule "
            f"{e[13]}: the model covers a GroupProblemShape with both ptr-array schedules, or one "
            "problem with neither"
        )
    if (m[2], m[5]) not in OPERANDS:
        return (
            f"A x B = {m[2]} x {m[5]}: the compiler truth covers f16 x f16, bf16 x bf16, "
            "e4m3 x e4m3, e5m2 x e5m2, e5m2 x e4m3, e4m3 x e5m2, tf32 (float) x tf32 and int8 x int8"
        )
    if m[8] not in ACCUMULATORS:
        return f"ElementAccumulator {m[8]}: the compiler truth covers float and half_t accumulation"
    if r.tile_scheduler not in TILE_SCHEDULERS:
        return f"tile scheduler {r.tile_scheduler}: the model covers void, PersistentScheduler and StreamKScheduler"
    if e[0] != "cutlass::arch::Sm100" or e[1] != "cutlass::arch::OpClassTensorOp":
        return f"epilogue builder {e[0]}, {e[1]}: the model covers the Sm100 OpClassTensorOp one"
    if e[4] != EPILOGUE_TILE_AUTO:
        return f"epilogue tile {e[4]}: the model covers EpilogueTileAuto"
    evt: Block | None = None
    if sm90_evt.is_tree(e[14]) and not grouped:
        tree = sm90_evt.storage(e[14], r.tile.n, EVT_ELEMENT_BYTES)
        if isinstance(tree, str):
            return f"fusion {e[14]}: {tree}"
        evt = tree
    elif not e[14].startswith(LINEAR_COMBINATION):
        return (
            f"fusion {e[14]}: the model covers LinearCombination (an empty FusionCallbacks storage) "
            "and, for one problem, epilogue visitor trees (Sm90TreeVisitor)"
        )
    if e[13] == EPILOGUE_AUTO:
        epi_2sm = auto_epilogue_is_2sm(r)
    elif e[13] in EPILOGUE_SCHEDULES:
        epi_2sm = EPILOGUE_SCHEDULES[e[13]]
    else:
        return f"epilogue schedule {e[13]}: the model covers TmaWarpSpecialized{{1,2}}Sm and EpilogueScheduleAuto"
    c_void = e[7] == "void"
    c_bits = None if c_void else ELEMENT_BITS.get(e[7])
    d_bits = ELEMENT_BITS.get(e[10])
    if d_bits is None or (not c_void and c_bits is None):
        return f"C, D = {e[7]}, {e[10]}: the model covers void, f16, bf16, e4m3, e5m2, float, int8_t and int32_t"
    # a grouped kernel's C/D layouts are pointers to the tag (`cutlass::layout::RowMajor*`)
    layout_c, layout_d = (x.replace(" ", "").removesuffix("*") for x in (e[8], e[11]))
    if layout_d not in (COLUMN_MAJOR, ROW_MAJOR) or (not c_void and layout_c != layout_d):
        return f"C, D layouts {e[8]}, {e[11]}: the model covers one row- or column-major layout"
    carveout = carveout_of(r)
    if isinstance(carveout, str):
        return carveout
    mainloop: ml.Mainloop | str
    if scaled:
        mainloop = blockwise.mainloop(m[12], m[2], m[5], m[8], r.tile, r.scale_granularity, grouped)
        if isinstance(mainloop, str):
            return mainloop
    else:
        mainloop = ml.Mainloop(
            ml.UmmaKind.DENSE,
            r.tile.m,
            r.tile.n,
            r.tile.k,
            two_sm,
            ELEMENT_BITS[m[2]],
            ELEMENT_BITS[m[5]],
            ptr_array=grouped,
        )
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.TMA,
        mma_m=r.tile.m,
        mma_n=r.tile.n,
        two_sm=epi_2sm,
        c_bits=c_bits,
        d_bits=d_bits,
        d_void=False,
        d_m_major=layout_d == COLUMN_MAJOR,
        blockscaled=False,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides"),
        ptr_array=grouped,
        evt=evt,
    )
    return Tactic(mainloop, epilogue, carveout, recipe=r, two_sm=two_sm)


def epilogue_shared_storage(t: Parts) -> Block:
    return epi.shared_storage(t.epilogue)


def epilogue_shape(t: Parts) -> EpilogueTile:
    return epi.tile_shape(t.epilogue)


def stage_count(t: Parts, cutlass: CutlassModel) -> StageCount:
    carveout = epilogue_shared_storage(t).size if t.carveout is None else t.carveout
    return ml.stage_count(t.mainloop, carveout, cutlass)


def shell(t: Parts, cutlass: CutlassModel) -> kernel.KernelShell:
    """The one-problem or ptr-array shell; a blockwise mainloop's is the MMA-transform one, with
    the blockwise builder's SchedulerPipelineStageCount."""
    scaled = t.mainloop.kind is ml.UmmaKind.BLOCKWISE
    return kernel.shell(
        False,
        ml.accumulator_stages(t.mainloop),
        cutlass,
        ptr_array=t.mainloop.ptr_array,
        scheduler_stages=ml.scheduler_stages(t.mainloop) if scaled else None,
        mma_transform=scaled,
    )


def mainloop_shared_storage(t: Parts, stages: int) -> Block:
    return ml.shared_storage(t.mainloop, stages)


def kernel_shared_storage(t: Parts, stages: int, cutlass: CutlassModel) -> Block:
    """`GemmKernel::SharedStorage` (sm100_kernel.shared_storage_members, one-problem shell)."""
    k = shell(t, cutlass)
    e = t.epilogue
    members = kernel.shared_storage_members(
        k,
        mainloop_tensors=ml.tensor_storage(t.mainloop, stages),
        mainloop_maps=ml.tensormap_storage(t.mainloop),  # a member of the ptr-array shell only
        mainloop_pipeline=ml.pipeline(t.mainloop, stages),
        epilogue_tensors=epi.tensor_storage(e),
        epilogue_maps=epi.tensormap_storage(e),  # a member of the ptr-array shell only
        epi_load_pipeline=epi.pipeline(e),
    )
    return kernel.shared_storage(members, k)


def max_threads_per_block(t: Parts, cutlass: CutlassModel) -> int:
    return kernel.max_threads_per_block(shell(t, cutlass))


def tmem_columns(t: Parts) -> ml.TmemColumns | None:
    return ml.tmem_columns(t.mainloop, epilogue_shape(t).n)


def carveout_of(r: Sm100CollectiveBuilderRecipe) -> int | str | None:
    """The mainloop's stage policy: None for `StageCountAutoCarveout<sizeof(the epilogue's
    SharedStorage)>` (the builder subtracts the epilogue's storage), N for
    `StageCountAutoCarveout<N>`, or why the model does not cover it."""
    policy = r.mainloop[11]
    if (sz := _CARVEOUT_SIZEOF.match(policy)) and sz[1] == r.epilogue_alias:
        return None
    if lit := _CARVEOUT_INT.match(policy):
        return int(lit[1])
    return (
        f"stage policy {policy}: the model covers StageCountAutoCarveout<sizeof(the "
        "epilogue's SharedStorage)> and StageCountAutoCarveout<N>"
    )


def smem_static_assert(r: Sm100CollectiveBuilderRecipe, cutlass_label: str) -> str:
    """Where the chain's kernel shell static_asserts SharedStorageSize <= the capacity: the
    one-problem or ptr-array shell, or for a blockwise mainloop the MMA-transform one."""
    grouped = is_grouped(r)
    if r.mainloop[12] in blockwise.KERNEL_SCHEDULES:
        return blockwise.smem_static_assert(cutlass_label, grouped)
    return kernel.smem_static_assert(cutlass_label, False, ptr_array=grouped)


def is_two_sm(r: Sm100CollectiveBuilderRecipe) -> bool:
    """A 2-SM MMA schedule (dense or blockwise; False for one the model does not know)."""
    return bool({**KERNEL_SCHEDULES, **blockwise.KERNEL_SCHEDULES}.get(r.mainloop[12], False))


def tma_misaligned(r: Sm100CollectiveBuilderRecipe) -> str:
    """The A/B alignment no TMA builder specialization takes (cutlint.cutlass.tma), in words; ""
    when aligned or not decided here (a schedule that is no explicit TMA one: KernelScheduleAuto
    may pick the cp.async builder, sm100_cpasync_umma_builder.inl). The dense and blockwise UMMA
    builders ask `sm1xx_gemm_is_aligned`, whose sub-byte rule needs no schedule; the block-scaled
    one `sm1xx_blockscaled_gemm_is_aligned`, whose sub-byte rule holds under an mxf8f6f4
    schedule only (cutlass_library's NVF4/MXF4 kernels align e2m1 to 32 elements, 16 B)."""
    m = r.mainloop
    bits_a, bits_b = tma.element_bits(m[2]), tma.element_bits(m[5])
    if "Tma" not in m[12] or bits_a is None or bits_b is None:
        return ""
    if not (m[4].strip().isdigit() and m[7].strip().isdigit()):
        return ""
    return tma.sm1xx_misaligned((bits_a, int(m[4])), (bits_b, int(m[7])), _subbyte_rule(r))


def _subbyte_rule(r: Sm100CollectiveBuilderRecipe) -> bool:
    block_scaled = "BlockScaled" in r.mainloop[1]
    return not block_scaled or "Mxf8f6f4" in r.mainloop[12]


def tma_plan(r: Sm100CollectiveBuilderRecipe) -> TmaPlan | None:
    """A's and B's tensor maps as far as the chain decides them (cutlint.cutlass.tma)."""
    m = r.mainloop
    if "Tma" not in m[12]:
        return None
    grouped = is_grouped(r)
    return tma.sm1xx_plan((m[2], m[5]), (m[4], m[7]), _subbyte_rule(r), grouped)
