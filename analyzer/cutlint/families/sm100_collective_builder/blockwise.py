"""The blockwise-scaled SM100 chains: `KernelPtrArrayTmaWarpSpecializedBlockwise{1,2}SmSm100`
(cutlass_library's `cutlass3x_sm100_tensorop_gemm_grouped_<gM>x<gK>f32xe4m3_...` kernels) and the
one-problem `KernelTmaWarpSpecializedBlockwise{1,2}SmSm100`.

The mainloop builder (`sm100_blockwise_umma_builder.inl`, BW_BUILDER) takes A and B layouts as
`cute::tuple<Tag[*], LayoutSF[*]>`, LayoutSF an alias of `decltype(Config::deduce_layoutSF?())`
with Config = `cutlass::detail::Sm100BlockwiseScaleConfig<SFVecSizeM, SFVecSizeN, SFVecSizeK>`:
the scale granularity, which this module reads off the chain (syntax) and turns, with the
builder's `static_assert`s, into the shared blockwise UMMA mainloop
(cutlint.cutlass.sm100_mainloop, `UmmaKind.BLOCKWISE`: the ptr-array
`sm100_mma_array_warpspecialized_blockwise_scaling.hpp` or the one-problem
`sm100_mma_warpspecialized_blockwise_scaling.hpp`) that FlashInfer's JIT family uses too. The
kernel shell is the MMA-transform one (`sm100_gemm_[array_]tma_warpspecialized_mma_transform.hpp`).
Header paths are relative to CUTLASS's include/.
"""

from __future__ import annotations

import re

from cutlint.cutlass import sm100_kernel as kernel
from cutlint.cutlass import sm100_mainloop as ml
from cutlint.records import Instantiation, Shape3

SCALE_CONFIG = "cutlass::detail::Sm100BlockwiseScaleConfig"
BW_BUILDER = ml.BW_BUILDER
SCALE_LAYOUT = ml.BW_SCALE

KERNEL_SCHEDULES = {
    "cutlass::gemm::KernelPtrArrayTmaWarpSpecializedBlockwise1SmSm100": False,
    "cutlass::gemm::KernelPtrArrayTmaWarpSpecializedBlockwise2SmSm100": True,
    "cutlass::gemm::KernelTmaWarpSpecializedBlockwise1SmSm100": False,
    "cutlass::gemm::KernelTmaWarpSpecializedBlockwise2SmSm100": True,
}
"""cutlass/gemm/dispatch_policy.hpp: the blockwise schedules (KernelScheduleSm100Blockwise, the
ptr-array ones KernelScheduleSm100PtrArrayBlockwise) -> is_2sm (BW_BUILDER: is_base_of_v<
KernelSchedule2Sm, BuilderScheduleTag>)."""
OPERANDS = (
    ("cutlass::float_e4m3_t", "cutlass::float_e4m3_t"),
    ("cutlass::float_e4m3_t", "cutlass::float_e5m2_t"),
    ("cutlass::float_e5m2_t", "cutlass::float_e4m3_t"),
    ("cutlass::float_e5m2_t", "cutlass::float_e5m2_t"),
)
"""The FP8 operands cutlass_library builds blockwise kernels of (generator.py:
GenerateSM100_TensorOp_fp8_UMMA_gemm_with_blockwise) and the compiler truth holds."""
OPERAND_BITS = 8
SCALE_ELEMENT = "float"
"""BW_BUILDER: the scales are ElementAccumulator (`ArrayEngine<ElementAccumulator, cosize_v<
SmemLayoutScaleA>> smem_SFA`); the stage count's scale_bits is its sizeof_bits (32)."""
TRANSFORM_SMEM_STATIC_ASSERT = {
    "4.2.0": (f"{kernel.KS_TRANSFORM}:219", f"{kernel.KS_ARRAY_TRANSFORM}:237"),
}
"""The MMA-transform shells' `static_assert(SharedStorageSize <= sm100_smem_capacity_bytes, "SMEM
usage exceeded capacity.")` (one problem, ptr-array), at class scope, per release read."""
MMA_ATOM_K = 32
"""cute/atom/mma_traits_sm100.hpp: the f8f6f4 UMMA atom's K is 32 elements; the blockwise mainloop
static_asserts `ScaleGranularityK % size<2>(TiledMma::AtomShape_MNK) == 0`."""

_TUPLE = re.compile(r"^cute::tuple<\s*([^,]+?)\s*,\s*(\w+)\s*\*?\s*>$")
_DEDUCE = re.compile(r"^decltype\(\s*(\w+)::deduce_layoutSF([AB])\(\)\s*\)$")


def _config(inst: Instantiation, layout: str, operand: str) -> tuple[int, int, int] | None:
    m = _TUPLE.match(" ".join(layout.split()))
    sf = inst.alias(m[2]) if m else None
    deduce = _DEDUCE.match(sf.target.replace(" ", "")) if sf is not None else None
    cfg = inst.alias(deduce[1]) if deduce is not None and deduce[2] == operand else None
    if cfg is None or cfg.target != SCALE_CONFIG or cfg.args is None or len(cfg.args) != 3:
        return None
    try:
        gm, gn, gk = (int(a) for a in cfg.args)
    except ValueError:
        return None
    return gm, gn, gk


def scale_granularity(inst: Instantiation, mainloop_args: tuple[str, ...]) -> Shape3 | None:
    """(ScaleGranularityM, N, K) as BW_BUILDER reads them: size<0,0>(LayoutSFA),
    size<0,0>(LayoutSFB), size<1,0>(LayoutSFB), here from the one Sm100BlockwiseScaleConfig<M, N, K>
    whose deduce_layoutSFA / deduce_layoutSFB the A and B layout tuples name (cutlass_library's
    `<kernel>_LayoutSFA`, `_LayoutSFB`); None: not that form (default MN-major scale layouts)."""
    a = _config(inst, mainloop_args[3], "A")
    b = _config(inst, mainloop_args[6], "B")
    if a is None or b is None or a != b:
        return None
    return Shape3(m=a[0], n=a[1], k=a[2])


def mainloop(
    schedule: str,
    a: str,
    b: str,
    accumulator: str,
    tile: Shape3,
    granularity: Shape3 | None,
    grouped: bool,
) -> ml.Mainloop | str:
    """The blockwise UMMA mainloop BW_BUILDER builds, or why the model does not cover the chain
    (a chain that trips one of the builder's or mainloop's static_asserts is not modeled: nvcc
    rejects it)."""
    two_sm = KERNEL_SCHEDULES[schedule]
    if (a, b) not in OPERANDS:
        return f"A x B = {a} x {b}: the blockwise model covers e4m3 and e5m2 operands"
    if accumulator != SCALE_ELEMENT:
        return (
            f"ElementAccumulator {accumulator}: the blockwise model covers float (the scales' type)"
        )
    if granularity is None:
        return (
            "scale granularity: the A and B layouts are not `cute::tuple<Tag, LayoutSF>` over "
            f"one {SCALE_CONFIG}<M, N, K>::deduce_layoutSFA / deduce_layoutSFB"
        )
    if two_sm and tile.m % 2:
        return f"tile {tile} with a 2-SM schedule: the MMA tile M must be even"
    cta = Shape3(m=tile.m // 2 if two_sm else tile.m, n=tile.n, k=tile.k)
    g = granularity
    if min(g.m, g.n, g.k) < 1 or cta.m < g.m or cta.n < g.n or cta.k < g.k:
        return (
            f"scale granularity {g} on the CTA tile {cta}: BW_BUILDER static_asserts "
            '"Scale Granularity must be smaller than or equal to the tile shape"'
        )
    if g.k % MMA_ATOM_K:
        return (
            f"scale granularity K {g.k}: {ml.BW_ML_ARRAY if grouped else ml.BW_ML} static_asserts "
            f'"Scale Granularity K must be divisible by MMA_K" ({MMA_ATOM_K})'
        )
    return ml.Mainloop(
        ml.UmmaKind.BLOCKWISE,
        tile.m,
        tile.n,
        tile.k,
        two_sm,
        OPERAND_BITS,
        OPERAND_BITS,
        ptr_array=grouped,
        scale_granularity=(g.m, g.n, g.k),
    )


def smem_static_assert(cutlass_label: str, grouped: bool) -> str:
    """Where the MMA-transform shell asserts its SharedStorageSize, for the CUTLASS release."""
    where = TRANSFORM_SMEM_STATIC_ASSERT.get(cutlass_label)
    if where is not None:
        return where[1] if grouped else where[0]
    header = kernel.KS_ARRAY_TRANSFORM if grouped else kernel.KS_TRANSFORM
    return f"{header}: static_assert(SharedStorageSize <= sm100_smem_capacity_bytes)"
