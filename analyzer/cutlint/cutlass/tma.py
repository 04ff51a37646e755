"""TMA descriptors as CUTLASS builds them: what the source decides of a tensor map.

A TMA copy's tensor map (`CUtensorMap`, 128 bytes) is encoded on the host by
`cuTensorMapEncodeTiled` from what `make_tma_copy` (cute/atom/copy_traits_sm90_tma.hpp) derives of
the kernel's shared-memory layout. What is decided by the instantiation alone, and checked here:

- the global strides and base address must be 16-byte aligned (CUDA Driver API,
  cuTensorMapEncodeTiled: globalAddress "must be 16 byte aligned", globalStrides "must be a
  multiple of 16"); a kernel promises no more of its leading dimension than its alignment
  parameter times the element's width, so CUTLASS's builders refuse an alignment below 16 bytes:
  SM90's `static_assert(detail::is_aligned<..., detail::tma_alignment_bytes>())`
  (sm90_gmma_builder.inl, `tma_alignment_bytes = 16` in sm90_common.inl), and SM100's and SM120's
  builders are specializations enabled only when `detail::sm1xx_gemm_is_aligned<...>()` (or the
  block-scaled `sm1xx_blockscaled_gemm_is_aligned`) holds (sm1xx_common.inl), against
  `detail::get_input_alignment_bits` (cutlass/detail/layout.hpp: 128 bits, "TMA 16B alignment
  requirement"; 512 bits for 4-bit and 768 for 6-bit operands of the mxf8f6f4 block-scaled
  schedules, whose unpacked 16U4/16U6 smem formats need 64 B / 96 B inner extents). A chain that
  matches no specialization falls to the primary template's `static_assert(sizeof(ElementA) == 0,
  "Could not build a collective for given parameters.")` (collective_builder_decl.hpp).
- box extents of at most 256 per dimension and a box stride of at most 8
  (cuTensorMapEncodeTiled; make_tma_copy_desc asserts them on the host): CuTe's construction keeps
  every box mode within 256 itself (`coalesce_256` merges modes only up to 256 elements and splits
  the tile into more TMA dimensions instead), so no CollectiveBuilder chain can exceed it; a
  violation is a host `assert` at run time, not a compile-time verdict.
- the kernel parameters hold the descriptors of a single-problem kernel (`Params` is passed by
  value, `__grid_constant__`): 4,096 bytes of parameters per kernel, 32,764 bytes since CUDA 12.1
  on Volta and later (CUDA C++ Programming Guide, "Function Parameters"); a pointer-array (grouped)
  kernel keeps one set per group in global memory and copies the one in use into its
  `SharedStorage`'s tensormaps (`TensorMapStorage`).
"""

from __future__ import annotations

from functools import lru_cache

from cutlint.records import TmaDescriptor, TmaPlan

TMA_ALIGNMENT_BYTES = 16
"""cutlass/gemm/collective/builders/sm90_common.inl: tma_alignment_bytes = 16;
cutlass/detail/layout.hpp: get_input_alignment_bits() returns 128 (TMA 16B alignment)."""

F8F6F4_SUBBYTE_ALIGNMENT_BITS = {4: 64 * 8, 6: 96 * 8}
"""cutlass/detail/layout.hpp: get_input_alignment_bits<Element, IsF8F6F4SubBytes = true>: 16U4
(4-bit) inner extents a multiple of 64 B, 16U6 (6-bit) of 96 B."""

BOX_EXTENT_MAX = 256
"""cuTensorMapEncodeTiled: boxDim[i] <= 256 (copy_traits_sm90_tma.hpp: smem_box_shape <= 2^8)."""

DESCRIPTOR_BYTES = 128
"""sizeof(CUtensorMap) = sizeof(cute::TmaDescriptor): 128 bytes, 64-byte aligned."""

PARAM_SPACE_BYTES = 4096
PARAM_SPACE_BYTES_LARGE = 32764
"""Kernel parameter space: 4 KB; 32,764 B since CUDA 12.1 for compute capability 7.0 and later
(CUDA C++ Programming Guide, C++ Language Extensions, "Function Parameters")."""

ELEMENT_BITS = {
    "float_e2m1_t": 4,
    "type_erased_dynamic_float4_t": 4,
    "float_e2m3_t": 6,
    "float_e3m2_t": 6,
    "type_erased_dynamic_float6_t": 6,
    "float_e4m3_t": 8,
    "float_e5m2_t": 8,
    "type_erased_dynamic_float8_t": 8,
    "int8_t": 8,
    "uint8_t": 8,
    "half_t": 16,
    "bfloat16_t": 16,
    "tfloat32_t": 32,
    "float": 32,
    "int32_t": 32,
}
"""cute::sizeof_bits of the operand types CUTLASS's SM90-SM120 builders take (the data type of a
block-scaled `cute::tuple<Data, Scale>` pair is its first)."""


def element_bits(spelled: str) -> int | None:
    """`cutlass::half_t` -> 16; `cute::tuple<cutlass::float_e2m1_t, cutlass::float_ue8m0_t>` -> 4
    (the data type of a block-scaled pair); None for a type not in the table."""
    text = "".join(spelled.split())
    if text.startswith(("cute::tuple<", "tuple<")):
        text = text.split("<", 1)[1].split(",", 1)[0]
    return ELEMENT_BITS.get(text.rsplit("::", 1)[-1])


def input_alignment_bits(bits: int, f8f6f4_subbytes: bool) -> int:
    """cutlass/detail/layout.hpp: get_input_alignment_bits<Element, IsF8F6F4SubBytes>()."""
    if f8f6f4_subbytes and bits in F8F6F4_SUBBYTE_ALIGNMENT_BITS:
        return F8F6F4_SUBBYTE_ALIGNMENT_BITS[bits]
    return TMA_ALIGNMENT_BYTES * 8


def sm1xx_misaligned(a: tuple[int, int], b: tuple[int, int], subbyte_rule: bool) -> str:
    """What `sm1xx_gemm_is_aligned` / `sm1xx_blockscaled_gemm_is_aligned` (sm1xx_common.inl)
    rejects of (bits, alignment) for A and B, in words; "" when both hold. The f8f6f4 sub-byte
    requirement applies when either operand is below 8 bits and `subbyte_rule`: always for the
    dense and blockwise builders (`is_f8f6f4_subbytes`), only under an mxf8f6f4 schedule for the
    block-scaled ones (`is_mxf8f6f4_subbytes`)."""
    subbytes = (a[0] < 8 or b[0] < 8) and subbyte_rule
    bad = []
    for name, (bits, align) in (("A", a), ("B", b)):
        need = input_alignment_bits(bits, subbytes)
        if (bits * align) % need:
            bad.append(f"{name} {bits * align // 8} B ({align} x {bits} bits)")
    if not bad:
        return ""
    need_bytes = sorted({input_alignment_bits(x[0], subbytes) // 8 for x in (a, b)})
    return f"{' and '.join(bad)} not a multiple of TMA's {' / '.join(map(str, need_bytes))} B"


SM90_SWIZZLE_ATOM_BITS = ((128, 1024), (64, 512), (32, 256), (0, 128))
"""cute/atom/mma_traits_sm90_gmma.hpp: Layout_{K,MN}_SW128/SW64/SW32/INTER_Atom_Bits span 1024,
512, 256 and 128 bits along the contiguous dimension (0: interleaved, no swizzle)."""


def sm90_smem_swizzle(contiguous: int, bits: int) -> tuple[int, int] | None:
    """(swizzle bytes, atom width in elements) of the smem layout atom `ss_smem_selector`
    (cutlass/gemm/collective/builders/sm90_common.inl) picks for a tile extent of `contiguous`
    elements along the operand's contiguous dimension: the widest atom that divides it. The TMA
    box's inner extent is that atom's width, so its bytes equal the swizzle span
    (cuTensorMapEncodeTiled: the inner box dimension's bytes at most the swizzle's). None: no atom
    divides it (the selector's static_assert)."""
    for swizzle, atom_bits in SM90_SWIZZLE_ATOM_BITS:
        width = atom_bits // bits
        if width and contiguous % width == 0:
            return swizzle, width
    return None


def descriptor(
    operand: str,
    element: str,
    bits: int,
    alignment: int | None,
    required_bits: int,
    swizzle: tuple[int, int] | None,
    source: str,
) -> TmaDescriptor:
    return TmaDescriptor(
        operand=operand,
        element=element,
        element_bits=bits,
        alignment_bytes=None if alignment is None else alignment * bits // 8,
        required_bytes=required_bits // 8,
        swizzle_bytes=None if swizzle is None else swizzle[0],
        inner_box=None if swizzle is None else swizzle[1],
        source=source,
    )


def plan(descriptors: tuple[TmaDescriptor, ...], grouped: bool, total: int | None) -> TmaPlan:
    """Where the kernel's `total` descriptors live and what they take of the parameter space
    (`total` None: not counted for this family)."""
    if grouped:
        return TmaPlan(
            descriptors=descriptors,
            placement="global memory, one set per group, the current group's copied into the "
            "SharedStorage's tensormaps (ptr-array kernel)",
            param_bytes=None,
            param_limit=PARAM_SPACE_BYTES,
            derivation="a pointer-array kernel's Params hold pointers to its tensormaps, not the "
            "descriptors",
        )
    if total is None:
        return TmaPlan(
            descriptors=descriptors,
            placement="kernel parameters (Params passed by value, __grid_constant__)",
            param_bytes=None,
            param_limit=PARAM_SPACE_BYTES,
            derivation="the mainloop's and the epilogue's descriptors, not counted for this family",
        )
    used = total * DESCRIPTOR_BYTES
    return TmaPlan(
        descriptors=descriptors,
        placement="kernel parameters (Params passed by value, __grid_constant__)",
        param_bytes=used,
        param_limit=PARAM_SPACE_BYTES,
        derivation=f"{total} descriptors x {DESCRIPTOR_BYTES} B = {used:,} B of the "
        f"{PARAM_SPACE_BYTES:,} B parameter space ({PARAM_SPACE_BYTES_LARGE:,} B since CUDA 12.1)",
    )


SM1XX_SOURCE = (
    "cutlass/gemm/collective/builders/sm1xx_common.inl: sm1xx_gemm_is_aligned / "
    "sm1xx_blockscaled_gemm_is_aligned; cutlass/detail/layout.hpp: get_input_alignment_bits "
    "(the smem atom and box are not modeled for this family)"
)


@lru_cache(maxsize=1024)
def sm1xx_plan(
    elements: tuple[str, str], alignments: tuple[str, str], subbyte_rule: bool, grouped: bool
) -> TmaPlan | None:
    """A and B of an SM100 / SM120 TMA builder chain: element, the alignment promised against
    the one required; None when an element's width is not known here. Memoized by its
    arguments, all it reads (a build's kernels take a few dozen element and alignment pairs)."""
    bits = (element_bits(elements[0]), element_bits(elements[1]))
    if bits[0] is None or bits[1] is None:
        return None
    subbytes = (bits[0] < 8 or bits[1] < 8) and subbyte_rule
    out = []
    for name, element, width, align in zip("AB", elements, bits, alignments, strict=True):
        assert width is not None
        literal = int(align) if align.strip().isdigit() else None
        required = input_alignment_bits(width, subbytes)
        out.append(descriptor(name, element, width, literal, required, None, SM1XX_SOURCE))
    return plan(tuple(out), grouped, None)
