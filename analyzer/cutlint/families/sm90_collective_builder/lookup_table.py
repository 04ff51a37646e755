"""The SM90 mixed-input mainloop's lookup-table mode: `cute::tuple<cutlass::int4b_t,
cutlass::Array<E, 8>>` A (cutlass_library's `cutlass3x_sm90_tensorop_gemm_s4_e4m3_*` and
`..._s4_e5m2_*` kernels: gemm_operation.py writes `cute::tuple<{narrow}, cutlass::Array<{scale},
8>>` for an s4 A with an e4m3 or e5m2 B).

The scale is one `cutlass::Array<E, 8>` (eight 8-bit values, a table indexed by the 4-bit weight)
per row of A: `sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp` (SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT) has
`KernelConversionMode = ConvertAndScale` (a scale, no zero) and `UseScaleLookupTable =
ConvertAndScale && is_Array_v<ElementScale>`; its shared memory is that of any ConvertAndScale
mainloop with a 64-bit ElementScale (`ArrayEngine<NonVoidElementScale, cosize_v<SmemLayoutScale>>
smem_scale`), and the builder (`sm90_gmma_builder.inl`:
`compute_stage_count_or_override_single_affine_transformed_input`) counts `sizeof_bits<Array<E,
8>>` = 64 bits per row of the tile (`cutlass/array.h`: sizeof_bits<Array<T, N>> = N x
sizeof_bits<T>). Header paths are relative to CUTLASS's include/.
"""

from __future__ import annotations

from collections.abc import Callable

from cutlint.families.alias_args import split_template

ARRAY = "cutlass::Array"
UTILS = "cutlass/detail/collective/mixed_input_utils.hpp"
LUT_WEIGHT = "cutlass::int4b_t"
"""UTILS (LUT transform): static_assert(is_same_v<RealSwappedElementA, cutlass::int4b_t>,
"Lookup table only supports int4 being the quant type now.")."""
LUT_SCALE_BITS = 64
"""UTILS: static_assert(sizeof_bits_v<ElementScale> == 64, "Lookup table only supports 8 8bit
scale values now.")."""


def tuple_parts(arg: str) -> list[str]:
    """`cute::tuple<A, S, Z>` -> [A, S, Z] at top-level commas (a `cutlass::Array<E, 8>` scale is
    one part); a plain type -> [type]."""
    name, args = split_template(arg)
    if name != "cute::tuple" or not args:
        return [arg]
    return list(args)


def scale_bits(scale: str, weight: str, bits_of: Callable[[str], int | None]) -> int | str | None:
    """The bits of a lookup-table scale `cutlass::Array<E, N>` (`bits_of(E)` x N), why the model
    does not cover it (str), or None: not an Array scale."""
    name, args = split_template(scale)
    if name != ARRAY:
        return None
    element_bits = bits_of(args[0]) if args else None
    if len(args) != 2 or element_bits != 8 or not args[1].isdigit():
        return f"lookup-table scale {scale}: the model covers cutlass::Array<8-bit float, 8>"
    bits = element_bits * int(args[1])
    if weight != LUT_WEIGHT or bits != LUT_SCALE_BITS:
        return (
            f"lookup-table scale {scale} on {weight}: {UTILS} static_asserts an int4b_t A and "
            f"{LUT_SCALE_BITS}-bit scales (not modeled)"
        )
    return bits
