"""The SM90 epilogue CollectiveBuilder's choices for a TMA warp-specialized epilogue
(`cutlass/epilogue/collective/builders/sm90_builder.inl`, SM90_EPILOGUE_BUILDER): the epilogue subtile
(`EpilogueTileAuto`), the C and D buffer counts and whether C and D share their buffers.

One function for every SM90 TMA epilogue that cutlint lays out: the ptr-array schedules of the
grouped kernels (`PtrArrayTmaWarpSpecialized{Cooperative,Pingpong}`) and the single-problem
schedules `TmaWarpSpecialized` and `TmaWarpSpecializedCooperative`. Unchanged between CUTLASS
4.2.0 and 4.5.0.
"""

from __future__ import annotations

import math

from cutlint.cutlass.epilogue import swizzle_align
from cutlint.cutlass.headers import SM90_EPILOGUE_BUILDER
from cutlint.records import EpilogueTile

# SM90_EPILOGUE_BUILDER: sm90_compute_tile_shape_or_override, EpilogueTileAuto: cooperative schedules take
# min(_128, M) x gcd(min(_32, N), N); warp-specialized ones (pingpong, basic) min(_64, M) x
# gcd(min(N_perf, N), N), N_perf = 64 for an 8-bit ElementD with N % 64 == 0, else 32.
COOPERATIVE_EPI_M = 128
WARP_SPECIALIZED_EPI_M = 64
EPI_N = 32
EPI_N_8BIT = 64
# SM90_EPILOGUE_BUILDER: sm90_get_tma_dispatch_policy: StagesD = min(EpiTiles, 2); StagesC = min(EpiTiles, 4)
# (with ReuseSmem at least StagesD + 1)
MAX_STAGES_D = 2
MAX_STAGES_C = 4


def sm90_epilogue_tile(
    *,
    tile_m: int,
    tile_n: int,
    cooperative: bool,
    c_bits: int | None,
    d_bits: int,
    c_m_major: bool,
    d_m_major: bool,
    explicit: tuple[int, int] | None = None,
) -> EpilogueTile:
    """SM90_EPILOGUE_BUILDER: the epilogue subtile, StagesC, StagesD and ReuseSmemC for `EpilogueTileAuto`, or for
    an explicit `cute::Shape<_M, _N>` (`explicit`, as (M, N)): SM90_EPILOGUE_BUILDER's
    sm90_compute_tile_shape_or_override returns it as written (its static_asserts, M 128 for a
    cooperative schedule and 64 for a warp-specialized one, N % 16 == 0, are the caller's to
    check), and the buffer counts follow from it as from the automatic one.

    `c_bits` None: ElementC is void (sizeof_bits 0, so ReuseSmem is false). `d_bits` is the width
    of the (non-void) ElementD. ReuseSmem = sizeof_bits<C> == sizeof_bits<D> && sizeof_bits<D> > 8.
    The C and D buffers' swizzle atoms come from `sm90_get_epilogue_smem_swizzle_layout_atom`
    (ss_smem_selector MN-major for a column-major C/D, K-major for row-major): their alignment is
    that of the widest atom dividing the contiguous extent of the subtile; a void C takes D's
    element type and layout.
    """
    if explicit is not None:
        epi_m, epi_n = explicit
    elif cooperative:
        epi_m = min(COOPERATIVE_EPI_M, tile_m)
        epi_n = math.gcd(min(EPI_N, tile_n), tile_n)
    else:
        n_perf = EPI_N_8BIT if d_bits == 8 and tile_n % 64 == 0 else EPI_N
        epi_m = min(WARP_SPECIALIZED_EPI_M, tile_m)
        epi_n = math.gcd(min(n_perf, tile_n), tile_n)
    epi_tiles = (tile_m // epi_m) * (tile_n // epi_n)
    reuse = c_bits is not None and c_bits == d_bits and d_bits > 8
    stages_d = min(epi_tiles, MAX_STAGES_D)
    stages_c = (
        max(min(epi_tiles, MAX_STAGES_C), stages_d + 1) if reuse else min(epi_tiles, MAX_STAGES_C)
    )
    d_align = swizzle_align((epi_m if d_m_major else epi_n) * d_bits)
    if c_bits is None:
        c_align = d_align
    else:
        c_align = swizzle_align((epi_m if c_m_major else epi_n) * c_bits)
    schedule = "cooperative" if cooperative else "warp-specialized"
    tile = (
        f"EpilogueTile cute::Shape<_{epi_m}, _{epi_n}>, explicit"
        if explicit is not None
        else f"EpilogueTileAuto, {schedule}"
    )
    return EpilogueTile(
        m=epi_m,
        n=epi_n,
        stages_c=stages_c,
        stages_d=stages_d,
        reuse_smem_c=reuse,
        swizzle_align=d_align,
        swizzle_align_c=c_align,
        source=f"{SM90_EPILOGUE_BUILDER}: sm90_compute_tile_shape_or_override ({tile}), "
        "sm90_get_tma_dispatch_policy (StagesC, StagesD, ReuseSmem), "
        "sm90_get_epilogue_smem_swizzle_layout_atom",
    )
