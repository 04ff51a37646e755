"""CUTLASS 2.x threadblock storage (cutlint.cutlass.gemm_2x): the pieces whose choice is not a
plain product (the SIMT skew, the tensor-op epilogue's fragments per iteration), checked against the
header formulas; the layouts as a whole are held to nvcc in tests/families/."""

from __future__ import annotations

import pytest

from cutlint.cutlass import gemm_2x
from cutlint.records import Shape3


@pytest.mark.parametrize(
    ("crosswise", "bits", "padding"),
    [(8, 32, 4), (8, 64, 2), (8, 16, 8), (32, 8, 4)],
)
def test_simt_transpose_padding(crosswise: int, bits: int, padding: int) -> None:
    """default_mma_core_simt.h detail::simt_transpose_padding(32, K, bits)."""
    assert gemm_2x.simt_transpose_padding(32, crosswise, bits) == padding


def test_the_tensor_op_epilogue_picks_two_fragments_only_for_its_specializations() -> None:
    f = gemm_2x.tensor_op_fragments_per_iteration
    assert f("cutlass::half_t", "float", 8, 1) == 2
    assert f("cutlass::half_t", "float", 8, 2) == 1  # kPartitionsK != 1
    assert f("cutlass::bfloat16_t", "float", 8, 1) == 1
    assert f("float", "float", 4, 1) == 2


def test_mma_base_holds_stages_copies_of_each_operand_tile() -> None:
    """mma_base.h: operand_A (M + padA.row) x (K * Stages + padA.col), operand_B (K * Stages +
    padB.row) x (N + padB.col); AlignedBuffer rounds each to 16 B."""
    storage = gemm_2x.MmaStorage(
        Shape3(m=128, n=64, k=8), stages=2, bits_a=64, bits_b=64, padding_a=(2, 0), padding_b=(0, 2)
    )
    block = gemm_2x.mma_shared_storage(storage)
    sizes = [p.size for p in block.flat()]
    assert sizes == [130 * 16 * 8, 16 * 66 * 8] and block.size == 25088


def test_an_int4_buffer_rounds_up_to_16_bytes() -> None:
    assert gemm_2x.aligned_buffer("x", 3, 4, "src").size == 16
