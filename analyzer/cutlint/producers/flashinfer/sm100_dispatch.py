"""Whether FlashInfer's launcher ever dispatches an SM100 / SM103 grouped MoE GEMM instantiation.

The rules are data (data/sm100_dispatch.toml, per release, each with the header and lines it was
read from); this module applies them the way `are_tile_shapes_supported_sm100` and
`dispatchMoeGemmSelectTileShapeTmaWarpSpecialized` do.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from cutlint.records import ElementType, Fusion, MoeGemmArgs

_BITS = {
    ElementType.E2M1: 4,
    ElementType.E4M3: 8,
    ElementType.E5M2: 8,
    ElementType.F16: 16,
    ElementType.BF16: 16,
    ElementType.F32: 32,
}


@dataclass(frozen=True)
class Sm100Dispatch:
    """One release's SM100 dispatch rules (see the data file for their meaning)."""

    release: str
    source: str
    cluster_m_max: int
    sm103_tile_m: tuple[int, ...]
    sm103_tile_n: tuple[int, ...]
    tile_m: tuple[int, ...]
    fp4_tile_n: tuple[int, ...]
    fp4_tile_m: int
    mxfp8_tile_n: tuple[int, ...]
    fp8_small_tile_n: tuple[int, ...]
    tile_n_multiple: int
    tile_n_min: int
    tile_n_max: int
    two_sm_tile_n_multiple: int
    sm100_tiles_k_bytes: frozenset[tuple[int, int, int]]
    sm100_activation_tiles_k_bytes: frozenset[tuple[int, int, int]]
    sm103_tiles_k_bytes: frozenset[tuple[int, int, int]]


def _ints(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in v)


def _tiles(v: Any) -> frozenset[tuple[int, int, int]]:
    return frozenset((int(t[0]), int(t[1]), int(t[2])) for t in v)


@cache
def sm100_dispatch_rules() -> dict[str, Sm100Dispatch]:
    with (
        resources.files("cutlint.producers.flashinfer")
        .joinpath("data", "sm100_dispatch.toml")
        .open("rb") as f
    ):
        raw: dict[str, Any] = tomllib.load(f)["releases"]
    out: dict[str, Sm100Dispatch] = {}
    for release, d in raw.items():
        rules = Sm100Dispatch(
            release=release,
            source=d["dispatch"],
            cluster_m_max=int(d["cluster_m_max"]),
            sm103_tile_m=_ints(d["sm103_tile_m"]),
            sm103_tile_n=_ints(d["sm103_tile_n"]),
            tile_m=_ints(d["tile_m"]),
            fp4_tile_n=_ints(d["fp4_tile_n"]),
            fp4_tile_m=int(d["fp4_tile_m"]),
            mxfp8_tile_n=_ints(d["mxfp8_tile_n"]),
            fp8_small_tile_n=_ints(d["fp8_small_tile_n"]),
            tile_n_multiple=int(d["tile_n_multiple"]),
            tile_n_min=int(d["tile_n_min"]),
            tile_n_max=int(d["tile_n_max"]),
            two_sm_tile_n_multiple=int(d["two_sm_tile_n_multiple"]),
            sm100_tiles_k_bytes=_tiles(d["sm100_tiles_k_bytes"]),
            sm100_activation_tiles_k_bytes=_tiles(d["sm100_activation_tiles_k_bytes"]),
            sm103_tiles_k_bytes=_tiles(d["sm103_tiles_k_bytes"]),
        )
        for name in (release, *d.get("same_as", ())):
            out[name] = rules
    return out


def tile_shapes_supported(r: Sm100Dispatch, a: MoeGemmArgs) -> tuple[bool, str]:
    """are_tile_shapes_supported_sm100 for the instantiation's tile and cluster, and why not."""
    c, m, n = a.cluster, a.cta_tile.m, a.cta_tile.n
    if c.m > r.cluster_m_max or c.n != 1 or c.k != 1:
        return (
            False,
            f"cluster {c}: only 1x1x1 and 2x1x1 (size<0> <= {r.cluster_m_max}, size<1> == size<2> == 1)",
        )
    fp4_a, fp4_b = a.act_type is ElementType.E2M1, a.weight_type is ElementType.E2M1
    if a.sm == 103:
        ok = fp4_a and fp4_b and m in r.sm103_tile_m and n in r.sm103_tile_n
        return (
            ok,
            ""
            if ok
            else f"SM103 takes FP4 x FP4 with tile M in {list(r.sm103_tile_m)} and N in {list(r.sm103_tile_n)}",
        )
    if m not in r.tile_m:
        return False, f"tile M = {m}: not one of {list(r.tile_m)}"
    if (fp4_a or fp4_b) and (n not in r.fp4_tile_n or m != r.fp4_tile_m):
        return False, f"an FP4 operand needs tile M = {r.fp4_tile_m} and N in {list(r.fp4_tile_n)}"
    fp8 = a.act_type is ElementType.E4M3
    if (
        r.mxfp8_tile_n
        and a.mxfpx
        and fp8
        and a.weight_type is ElementType.E4M3
        and (n not in r.mxfp8_tile_n or m != r.fp4_tile_m)
    ):
        return False, f"MXFP8 needs tile M = {r.fp4_tile_m} and N in {list(r.mxfp8_tile_n)}"
    if fp8 and n in r.fp8_small_tile_n and c.m == 1 and c.n == 1:
        return True, ""
    if n % r.tile_n_multiple or n < r.tile_n_min or n > r.tile_n_max:
        return (
            False,
            f"tile N = {n}: must be a multiple of {r.tile_n_multiple} in [{r.tile_n_min}, {r.tile_n_max}]",
        )
    if c.m % 2 == 0 and n % r.two_sm_tile_n_multiple:
        return False, f"a 2-SM cluster ({c}) needs tile N a multiple of {r.two_sm_tile_n_multiple}"
    return True, ""


def tile_config_listed(r: Sm100Dispatch, a: MoeGemmArgs) -> tuple[bool, str]:
    """Whether the tile is one of the dispatch's CtaShape<M>x<N>x<K>B configs (K in bytes of A)."""
    act_bits = _BITS.get(a.act_type) if a.act_type else None
    if act_bits is None:
        return True, ""
    k_bytes = a.cta_tile.k * act_bits // 8
    tile = (a.cta_tile.m, a.cta_tile.n, k_bytes)
    if a.sm == 103:
        listed, name = r.sm103_tiles_k_bytes, "SM103"
    elif a.fusion is Fusion.ACTIVATION and r.sm100_activation_tiles_k_bytes:
        listed, name = r.sm100_activation_tiles_k_bytes, "SM100 ACTIVATION"
    else:
        listed, name = r.sm100_tiles_k_bytes, "SM100"
    if tile in listed:
        return True, ""
    return False, (
        f"tile {a.cta_tile} is CtaShape{tile[0]}x{tile[1]}x{tile[2]}B for {act_bits}-bit A, "
        f"not a {name} tile config of the dispatch"
    )


def dispatched(release: str | None, a: MoeGemmArgs, target_sm: int) -> tuple[bool | None, str]:
    """(whether the launcher can select this instantiation on a `target_sm` part, why not); None
    when the release's rules are not in the table."""
    r = sm100_dispatch_rules().get(release or "")
    if r is None:
        return None, ""
    fp4 = a.act_type is ElementType.E2M1 and a.weight_type is ElementType.E2M1
    if target_sm == 103 and a.sm == 100 and fp4:
        return False, (
            "on an SM103 part the dispatch sends FP4 x FP4 to the Sm103 kernels (its "
            "gemm_config.sm_version == 103 case comes before the SM100 one)"
        )
    ok, why = tile_shapes_supported(r, a)
    if not ok:
        return False, why
    return tile_config_listed(r, a)


def source(release: str | None, target_sm: int | None = None) -> str:
    """Where the rules were read. Given a target other than an SM103 part, the `SHAPE_CASE` lines
    cited are the SM100 ones only: on sm_100 and sm_110 the dispatch never takes the SM103 cases
    (their branch needs `gemm_config.sm_version == 103`), so an explanation there does not cite
    them."""
    r = sm100_dispatch_rules().get(release or "")
    if r is None:
        return (
            "moe_gemm_template_dispatch_tma_ws.h: are_tile_shapes_supported_sm100 (release unknown)"
        )
    if target_sm is not None and target_sm != 103:
        return r.source.replace("SHAPE_CASE(103|100, ...)", "SHAPE_CASE(100, ...)")
    return r.source
