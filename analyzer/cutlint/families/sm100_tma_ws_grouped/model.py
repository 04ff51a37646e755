"""The SM100 / SM103 grouped MoE GEMM that FlashInfer's (TensorRT-LLM's) launcher builds.

The recipe is the Sm100/Sm103 branch of `moe_gemm_tma_ws_launcher.inl`: the MMA tile is the CTA
tile with M doubled for a 2-SM cluster (`Is2SM = cute::size<0>(ClusterShape) == 2`) and K tripled
on SM103; the mainloop comes from `CollectiveBuilder<Sm100|Sm103, OpClass(BlockScaled)TensorOp,
..., StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>, KernelPtrArray...Sm100>`,
the epilogue from the SM100 epilogue builder with a ptr-array TMA or no-smem schedule, and the
kernel is `GemmUniversal` with the SM100 (or SM103) ptr-array kernel shell.

Two computations are kept apart, as for every family: the builder's stage count (its budget)
and the compiler's layout of `GemmKernel::SharedStorage` for that count. The CUTLASS parts are
in cutlint.cutlass.sm100_mainloop / sm100_epilogue / sm100_kernel; this module only decides,
as the launcher does, which parts a macro call selects.

`launcher` is FlashInfer's csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/
launchers/moe_gemm_tma_ws_launcher.inl.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cutlint.cutlass import sm100_epilogue as epi
from cutlint.cutlass import sm100_kernel as kernel
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.cutlass.layout import Block
from cutlint.cutlass.versions import CutlassModel
from cutlint.families.base import family_data
from cutlint.records import ElementType, EpilogueTile, Fusion, MoeGemmArgs, Shape3, StageCount

LAUNCHER = "moe_gemm_tma_ws_launcher.inl"

_C = family_data("cutlint.families.sm100_tma_ws_grouped").constants
# Each constant's source is in data/family.toml beside this file.
TWO_SM_M_FACTOR = _C["two_sm_m_factor"]
SM103_K_FACTOR = _C["sm103_k_factor"]
FP4_EPILOGUE_TILE = (_C["fp4_epilogue_tile_m"], _C["fp4_epilogue_tile_n"])
FP4_EPILOGUE_TILE_CTA_N = _C["fp4_epilogue_tile_cta_n"]
LEGACY_TWO_SM_CLUSTER_M = _C["legacy_two_sm_cluster_m"]

ELEMENT_BITS = {
    ElementType.E2M1: 4,
    ElementType.E4M3: 8,
    ElementType.E5M2: 8,
    ElementType.F16: 16,
    ElementType.BF16: 16,
    ElementType.F32: 32,
}
"""cutlass::sizeof_bits of the launcher's CUTLASS element types (TllmToCutlassTypeAdapter; float
becomes tfloat32_t in the MMA, still 32 bits)."""

EPILOGUE_SCHEDULES = {
    "PtrArrayTmaWarpSpecialized": epi.EpilogueKind.TMA,
    "PtrArrayNoSmemWarpSpecialized": epi.EpilogueKind.NO_SMEM,
}
"""The macro's EpilogueSchedule argument -> the SM10x epilogue the launcher builds
(launcher: IsTmaSM10xEpilogue, EpilogueScheduleSM10x)."""


@dataclass(frozen=True)
class Tactic:
    """The launcher's choices for one macro call, as CUTLASS parts."""

    args: MoeGemmArgs
    cutlass: CutlassModel
    sm: int
    """100 or 103: the arch tag."""
    cta_tile: Shape3
    two_sm: bool
    mainloop: ml.Mainloop
    epilogue: epi.Epilogue
    block_scaled: bool
    legacy: bool = False
    """The 14-parameter launcher of FlashInfer 0.5.x (`legacy_tile`), whose macro tile is the
    cluster's."""


def legacy_tile(a: MoeGemmArgs) -> tuple[Shape3, bool] | str:
    """The MMA tile and 2-SM flag of the 14-parameter launcher (FlashInfer 0.5.2's
    moe_gemm_tma_ws_launcher.inl): `Is2SM = IsBlackwell && cute::size<0>(ClusterShape{}) % 2 == 0`,
    `AtomThrShape = shape_div(ClusterShape, Shape<Is2SM ? _2 : _1, _1, _1>)` and
    `MainloopTileShapeSm100 = EpilogueTileShapeSm100 = shape_div(TileShape, AtomThrShape)`: the
    macro's CTA_M/N/K are the tile of the whole cluster, not of one CTA."""
    two_sm = a.cluster.m % LEGACY_TWO_SM_CLUSTER_M == 0
    atom = (a.cluster.m // (LEGACY_TWO_SM_CLUSTER_M if two_sm else 1), a.cluster.n, a.cluster.k)
    tile = (a.cta_tile.m, a.cta_tile.n, a.cta_tile.k)
    if any(t % d for t, d in zip(tile, atom, strict=True)):
        return f"tile {a.cta_tile} is not divisible by the cluster's atom shape {atom}"
    m, n, k = (t // d for t, d in zip(tile, atom, strict=True))
    return Shape3(m=m, n=n, k=k), two_sm


def mma_tile(a: MoeGemmArgs) -> Shape3:
    """The MMA tile of the launcher (not the 14-parameter one): the CTA tile with M doubled for a
    2-SM cluster and K tripled on SM103. It is the `TileShape` the kernel's `CollectiveMma`
    names, so a built kernel's type shows it (families/kernel_signature.py)."""
    two_sm = a.cluster.m == TWO_SM_M_FACTOR
    return Shape3(
        m=a.cta_tile.m * (TWO_SM_M_FACTOR if two_sm else 1),
        n=a.cta_tile.n,
        k=a.cta_tile.k * (SM103_K_FACTOR if a.sm == 103 else 1),
    )


def tactic(a: MoeGemmArgs, cutlass: CutlassModel, legacy: bool = False) -> Tactic | str:
    """The parts the launcher builds for `a`, or why the model does not cover it. `legacy`: the
    14-parameter launcher of FlashInfer 0.5.x (family.toml [legacy_launcher]), which has no
    epilogue-schedule parameter and always builds the TMA epilogue."""
    if a.sm not in (100, 103):
        return f"arch tag {a.arch_tag} is not an SM100/SM103 tag"
    if a.act_type is None or a.weight_type is None or a.output_type is None or a.fusion is None:
        return "an element type or the fusion is unknown (see the CUT0xx diagnostic)"
    if legacy:
        return _legacy_tactic(a, cutlass)
    kind = EPILOGUE_SCHEDULES.get(a.epilogue_schedule)
    if kind is None:
        return f"epilogue schedule {a.epilogue_schedule} is not one the SM10x launcher builds"
    act, weight, out = a.act_type, a.weight_type, a.output_type
    is_fp4 = act is ElementType.E2M1
    w4a8 = weight is ElementType.E2M1 and act is ElementType.E4M3
    block_scaled = is_fp4 or w4a8 or a.mxfpx
    if act is not weight and not w4a8:
        return f"{act} x {weight}: the TMA WS MoE launcher does not support mixed input types"
    two_sm = a.cluster.m == TWO_SM_M_FACTOR
    if a.cluster.m not in (1, 2) or a.cluster.n != 1 or a.cluster.k != 1:
        return f"cluster {a.cluster}: the model covers 1x1x1 and 2x1x1"
    mma = mma_tile(a)
    act_bits, weight_bits = ELEMENT_BITS[act], ELEMENT_BITS[weight]
    if a.sm == 103:
        if not is_fp4 or a.mxfpx:
            return "SM103 builds only NVFP4 (the ultra VS16 block-scaled schedule)"
        mainloop = ml.Mainloop(
            ml.UmmaKind.SM103_BLOCKSCALED, mma.m, mma.n, mma.k, two_sm, 4, 4, 16, tensormaps=4
        )
    elif block_scaled:
        # launcher: KernelSchedule{1,2}SmSm100BlockScaled = IsMXFPX ? ...Mxf8f6f4Sm100 : ...Nvf4Sm100.
        # MXF8F6F4 stores A and B as uint8_t (builder: ElementAMma_SmemAllocType), SFVec 32;
        # NVF4 keeps the 4-bit elements, SFVec 16.
        if a.mxfpx:
            bits_a = bits_b = 8
            sf_vector = 32
        elif is_fp4:
            bits_a = bits_b = 4
            sf_vector = 16
        else:
            return f"{act} x {weight} without MXFPX: not a block-scaled MMA the model covers"
        mainloop = ml.Mainloop(
            ml.UmmaKind.BLOCKSCALED, mma.m, mma.n, mma.k, two_sm, bits_a, bits_b, sf_vector, 4
        )
    else:
        bits_a, bits_b = (weight_bits, act_bits) if a.swap_ab else (act_bits, weight_bits)
        mainloop = ml.Mainloop(ml.UmmaKind.DENSE, mma.m, mma.n, mma.k, two_sm, bits_a, bits_b)
    if a.fusion is Fusion.ACTIVATION:
        # launcher: ElementD = ElementAct, ActivationElementC = ElementD, always a TMA epilogue
        # (EpilogueScheduleActivation).
        d_bits = act_bits
        c_bits: int | None = act_bits
        kind = epi.EpilogueKind.TMA
    else:
        d_bits = ELEMENT_BITS[out]
        c_bits = None  # launcher: ElementC = void on SM10x
    fusion = epi.FusionStorage.EMPTY
    fusion_bits = 0
    if a.fusion is Fusion.FINALIZE:
        if a.swap_ab:
            fusion, fusion_bits = epi.FusionStorage.ROW_BROADCAST_SCALE, 32
        else:
            fusion, fusion_bits = epi.FusionStorage.ROW_BROADCAST_BIAS, ELEMENT_BITS[out]
    fp4_subtile = a.sm == 100 and is_fp4 and a.cta_tile.n == FP4_EPILOGUE_TILE_CTA_N
    override = FP4_EPILOGUE_TILE if fp4_subtile else None
    epilogue = epi.Epilogue(
        kind=kind,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=c_bits,
        d_bits=d_bits,
        d_void=a.fusion is Fusion.FINALIZE,
        d_m_major=a.swap_ab,
        blockscaled=block_scaled,
        tile_override=override,
        fusion=fusion,
        fusion_bits=fusion_bits,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides"),
    )
    return Tactic(a, cutlass, a.sm, a.cta_tile, two_sm, mainloop, epilogue, block_scaled)


def _legacy_tactic(a: MoeGemmArgs, cutlass: CutlassModel) -> Tactic | str:
    """FlashInfer 0.5.2's Sm100 branch: CollectiveBuilder<Sm100, OpClass(BlockScaled)TensorOp,
    B, A, float, MainloopTileShape, ClusterShape, StageCountAutoCarveout<sizeof(
    CollectiveEpilogue::SharedStorage)>, KernelPtrArrayTmaWarpSpecialized{1,2}Sm{Sm100,Nvf4Sm100,
    Mxf8f6f4Sm100}>; the epilogue CollectiveBuilder with PtrArrayTmaWarpSpecialized{1,2}Sm,
    ElementC = void, D in the output type, EpilogueSubTile 128x64 for FP4 with CTA_N 256 (else
    EpilogueTileAuto); its FINALIZE is another builder (EpilogueMoeFusedFinalizeBuilder)."""
    if a.sm != 100:
        return f"arch tag {a.arch_tag}: the 14-parameter launcher has no SM103 branch"
    if a.fusion is not Fusion.NONE:
        return (
            f"fusion {a.fusion}: the 14-parameter launcher builds FINALIZE with "
            "EpilogueMoeFusedFinalizeBuilder, which the model does not cover"
        )
    shape = legacy_tile(a)
    if isinstance(shape, str):
        return shape
    mma, two_sm = shape
    act, weight, out = a.act_type, a.weight_type, a.output_type
    assert act is not None and weight is not None and out is not None
    is_fp4 = act is ElementType.E2M1
    w4a8 = weight is ElementType.E2M1 and act is ElementType.E4M3
    block_scaled = is_fp4 or w4a8
    if act is not weight and not w4a8:
        return f"{act} x {weight}: the TMA WS MoE launcher does not support mixed input types"
    if block_scaled:
        # launcher: KernelSchedule{1,2}SmSm100BlockScaled = IsMXFPX ? ...Mxf8f6f4Sm100 :
        # ...Nvf4Sm100 (MXF8F6F4 stores A and B as uint8_t, SFVec 32; NVF4 keeps 4 bits, SFVec 16)
        bits, sf_vector = (8, 32) if a.mxfpx else (4, 16)
        if not a.mxfpx and not is_fp4:
            return f"{act} x {weight} without MXFPX: not a block-scaled MMA the model covers"
        mainloop = ml.Mainloop(
            ml.UmmaKind.BLOCKSCALED, mma.m, mma.n, mma.k, two_sm, bits, bits, sf_vector, 4
        )
    else:
        # "A & B swapped here": the builder's A is the weight, its B the activation
        mainloop = ml.Mainloop(
            ml.UmmaKind.DENSE, mma.m, mma.n, mma.k, two_sm, ELEMENT_BITS[weight], ELEMENT_BITS[act]
        )
    fp4_subtile = is_fp4 and a.cta_tile.n == FP4_EPILOGUE_TILE_CTA_N
    epilogue = epi.Epilogue(
        kind=epi.EpilogueKind.TMA,
        mma_m=mma.m,
        mma_n=mma.n,
        two_sm=two_sm,
        c_bits=None,  # launcher: EpilogueElementC = ElementC = void off SM120
        # ElementD = OutputTypeAdaptor_t<OutputType>: bf16 for an FP8 output, else the output
        d_bits=ELEMENT_BITS[out] if out is not ElementType.E4M3 else ELEMENT_BITS[ElementType.BF16],
        d_void=False,
        # DefaultEpilogue::LayoutD = TransposeLayoutTag<RowMajor>, column-major: what 0.5.3 on builds
        # with SwapAB on (LayoutD_T), A and B swapped as there
        d_m_major=True,
        blockscaled=block_scaled,
        tile_override=FP4_EPILOGUE_TILE if fp4_subtile else None,
        n_divides=cutlass.has("sm100_epilogue_tile_n_divides"),
    )
    cta = Shape3(m=mma.m // (TWO_SM_M_FACTOR if two_sm else 1), n=mma.n, k=mma.k)
    return Tactic(a, cutlass, a.sm, cta, two_sm, mainloop, epilogue, block_scaled, legacy=True)


def with_tile(t: Tactic, tile: Shape3) -> Tactic | None:
    """The same macro call with another CTA tile (None when the model does not cover it). For
    the 14-parameter launcher `tile` is the macro's (the cluster's) tile."""
    other = tactic(t.args.model_copy(update={"cta_tile": tile}), t.cutlass, t.legacy)
    return other if isinstance(other, Tactic) else None


def with_other_epilogue(t: Tactic) -> Tactic | None:
    """The same macro call with the other SM10x epilogue schedule (TMA <-> no-smem); None for
    ACTIVATION, which always builds the TMA epilogue, and for the 14-parameter launcher, which
    has no other."""
    if t.args.fusion is Fusion.ACTIVATION or t.legacy:
        return None
    names = {v: k for k, v in EPILOGUE_SCHEDULES.items()}
    other_kind = (
        epi.EpilogueKind.NO_SMEM
        if t.epilogue.kind is epi.EpilogueKind.TMA
        else epi.EpilogueKind.TMA
    )
    other = tactic(t.args.model_copy(update={"epilogue_schedule": names[other_kind]}), t.cutlass)
    return other if isinstance(other, Tactic) else None


def epilogue_shared_storage(t: Tactic) -> Block:
    return _epilogue_shared_storage(t.epilogue)


def epilogue_shape(t: Tactic) -> EpilogueTile:
    return epi.tile_shape(t.epilogue)


# The layouts below depend only on the arch tag, the mainloop, the epilogue and CUTLASS, not on
# the rest of the macro call: a cache's f16 and bf16 outputs, its fusions and the variants of one
# tactic (K / 2, the other epilogue) share them, so each is laid out once per run.


@cache
def _epilogue_shared_storage(e: epi.Epilogue) -> Block:
    return epi.shared_storage(e)


def stage_count(t: Tactic, cutlass: CutlassModel) -> StageCount:
    return _stage_count(t.mainloop, t.epilogue, cutlass)


@cache
def _stage_count(m: ml.Mainloop, e: epi.Epilogue, cutlass: CutlassModel) -> StageCount:
    return ml.stage_count(m, _epilogue_shared_storage(e).size, cutlass)


def shell(t: Tactic, cutlass: CutlassModel) -> kernel.KernelShell:
    return _shell(t.sm, t.mainloop, cutlass)


def _shell(sm: int, m: ml.Mainloop, cutlass: CutlassModel) -> kernel.KernelShell:
    return kernel.shell(sm == 103, ml.accumulator_stages(m), cutlass)


def sf_stages(t: Tactic) -> int | None:
    """The SM103 mainloop's scale-factor stages (None: the same as the AB stages)."""
    return _sf_stages(t.mainloop, t.epilogue)


@cache
def _sf_stages(m: ml.Mainloop, e: epi.Epilogue) -> int | None:
    if m.kind is not ml.UmmaKind.SM103_BLOCKSCALED:
        return None
    return ml.sm103_sf_stages(m, _epilogue_shared_storage(e).size)


def mainloop_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return _mainloop_shared_storage(t.mainloop, t.epilogue, stages, cutlass)


@cache
def _mainloop_shared_storage(
    m: ml.Mainloop, e: epi.Epilogue, stages: int, cutlass: CutlassModel
) -> Block:
    return ml.shared_storage(m, stages, _sf_stages(m, e))


def kernel_members(t: Tactic, stages: int, cutlass: CutlassModel) -> list[Block]:
    """The members of `GemmKernel::SharedStorage` (sm100_kernel.shared_storage_members)."""
    return list(_kernel_members(t.sm, t.mainloop, t.epilogue, stages, cutlass))


@cache
def _kernel_members(
    sm: int, m: ml.Mainloop, e: epi.Epilogue, stages: int, cutlass: CutlassModel
) -> tuple[Block, ...]:
    sf = _sf_stages(m, e)
    return tuple(
        kernel.shared_storage_members(
            _shell(sm, m, cutlass),
            mainloop_tensors=ml.tensor_storage(m, stages, sf),
            mainloop_maps=ml.tensormap_storage(m),
            mainloop_pipeline=ml.pipeline(m, stages, sf),
            epilogue_tensors=epi.tensor_storage(e),
            epilogue_maps=epi.tensormap_storage(e),
            epi_load_pipeline=epi.pipeline(e),
        )
    )


def kernel_shared_storage(t: Tactic, stages: int, cutlass: CutlassModel) -> Block:
    return _kernel_shared_storage(t.sm, t.mainloop, t.epilogue, stages, cutlass)


@cache
def _kernel_shared_storage(
    sm: int, m: ml.Mainloop, e: epi.Epilogue, stages: int, cutlass: CutlassModel
) -> Block:
    return kernel.shared_storage(
        list(_kernel_members(sm, m, e, stages, cutlass)), _shell(sm, m, cutlass)
    )


def max_threads_per_block(t: Tactic, cutlass: CutlassModel) -> int:
    return kernel.max_threads_per_block(shell(t, cutlass))


def tma_descriptors(t: Tactic, cutlass: CutlassModel) -> int:
    """Tensormaps in shared memory: one set per tensormap-updater warp and one more (kernel),
    each the mainloop's (A, B, SFA, SFB) and the TMA epilogue's (C, D)."""
    per_set = t.mainloop.tensormaps + (2 if t.epilogue.kind is epi.EpilogueKind.TMA else 0)
    return shell(t, cutlass).tensormap_sets * per_set


def tmem_columns(t: Tactic) -> ml.TmemColumns | None:
    epi_n = epilogue_shape(t).n
    return ml.tmem_columns(t.mainloop, epi_n)
