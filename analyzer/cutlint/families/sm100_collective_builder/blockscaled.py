"""The parts an SM100 block-scaled CollectiveBuilder chain selects (`OpClassBlockScaledTensorOp`).

cutlass_library's `cutlass3x_sm100_bstensorop_*` kernels: MXF8F6F4, MXF4 and NVF4 block-scaled
UMMA mainloops (`sm100_blockscaled_umma_builder.inl` -> `MainloopSm100TmaUmmaWarpSpecialized
BlockScaled`, `sm100_blockscaled_mma_warpspecialized.hpp`, or its ptr-array sibling
`sm100_blockscaled_mma_array_warpspecialized.hpp` for a `GroupProblemShape`), 1-SM and 2-SM, with
the SM100 epilogue builder's TMA and no-smem epilogues (EpilogueTileAuto or an explicit
`cute::Shape<M, N>` tile), `LinearCombination` or
`LinCombBlockScaleFactor` (a row-major scale-factor output: `Sm100BlockScaleFactorRowStore`, whose
SharedStorage is empty). The CUTLASS parts are the shared cutlint.cutlass.sm100_mainloop
(`UmmaKind.BLOCKSCALED`: A, B, SFA and SFB per stage, the builder's
`sm100_compute_stage_count_or_override_blockscaled`, TMEM columns of the accumulators and the scale
factors), sm100_epilogue and sm100_kernel; this module only decides, as the builders do, which
parts the chain's arguments select. Header paths are relative to CUTLASS's include/.
"""

from __future__ import annotations

import re

from cutlint.cutlass import sm90_evt
from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.alias_args import static_extents
from cutlint.families.base import family_data, family_toml
from cutlint.families.sm100_collective_builder import model
from cutlint.families.sm100_collective_builder.recipe import (
    Sm100CollectiveBuilderRecipe,
    is_grouped,
    is_pointer,
)

SM1XX = "cutlass/gemm/collective/builders/sm1xx_common.inl"
OP_CLASS = "cutlass::arch::OpClassBlockScaledTensorOp"

_C = family_data(model.PACKAGE).constants
# Each constant's source is in data/family.toml beside this file.
AUTO_EPILOGUE_2SM_TILE_M = _C["blockscaled_auto_epilogue_2sm_tile_m"]
RC_GROUP_CUTLASS: tuple[str, ...] = tuple(
    family_toml(model.PACKAGE)["covered_cutlass"]["blockscaled_ptr_array"]
)
"""The releases whose block-scaled builder decides a grouped GEMM by A's and B's layouts
(SM100_BLOCKSCALED_UMMA_BUILDER: IsGroupGemm = both pointers, IsRCGroupGemm = B alone), as the
model follows them (family.toml). Before, IsGroupGemm is A's alone (4.2.0)."""
GROUP_SCHEDULER = "cutlass::gemm::GroupScheduler"
"""cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized.hpp: TileSchedulerTag =
conditional_t<IsGroupedGemmKernel, GroupScheduler, TileSchedulerTag_> (a grouped kernel's
scheduler is the group scheduler whatever the chain names)."""

INSTRUCTIONS = {
    "Nvf4": (16, False),
    "Mxf4": (32, False),
    "Mxf8f6f4": (32, True),
}
"""The schedule's instruction -> (SFVecSize, UseMxf8f6f4). SM1XX find_vector_size: 16 for the
Nvf4 schedules, 32 for the Mxf4 and Mxf8f6f4 ones; SM100_BLOCKSCALED_UMMA_BUILDER: `UseMxf8f6f4 = Instr == MXF4F6F8`, and
then `ElementAMma_SmemAllocType = uint8_t` (every operand takes a byte in shared memory)."""
_SCHEDULE = re.compile(
    r"^cutlass::gemm::Kernel(PtrArray)?TmaWarpSpecialized([12])Sm(Nvf4|Mxf4|Mxf8f6f4)Sm100$"
)
"""`KernelTmaWarpSpecialized{1,2}Sm{Nvf4,Mxf4,Mxf8f6f4}Sm100` and their `KernelPtrArray...`
(cutlass/gemm/dispatch_policy.hpp): the schedules that fix the instruction; SM100_BLOCKSCALED_UMMA_BUILDER: `is_2sm` from the
schedule, `IsArrayOfPointersGemm` from the ptr-array base."""

DATA_BITS = {
    "cutlass::float_e2m1_t": 4,
    "cutlass::type_erased_dynamic_float4_t": 4,
    "cutlass::float_e2m3_t": 6,
    "cutlass::float_e3m2_t": 6,
    "cutlass::type_erased_dynamic_float6_t": 6,
    "cutlass::float_e4m3_t": 8,
    "cutlass::float_e5m2_t": 8,
}
"""cute::sizeof_bits of the block-scaled data types (cutlass/float_subbyte.h, float8.h)."""
SCALE_FACTORS = ("cutlass::float_ue8m0_t", "cutlass::float_ue4m3_t")
"""ElementSF: one byte each (cutlass/float8.h, float_subbyte.h)."""
_WRAPPERS = {
    "cutlass::nv_float4_t": "cutlass::float_ue4m3_t",
    "cutlass::mx_float4_t": "cutlass::float_ue8m0_t",
    "cutlass::mx_float6_t": "cutlass::float_ue8m0_t",
    "cutlass::mx_float8_t": "cutlass::float_ue8m0_t",
}
"""SM1XX blockscaled_type: the wrapper types name their scale factor."""

OUTPUT_BITS = {
    "cutlass::float_e2m1_t": 4,
    "cutlass::float_e2m3_t": 6,
    "cutlass::float_e3m2_t": 6,
    "cutlass::float_e4m3_t": 8,
    "cutlass::float_e5m2_t": 8,
    "cutlass::half_t": 16,
    "cutlass::bfloat16_t": 16,
    "float": 32,
}
"""ElementC / ElementD the model covers, with their cute::sizeof_bits."""

EPILOGUE_SCHEDULES = {
    "cutlass::epilogue::TmaWarpSpecialized1Sm": (epi.EpilogueKind.TMA, False, False),
    "cutlass::epilogue::TmaWarpSpecialized2Sm": (epi.EpilogueKind.TMA, True, False),
    "cutlass::epilogue::NoSmemWarpSpecialized1Sm": (epi.EpilogueKind.NO_SMEM, False, False),
    "cutlass::epilogue::NoSmemWarpSpecialized2Sm": (epi.EpilogueKind.NO_SMEM, True, False),
    "cutlass::epilogue::PtrArrayTmaWarpSpecialized1Sm": (epi.EpilogueKind.TMA, False, True),
    "cutlass::epilogue::PtrArrayTmaWarpSpecialized2Sm": (epi.EpilogueKind.TMA, True, True),
    "cutlass::epilogue::PtrArrayNoSmemWarpSpecialized1Sm": (epi.EpilogueKind.NO_SMEM, False, True),
    "cutlass::epilogue::PtrArrayNoSmemWarpSpecialized2Sm": (epi.EpilogueKind.NO_SMEM, True, True),
}
"""The epilogue schedule -> (collective, 2-SM, ptr-array): SM100_EPILOGUE_BUILDER sm100_dense_dispatch_policy
(Sm100[PtrArray]TmaWarpSpecialized, Sm100[PtrArray]NoSmemWarpSpecialized)."""
_BLOCK_SCALE_FACTOR = re.compile(
    r"^cutlass::epilogue::fusion::LinCombBlockScaleFactor<\s*[0-9]+\s*,[^,]+,[^,]+,[^,]+,\s*"
    r"cutlass::layout::RowMajor\s*,"
)
"""`LinCombBlockScaleFactor<SFVecSize, ElementOutput, ElementCompute, ElementBlockScaleFactor,
RowMajor, ...>` (cutlass/epilogue/fusion/sm100_callbacks_tma_warpspecialized.hpp: an Sm90EVT of
`Sm100BlockScaleFactorRowStore`, `struct SharedStorage { }`, over Sm90LinearCombination)."""

KERNEL_SCHEDULES = {
    f"cutlass::gemm::Kernel{pa}TmaWarpSpecialized{n}Sm{i}Sm100": n == 2
    for pa in ("", "PtrArray")
    for n in (1, 2)
    for i in INSTRUCTIONS
}
"""Every block-scaled schedule the model covers -> is_2sm."""


def element(pair: str) -> tuple[str, str] | None:
    """(data type, scale-factor type) of a builder's ElementPair: `cute::tuple<T, SF>` or a
    wrapper (`cutlass::nv_float4_t<T>`, `mx_float{4,6,8}_t<T>`), as SM1XX blockscaled_type reads
    it; None for anything else."""
    p = pair.replace(" ", "")
    if p.startswith("cute::tuple<") and p.endswith(">"):
        parts = p[len("cute::tuple<") : -1].split(",")
        return (parts[0], parts[1]) if len(parts) == 2 else None
    for wrapper, sf in _WRAPPERS.items():
        if p.startswith(wrapper + "<") and p.endswith(">"):
            return p[len(wrapper) + 1 : -1], sf
    return None


def auto_epilogue_is_2sm(r: Sm100CollectiveBuilderRecipe) -> bool:
    """SM100_EPILOGUE_BUILDER, the EpilogueScheduleAuto builder: for OpClassBlockScaledTensorOp is_2sm() = a static,
    even ClusterShape M and an MMA tile M of 256 (a dynamic cluster gives TmaWarpSpecialized1Sm)."""
    return r.cluster is not None and r.cluster.m % 2 == 0 and r.tile.m == AUTO_EPILOGUE_2SM_TILE_M


def _group_layouts(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> bool | str:
    """For a grouped chain, whether it is an RC grouped GEMM (A one tensor, B a pointer per
    group), or why the model does not cover its layouts. SM100_BLOCKSCALED_UMMA_BUILDER: since
    the RC grouped GEMM (RC_GROUP_CUTLASS) IsGroupGemm = A and B pointers, IsRCGroupGemm = B alone
    (MainloopSm100RCGroupGemmTmaUmmaWarpSpecializedBlockScaled); before, IsGroupGemm = A a pointer."""
    a_ptr, b_ptr = is_pointer(r.mainloop[3]), is_pointer(r.mainloop[6])
    if cutlass.label in RC_GROUP_CUTLASS:
        if not b_ptr:
            return (
                f"layouts {r.mainloop[3]}, {r.mainloop[6]} of a grouped chain: CUTLASS "
                f"{cutlass.label} groups by B's layout (IsGroupGemm, IsRCGroupGemm); the model "
                "covers B as a pointer"
            )
        return not a_ptr
    if not (a_ptr and b_ptr):
        return (
            f"layouts {r.mainloop[3]}, {r.mainloop[6]} of a grouped chain on CUTLASS "
            f"{cutlass.label}: the model covers A and B both pointers there (the RC grouped GEMM, "
            f"A one tensor, is modeled for CUTLASS {', '.join(RC_GROUP_CUTLASS)})"
        )
    return False


def _mainloop(
    r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel
) -> tuple[ml.Mainloop, bool] | str:
    m = r.mainloop
    schedule = _SCHEDULE.match(m[12])
    if schedule is None:
        return (
            f"kernel schedule {m[12]}: the model covers Kernel[PtrArray]TmaWarpSpecialized{{1,2}}Sm"
            "{Nvf4,Mxf4,Mxf8f6f4}Sm100 (sm100_blockscaled_umma_builder.inl)"
        )
    ptr_array, two_sm = schedule[1] is not None, schedule[2] == "2"
    sf_vector, mxf8f6f4 = INSTRUCTIONS[schedule[3]]
    grouped = is_grouped(r)
    if grouped != ptr_array:
        return (
            f"problem shape {r.problem_shape} with kernel schedule {m[12]}: the model covers a "
            "GroupProblemShape or MoEProblemShape with a ptr-array schedule, or one problem without"
        )
    rc_group = _group_layouts(r, cutlass) if grouped else False
    if isinstance(rc_group, str):
        return rc_group
    pairs = (element(m[2]), element(m[5]))
    bits: list[int] = []
    for pair, arg in zip(pairs, (m[2], m[5]), strict=True):
        if pair is None or pair[0] not in DATA_BITS or pair[1] not in SCALE_FACTORS:
            return (
                f"operand {arg}: the model covers cute::tuple<T, SF> (or nv_float4_t / "
                f"mx_float{{4,6,8}}_t) of {', '.join(DATA_BITS)} with ue8m0 or ue4m3 scales"
            )
        bits.append(8 if mxf8f6f4 else DATA_BITS[pair[0]])
    if not mxf8f6f4 and bits != [4, 4]:
        return f"A x B = {m[2]} x {m[5]} with {m[12]}: MXF4 / NVF4 take 4-bit A and B only"
    if m[8] != "float":
        return f"ElementAccumulator {m[8]}: the model covers float"
    mainloop = ml.Mainloop(
        ml.UmmaKind.BLOCKSCALED,
        r.tile.m,
        r.tile.n,
        r.tile.k,
        two_sm,
        bits[0],
        bits[1],
        sf_vector=sf_vector,
        tensormaps=4,  # SM100_BLOCKSCALED_UMMA_BUILDER: "4 Tensor maps for A, SFA, B and SFB"
        ptr_array=ptr_array,
        rc_group=rc_group,
    )
    return mainloop, two_sm


def _epilogue(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> epi.Epilogue | str:
    e = r.epilogue
    grouped = is_grouped(r)
    if e[0] != "cutlass::arch::Sm100" or e[1] not in (OP_CLASS, "cutlass::arch::OpClassTensorOp"):
        return f"epilogue builder {e[0]}, {e[1]}: the model covers the Sm100 block-scaled or TensorOp one"
    tile_override = None
    if e[4] != model.EPILOGUE_TILE_AUTO:
        # SM100_EPILOGUE_BUILDER sm100_dense_compute_tile_shape_or_override: an explicit cute::Shape<M, N> is the tile
        extents = static_extents(e[4])
        if extents is None or len(extents) != 2 or extents[1] % 8:
            return f"epilogue tile {e[4]}: the model covers EpilogueTileAuto and a static cute::Shape<M, N>"
        tile_override = (extents[0], extents[1])
    fusion = e[14]
    evt: Block | None = None
    if sm90_evt.is_tree(fusion):
        tree = sm90_evt.storage(fusion, r.tile.n, model.EVT_ELEMENT_BYTES)
        if isinstance(tree, str):
            return f"fusion {fusion}: {tree}"
        evt = tree
    elif not (fusion.startswith(model.LINEAR_COMBINATION) or _BLOCK_SCALE_FACTOR.match(fusion)):
        return (
            f"fusion {fusion}: the model covers LinearCombination, LinCombBlockScaleFactor with "
            "a row-major scale-factor output (empty FusionCallbacks storages) and epilogue "
            "visitor trees (Sm90EVT)"
        )
    if e[13] == model.EPILOGUE_AUTO:
        kind, epi_2sm, ptr_array = epi.EpilogueKind.TMA, auto_epilogue_is_2sm(r), False
    elif e[13] in EPILOGUE_SCHEDULES:
        kind, epi_2sm, ptr_array = EPILOGUE_SCHEDULES[e[13]]
    else:
        return (
            f"epilogue schedule {e[13]}: the model covers [PtrArray]{{Tma,NoSmem}}WarpSpecialized"
            "{1,2}Sm and EpilogueScheduleAuto"
        )
    if ptr_array != grouped:
        return f"epilogue schedule {e[13]} with problem shape {r.problem_shape}: ptr-array schedules go with a GroupProblemShape"
    c_void = e[7] == "void"
    if e[10] not in OUTPUT_BITS or (not c_void and e[7] not in OUTPUT_BITS):
        return f"C, D = {e[7]}, {e[10]}: the model covers void C and {', '.join(OUTPUT_BITS)}"
    layout_c, layout_d = (x.replace(" ", "").removesuffix("*") for x in (e[8], e[11]))
    if layout_d not in (model.COLUMN_MAJOR, model.ROW_MAJOR) or (
        not c_void and layout_c != layout_d
    ):
        return f"C, D layouts {e[8]}, {e[11]}: the model covers one row- or column-major layout"
    d_fp6 = OUTPUT_BITS[e[10]] == 6
    return epi.Epilogue(
        kind=kind,
        mma_m=r.tile.m,
        mma_n=r.tile.n,
        two_sm=epi_2sm,
        c_bits=None if c_void else OUTPUT_BITS[e[7]],
        d_bits=8 if d_fp6 else OUTPUT_BITS[e[10]],
        d_void=False,
        d_m_major=layout_d == model.COLUMN_MAJOR,
        blockscaled=e[1] == OP_CLASS,
        tile_override=tile_override,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides"),
        fusion_operation=True,
        ptr_array=ptr_array,
        d_fp6=d_fp6,
        evt=evt,
    )


def tactic_of(r: Sm100CollectiveBuilderRecipe, cutlass: CutlassModel) -> model.Tactic | str:
    """The parts the block-scaled builder and the epilogue builder select for `r`, or why the
    model does not cover the chain."""
    if r.mainloop[1] != OP_CLASS:
        return f"mainloop OpClass {r.mainloop[1]}: not the block-scaled builder"
    got = _mainloop(r, cutlass)
    if isinstance(got, str):
        return got
    mainloop, two_sm = got
    grouped = is_grouped(r)
    if r.tile_scheduler not in model.TILE_SCHEDULERS and not (
        grouped and r.tile_scheduler == GROUP_SCHEDULER
    ):
        return (
            f"tile scheduler {r.tile_scheduler}: the model covers void, PersistentScheduler and "
            "StreamKScheduler (and GroupScheduler for a grouped chain)"
        )
    epilogue = _epilogue(r, cutlass)
    if isinstance(epilogue, str):
        return epilogue
    carveout = model.carveout_of(r)
    if isinstance(carveout, str):
        return carveout
    return model.Tactic(mainloop, epilogue, carveout, recipe=r, two_sm=two_sm)
