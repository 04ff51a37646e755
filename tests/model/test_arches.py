"""The arch database: every number has a source, and the limits the CUDA C++ Programming Guide and cutlass/arch/arch.h give."""

from __future__ import annotations

import pytest

from cutlint.model.arch import arch_for, arches
from cutlint.records import ArchLimits

FIELDS = [f for f in ArchLimits.model_fields if f not in ("name", "sources")]


@pytest.mark.parametrize("name", sorted(arches()))
def test_every_field_has_a_source(name: str) -> None:
    limits = arches()[name]
    missing = [f for f in FIELDS if not limits.sources.get(f)]
    assert not missing, f"{name}: no source for {missing}"


@pytest.mark.parametrize(
    ("spec", "optin", "threads_per_sm"),
    [
        ("sm_80", 166912, 2048),
        ("sm_86", 101376, 1536),
        ("sm_87", 166912, 1536),
        ("sm_89", 101376, 1536),
        ("sm_90", 232448, 2048),
        ("sm_100", 232448, 2048),
        ("sm_103", 232448, 2048),
        ("sm_110a", 232448, 1536),
        ("sm_120a", 101376, 1536),
        ("12.1", 101376, 1536),
    ],
)
def test_limits(spec: str, optin: int, threads_per_sm: int) -> None:
    limits = arch_for(spec)
    assert (limits.smem_optin, limits.threads_per_sm) == (optin, threads_per_sm)
    assert limits.registers_per_thread == 255 and limits.threads_per_block == 1024


@pytest.mark.parametrize("spec", ["sm_99", "sm_42a", "1" * 5000, "sm_\x1b", ""])
def test_unknown_arch(spec: str) -> None:
    with pytest.raises(KeyError):
        arch_for(spec)


def test_jetson_arches() -> None:
    """sm_87 (Orin) has no clusters or TMA; sm_110 (Thor) has both, and TMEM (tcgen05)."""
    orin, thor = arch_for("sm_87"), arch_for("sm_110")
    assert (orin.clusters, orin.tma, orin.tmem) == (False, False, False)
    assert (thor.clusters, thor.tma, thor.tma_multicast, thor.tmem) == (True, True, True, True)
