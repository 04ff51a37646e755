"""Which compile targets load on which parts (failure class E), and where a path says the target."""

from __future__ import annotations

import pytest

from cutlint.model.arch import arch_for, cannot_load
from cutlint.producers.flashinfer.cache_layout import compile_target


@pytest.mark.parametrize(
    ("sm", "suffix", "device", "loads"),
    [
        (120, "a", "sm_120", True),
        (120, "a", "sm_121", False),  # an arch-specific cubin: exactly 12.0
        (121, "a", "sm_120", False),
        (120, "f", "sm_121", True),  # a family cubin: 12.x with x >= 0
        (121, "f", "sm_120", False),
        (100, "f", "sm_103", True),
        (100, "f", "sm_110", False),  # another major: another family
        (90, "a", "sm_100", False),
    ],
)
def test_cannot_load(sm: int, suffix: str, device: str, loads: bool) -> None:
    reason = cannot_load(sm, suffix, arch_for(device))
    assert (reason is None) == loads
    if reason is not None:
        assert f"sm_{sm}{suffix}" in reason and device in reason


def test_compile_target_is_the_jit_arch_directory() -> None:
    base = "/home/u/.cache/flashinfer/0.7.2.post1"
    grouped = "generated/cutlass_instantiations/120/gemm_grouped/120/f.generated.cu"
    assert compile_target(f"{base}/120a/{grouped}") == (120, "a")
    assert compile_target(f"{base}/120f/generated/gen_gemm_sm120/x.cu") == (120, "f")
    assert compile_target(f"/work/120a/{grouped}") is None  # no FlashInfer version above it
    assert compile_target("/tmp/cl/g120/generated/gemm/120/k.cu") is None
