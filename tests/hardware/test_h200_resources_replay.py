"""Replay of the H200 registers-and-occupancy run (tests/hardware/resources/, docs/hardware.md):
every kernel image cutlint's reader read equals cuobjdump, every occupancy answer equals
cutlint's arithmetic, and the launch cutlint says fails failed with the error it names.

tests/data/h200_resources.json is written by tests/hardware/resources/collect.py from the GPU
run's output; until that run has been made, these tests skip and say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.model.arch import arch_for
from cutlint.model.occupancy import occupancy

DATA = Path(__file__).resolve().parents[1] / "data" / "h200_resources.json"
pytestmark = pytest.mark.skipif(
    not DATA.is_file(), reason="the H200 resources run has not been made (tests/hardware/resources)"
)


def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def test_no_mismatch_and_at_least_20_gemm_kernels() -> None:
    data = _data()
    assert data["mismatches"] == []
    gemm = [b for b in data["binaries"] if "/bin/" in b]
    assert len(gemm) >= 20
    assert data["kernels_compared"] >= 20


def test_every_occupancy_answer_equals_cutlints() -> None:
    sm90 = arch_for("sm_90")
    rows = [r for r in _data()["probe"] if r["error"] == "cudaSuccess"]
    assert len(rows) > 100
    for r in rows:
        occ = occupancy(
            sm90, r["threads"], r["dynamic_smem"], r["num_regs"],
            static_smem=r["static_smem"], max_dynamic_smem=sm90.smem_optin - r["static_smem"],
        )  # fmt: skip
        assert occ.blocks_per_sm == r["blocks"], (r, occ.derivation)


def test_the_launch_cutlint_refuses_fails_with_too_many_resources() -> None:
    launches = {r["threads"]: r for r in _data()["launches"]}
    refused = launches[1024]
    assert refused["cutlint"] == ["CUT108 registers-exceed-block-limit"]
    assert refused["launch"] == "cudaErrorLaunchOutOfResources"
    assert "too many resources requested for launch" in refused["message"]
    assert launches[256]["cutlint"] == [] and launches[256]["launch"] == "cudaSuccess"
