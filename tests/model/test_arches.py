"""The arch database: every number has a source, and the numbers DOMAIN.md 3 lists."""

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
        ("sm_89", 101376, 1536),
        ("sm_90", 232448, 2048),
        ("sm_100", 232448, 2048),
        ("sm_103", 232448, 2048),
        ("sm_120a", 101376, 1536),
        ("12.1", 101376, 1536),
    ],
)
def test_limits(spec: str, optin: int, threads_per_sm: int) -> None:
    limits = arch_for(spec)
    assert (limits.smem_optin, limits.threads_per_sm) == (optin, threads_per_sm)
    assert limits.registers_per_thread == 255 and limits.threads_per_block == 1024


def test_unknown_arch() -> None:
    with pytest.raises(KeyError):
        arch_for("sm_99")
