"""The SM120 block-scaled sparse GEMM (2:4 structured-sparse A with scale factors) of one
problem: the builder's StagesA / StagesB / StagesE and the mainloop's `TensorStorage`, as CUTLASS
4.2.0 and 4.5.0 build them (CUTLASS example 80: 80a MXFP8, 80b NVFP4).

`CollectiveBuilder<Sm120, OpClassBlockScaledSparseTensorOp, ..., KernelSparseTmaWarpSpecialized
{Nvf4,Mxf4,Mxf8f6f4,Mxf8f6f4Acc2x4}Sm120>` (SM120_BLOCKSCALED_SPARSE_MMA_BUILDER) sizes stages with
`sm120_compute_stage_count_or_override_blockscaled_sparse`: per stage A (as `sparse_elem`), B, the
metadata E, the SFA and SFB tiles and three barriers. With at least 2 such stages it returns
StagesA = StagesB and keeps E in shared memory (StagesE = StagesA); otherwise it buffers B over
half the tile's K (B counted at 3/4) and, with at least 2 of those stages, returns StagesB = 3 and
StagesE = 0 (E in global memory); with fewer it returns StagesA = StagesB < 2 and the collective's
`static_assert(StagesA >= 2)` stops the build. `StageCount<N>` does not compile: the builder's
override returns an `int`, and `get<1>` of it is out of range.

`CollectiveMma<MainloopSm120TmaWarpSpecializedSparseBlockScaled<StagesA, StagesB, StagesE, 2>>`
(SM120_BLOCKSCALED_SPARSE_MMA_TMA) lays out `TensorStorage : aligned_struct<128> {alignas(1024)
smem_A; alignas(1024) smem_B; smem_SFA; smem_SFB; smem_E;}` (4.5.0 adds `alignas(16)` to the last
three, which their `array_aligned` storage has already) and the two pipelines; the kernel is the
asymmetric-DMA cooperative shell of the plain sparse GEMM (cutlint.cutlass.sm120_sparse). Header
paths are relative to CUTLASS's `include/`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cutlint.cutlass.headers import (
    SM1XX_SPARSE_CONFIG,
    SM120_BLOCKSCALED_SPARSE_MMA_BUILDER,
    SM120_BLOCKSCALED_SPARSE_MMA_TMA,
)
from cutlint.cutlass.layout import Block, array, round_up, struct
from cutlint.cutlass.sm120_sparse import (
    ARRAY_ALIGNED,
    SM120_SMEM_CAPACITY,
    SparseStages,
    count_record,
    metadata_storage,
)
from cutlint.cutlass.storage import BARRIER_BYTES, cpp_div
from cutlint.records import Shape3, StageTerm

BUILDER = SM120_BLOCKSCALED_SPARSE_MMA_BUILDER
COLLECTIVE = SM120_BLOCKSCALED_SPARSE_MMA_TMA

# BUILDER: mainloop_pipeline_bytes = sizeof(cutlass::arch::ClusterBarrier) * 3
PIPELINE_BYTES = 3 * BARRIER_BYTES
# BUILDER: the 1.5-stage branch returns make_tuple(stages_b15, 3)
ASYMMETRIC_STAGES_B = 3
# cutlass/detail/sm100_blockscaled_layout.hpp: Sm1xxBlockScaledConfig Blk_MN = 128, Blk_SF = 4
BLK_MN = 128
BLK_SF = 4
# cutlass/arch/arch.h: sm120_smem_capacity_bytes (SM120_SMEM_CAPACITY); the builder passes
# detail::sm120_smem_capacity_bytes, the same number


@dataclass(frozen=True)
class SparseOperands:
    """What the builder's MMA instruction (select_instr) makes of the operands: the shared
    memory element types of A, B and E, the MMA atom's K, and the scale-factor vector size."""

    instr: str
    """`MXF4NVF4` (Nvf4 / Mxf4 schedules) or `MXF8F6F4` (Mxf8f6f4 schedules)."""
    a_sparsity: int
    """A in smem is `sparse_elem<a_sparsity, uint8_t>`: 8 / a_sparsity bits a logical element."""
    b_bits: int
    """sizeof_bits of B's smem element."""
    e_sparsity: int
    """E (ValTypeE) is `sparse_elem<e_sparsity, uint8_t>`: 8 / e_sparsity bits a logical element."""
    e_atom_k: int
    """K of SM1XX_SPARSE_CONFIG's TensorEAtom (its M is 128)."""
    atom_k: int
    """K of the MMA atom (TiledMma::AtomShape_MNK)."""
    sf_vec: int
    """SFVectorSize (blockscaled_type<Schedule, nv_float4_t / mx_float*_t>::SfVectorSize)."""
    source: str


SF_VECTOR_SOURCE = (
    "cutlass/gemm/collective/builders/sm1xx_common.inl: blockscaled_type<Schedule, ...>::"
    "SfVectorSize under KernelScheduleBlockScaledSparseGemmSm120: nv_float4_t 32, mx_float4_t / "
    "mx_float6_t / mx_float8_t 64"
)
INSTRUCTIONS = {
    # cute/atom/mma_traits_sm120_sparse.hpp: SM120_SPARSE_16x8x128_TN_VS: ValTypeA =
    # sparse_elem<4, uint8_t>, ValTypeE = sparse_elem<16, uint8_t>, ValTypeB = uint4_t; BUILDER:
    # SmemAllocTypeA = ValTypeA::raw_type, SmemAllocTypeB = ValTypeB (UseMxf8f6f4 false);
    # SM1XX_SPARSE_CONFIG: TensorEAtom_MMA_F4 = Layout<Shape<_128, _256>>
    "MXF4NVF4": SparseOperands("MXF4NVF4", 4, 4, 16, 256, 128, 0, ""),
    # SM120_SPARSE_16x8x64_TN_VS: ValTypeA = sparse_elem<2, a_type>, ValTypeE = sparse_elem<8,
    # uint8_t>; BUILDER: SmemAllocTypeA = SmemAllocTypeB = uint8_t (UseMxf8f6f4);
    # SM1XX_SPARSE_CONFIG: TensorEAtom_MMA_S8orF8F6F4 = Layout<Shape<_128, _128>>
    "MXF8F6F4": SparseOperands("MXF8F6F4", 2, 8, 8, 128, 64, 0, ""),
}


def operands(instr: str, sf_vec: int) -> SparseOperands:
    """The operands of `instr` (select_instr's MXF4NVF4 or MXF8F6F4) with `sf_vec` scale factors."""
    return replace(
        INSTRUCTIONS[instr],
        sf_vec=sf_vec,
        source=f"cute/atom/mma_traits_sm120_sparse.hpp, {BUILDER}: select_instr -> {instr}; "
        + SF_VECTOR_SOURCE,
    )


def outside(tile: Shape3, ops: SparseOperands) -> str | None:
    """Why the model does not lay out this tile (None: it does). The scale-factor atoms are in
    128-row blocks of 4 x SFVectorSize K (their shapes use integer division) and E's atom must
    tile M x K; the rows of the truth file cover M 128 and 256, N 64 and 128, K 256."""
    if tile.m % BLK_MN or tile.n % 64:
        return f"tile {tile}: the model covers M a multiple of 128 and N a multiple of 64"
    k_unit = max(ops.e_atom_k, ops.sf_vec * BLK_SF)
    if tile.k % k_unit:
        return f"tile {tile}: the model covers K a multiple of {k_unit} under {ops.instr} (E's atom, 4 scale factors of {ops.sf_vec})"
    return None


def _sf_tile(mn: int, k: int, ops: SparseOperands) -> int:
    """BUILDER: size(filter_zeros(SmemLayoutAtomSF[AB])): (MN / Blk_MN) x (32, 4) rows and
    ((SFVectorSize, MMA_NSF), (Blk_SF / MMA_NSF, K / SFVectorSize / Blk_SF)) columns, the
    SFVectorSize mode of stride 0 filtered out; MMA_NSF = AtomK / SFVectorSize."""
    nsf = ops.atom_k // ops.sf_vec
    return (mn // BLK_MN) * 32 * 4 * nsf * (BLK_SF // nsf) * (k // ops.sf_vec // BLK_SF)


@dataclass(frozen=True)
class StageBytes:
    a: int
    b: int
    e: int
    sfa: int
    sfb: int


def stage_bytes(tile: Shape3, ops: SparseOperands) -> StageBytes:
    """BUILDER: bits_to_bytes(a_bits * M * K), (b_bits * N * K), (e_bits * M * K) with a_bits =
    sizeof_bits<sparse_elem<S, SmemAllocTypeA>>, and the SF tiles (SFB over N rounded up to
    Blk_MN: TileShapeSf_MNK)."""
    n_sf = round_up(tile.n, BLK_MN)
    return StageBytes(
        a=tile.m * tile.k // ops.a_sparsity,
        b=ops.b_bits * tile.n * tile.k // 8,
        e=tile.m * tile.k // ops.e_sparsity,
        sfa=_sf_tile(tile.m, tile.k, ops),
        sfb=_sf_tile(n_sf, tile.k, ops),
    )


def _term(name: str, n: int, what: str) -> StageTerm:
    return StageTerm(name=name, bytes=n, source=f"{BUILDER}: {what}")


def stage_count(tile: Shape3, ops: SparseOperands, carveout: int) -> SparseStages | str:
    """BUILDER: sm120_compute_stage_count_or_override_blockscaled_sparse(StageCountAutoCarveout
    <carveout>), or why the kernel does not compile (both branches below 2 stages)."""
    s = stage_bytes(tile, ops)
    budget = SM120_SMEM_CAPACITY - carveout
    sf = (
        _term("SFA", s.sfa, "stage_sfa_bytes = size(filter_zeros(SmemLayoutAtomSFA))"),
        _term("SFB", s.sfb, "stage_sfb_bytes = size(filter_zeros(SmemLayoutAtomSFB))"),
    )
    pipe = _term("pipeline", PIPELINE_BYTES, "sizeof(cutlass::arch::ClusterBarrier) * 3")
    a = _term("A", s.a, f"bits_to_bytes(a_bits * M * K), a_bits = 8 / {ops.a_sparsity}")
    full = (
        a,
        _term("B", s.b, f"bits_to_bytes(b_bits * N * K), b_bits = {ops.b_bits}"),
        _term("E", s.e, f"bits_to_bytes(e_bits * M * K), e_bits = 8 / {ops.e_sparsity}"),
        pipe,
        *sf,
    )
    per = sum(t.bytes for t in full)
    stages = cpp_div(budget, per)
    formula = f"{BUILDER}: sm120_compute_stage_count_or_override_blockscaled_sparse: "
    if stages >= 2:
        return SparseStages(
            stages,
            stages,
            stages,
            count_record(
                stages,
                budget,
                carveout,
                full,
                formula + "(capacity - carveout) / (A + B + E + pipeline + SFA + SFB) >= 2: "
                "StagesA = StagesB = StagesE, E in shared memory",
            ),
        )
    b15 = (
        a,
        _term("B x 3/4", s.b * 3 // 4, "bits_to_bytes(b_bits * N * K) * 3 / 4 (1.5 stages of B)"),
        pipe,
        *sf,
    )
    per15 = sum(t.bytes for t in b15)
    stages15 = cpp_div(budget, per15)
    if stages15 < 2:
        return (
            f"does not compile, so nothing to lay out: the builder returns StagesA = StagesB = "
            f"{stages15} ((101,376 - {carveout:,}) / {per15:,} B even with 1.5 stages of B) and "
            f'{COLLECTIVE} static_asserts StagesA >= 2 ("Specialization requires StagesA set to '
            'value 2 or more.")'
        )
    return SparseStages(
        stages15,
        ASYMMETRIC_STAGES_B,
        0,
        count_record(
            stages15,
            budget,
            carveout,
            b15,
            formula + "(capacity - carveout) / (A + B + E + pipeline + SFA + SFB) < 2, so "
            "StagesA = (capacity - carveout) / (A + 3/4 B + pipeline + SFA + SFB), StagesB = 3, "
            "StagesE = 0 (E in global memory)",
        ),
    )


def tensor_storage(tile: Shape3, ops: SparseOperands, s: SparseStages) -> Block:
    """COLLECTIVE: SharedStorage::TensorStorage. A, SFA and SFB have StagesA stages; B has
    StagesB over K / AsymmetricKRatio (2 when StagesA != StagesB); E has StagesE. A and E are
    `ArrayEngine<sparse_elem<S, uint8_t>, cosize>` (cute/tensor_impl.hpp: array_aligned<uint8_t,
    cosize / S>), the SF arrays `array_aligned<ElementSF, cosize>` (16-byte aligned)."""
    b = stage_bytes(tile, ops)
    ratio = 2 if s.stages_a != s.stages_b else 1
    b_bytes = ops.b_bits * tile.n * (tile.k // ratio) // 8

    def sf(name: str, per: int) -> Block:
        return array(
            name,
            round_up(s.stages_a * per, ARRAY_ALIGNED),
            ARRAY_ALIGNED,
            f"{COLLECTIVE}: ArrayEngine<ElementSF, cosize_v<SmemLayout{name[5:]}>> {name} (StagesA = {s.stages_a} x {per} scale factors)",
            ("builder.stages", f"builder.term.{name[5:]}"),
        )

    return struct(
        "mainloop",
        [
            array(
                "smem_A",
                s.stages_a * b.a,
                1024,
                f"{COLLECTIVE}: alignas(1024) ArrayEngine<SmemAllocTypeA (sparse_elem<{ops.a_sparsity}, uint8_t>), cosize_v<SmemLayoutA>> smem_A",
                ("builder.stages", "builder.term.A"),
            ),
            array(
                "smem_B",
                s.stages_b * b_bytes,
                1024,
                f"{COLLECTIVE}: alignas(1024) ArrayEngine<SmemAllocTypeB ({ops.b_bits} bits), cosize_v<SmemLayoutB>> smem_B (StagesB = {s.stages_b}, TileShapeB K = {tile.k // ratio})",
                ("builder.stages", "builder.term.B") if ratio == 1 else (),
            ),
            sf("smem_SFA", b.sfa),
            sf("smem_SFB", b.sfb),
            metadata_storage(
                s.stages_e * b.e,
                f"{COLLECTIVE}: ArrayEngine<ElementEMma (sparse_elem<{ops.e_sparsity}, uint8_t>), SmemSizeE> smem_E (StagesE = {s.stages_e}; {SM1XX_SPARSE_CONFIG}: TensorEAtom)",
                ("builder.stages", "builder.term.E") if s.stages_e else (),
            ),
        ],
        f"{COLLECTIVE}: CollectiveMma::SharedStorage::TensorStorage : cute::aligned_struct<128>",
        base_align=128,
    )
