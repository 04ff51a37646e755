"""The SM80 fused-MoE model on its own: what it claims, what it refuses and why, the layout."""

from __future__ import annotations

import pytest

from cutlint.families.sm80_fused_moe import model
from cutlint.model.arch import arch_for

SILU = "tensorrt_llm::cutlass_extensions::EpilogueOpDefaultSilu"
HALF = "cutlass::half_t"


def args(
    m: int = 64,
    n: int = 128,
    k: int = 64,
    stages: int = 3,
    tag: str = SILU,
    elem: str = HALF,
    weight: str = HALF,
) -> tuple[str, ...]:
    return (elem, weight, str(m), str(n), str(k), str(stages), tag)


def test_claims_the_generated_form() -> None:
    t = model.tactic_of(model.LAUNCHER_NAME, args())
    assert isinstance(t, model.Tactic)
    assert t.activation is model.Activation.SWIGLU and t.activation.gated
    assert t.describe() == "f16 64x128x64 stages=3 EpilogueOpDefaultSilu (Swiglu)"
    qualified = "tensorrt_llm::kernels::cutlass_kernels_oss::" + model.LAUNCHER_NAME
    assert isinstance(model.tactic_of(qualified, args()), model.Tactic)


@pytest.mark.parametrize(
    ("name", "targs", "reason"),
    [
        ("other_launcher", args(), "not sm80_generic_fused_moe_gemm_kernelLauncher"),
        (model.LAUNCHER_NAME, args()[:6], "takes 7 template arguments"),
        (model.LAUNCHER_NAME, args(elem="float", weight="float"), "float is not modeled"),
        (model.LAUNCHER_NAME, args(weight="uint8_t"), "differs from the element type"),
        (model.LAUNCHER_NAME, (*args()[:2], "M", *args()[3:]), "not integer literals"),
        (model.LAUNCHER_NAME, args(tag="Foo"), "InvalidType"),
        (model.LAUNCHER_NAME, args(stages=1), "Stages >= 2"),
        (model.LAUNCHER_NAME, args(m=24), "TileM % 16"),
        (model.LAUNCHER_NAME, args(n=96), "TileN % 32"),  # gated: kTileN = 48
        (model.LAUNCHER_NAME, args(k=96), "atom"),  # the M = 16 traits: 96 % 64
    ],
)
def test_refuses_with_a_reason(name: str, targs: tuple[str, ...], reason: str) -> None:
    got = model.tactic_of(name, targs)
    assert isinstance(got, str) and reason in got, got


def test_identity_epilogue_lays_out_the_plain_storage() -> None:
    t = model.tactic_of(
        model.LAUNCHER_NAME, args(tag="tensorrt_llm::cutlass_extensions::EpilogueOpDefault")
    )
    assert isinstance(t, model.Tactic) and not t.activation.gated
    block = model.shared_storage(t)
    assert block.name == "SharedStorageNormal"
    # A 64x64x3 + B 128x64x3 + O 64x128, 2 bytes each
    assert block.size == 2 * (64 * 64 * 3 + 128 * 64 * 3 + 64 * 128)


def test_m16_traits_size_the_kernel_when_larger() -> None:
    """TileK 32 with M 16: the m16 traits widen K to 64, but use_m16 needs TileK >= 64."""
    small_k = model.tactic_of(model.LAUNCHER_NAME, args(m=32, k=32))
    assert isinstance(small_k, model.Tactic)
    assert not model.uses_m16(small_k) and len(model.kernel_traits(small_k)) == 1
    t = model.tactic_of(model.LAUNCHER_NAME, args(m=16, n=256, k=64, stages=4))
    assert isinstance(t, model.Tactic)
    base, m16 = model.kernel_traits(t)
    assert base == m16 and base.block_k_smem == 64


def test_every_byte_is_a_member_or_padding() -> None:
    t = model.tactic_of(model.LAUNCHER_NAME, args(m=128, n=128, k=64, stages=4))
    assert isinstance(t, model.Tactic)
    block = model.shared_storage(t)
    assert sum(p.size for p in block.flat()) == block.size == 147456
    assert [p.name.rsplit(".", 1)[-1] for p in block.flat()] == [
        "smem_input",
        "smem_fc1_gate_weight",
        "smem_fc1_weight",
        "smem_o",
    ]


def test_static_shared_memory_counts_and_the_limit_is_inclusive() -> None:
    t = model.tactic_of(model.LAUNCHER_NAME, args(m=64, n=128, k=64, stages=3))
    assert isinstance(t, model.Tactic)
    sm120 = arch_for("sm_120")
    assert model.kernel_smem(t) == 81920
    assert model.launch_outcome(t, sm120).fits
    assert model.launch_outcome(t, sm120, static_smem=101376 - 81920).fits
    over = model.launch_outcome(t, sm120, static_smem=101376 - 81920 + 1)
    assert not over.fits and over.check is model.Check.SET_ATTRIBUTE
    # the profiling branch's `>=`: equality already reports occupancy 0
    assert model.launch_outcome(t, sm120, static_smem=101376 - 81920).query_occupancy_zero


def test_below_48_kib_the_occupancy_query_decides() -> None:
    t = model.tactic_of(model.LAUNCHER_NAME, args(m=16, n=128, k=64, stages=2))
    assert isinstance(t, model.Tactic)
    out = model.launch_outcome(t, arch_for("sm_89"))
    assert out.smem == 38912 and out.check is model.Check.OCCUPANCY and out.fits
    assert out.blocks_by_smem == 102400 // (38912 + 1024)
