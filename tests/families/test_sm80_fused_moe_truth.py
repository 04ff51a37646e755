"""The SM80 fused-MoE model against the compiler: every row of
tests/data/nvcc_sm80_fused_moe_truth.json (nvcc on FlashInfer's own generated gemm_grouped/80
files, 0.6.3, 0.7.2.post1 and 0.7.4), byte for byte, and each row's launch verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm80_fused_moe import model
from cutlint.model.arch import arch_for
from cutlint.testing.truth import read_truth

TRUTH = read_truth(Path(__file__).parents[1] / "data" / "nvcc_sm80_fused_moe_truth.json")
ROWS: list[dict[str, Any]] = TRUTH["rows"]
RELEASES = ("0.6.3", "0.7.2.post1", "0.7.4")
ARCHES = ("sm_120", "sm_89", "sm_80")
# The launcher's threshold for cudaFuncSetAttribute (family.toml, launcher), written out here
# so that the verdict below is the launcher's own condition, not the model's.
SET_ATTRIBUTE_ABOVE = 48 << 10


def tactic(row: dict[str, Any]) -> model.Tactic:
    t = model.tactic_of(model.LAUNCHER_NAME, tuple(row["args"]))
    assert isinstance(t, model.Tactic), t
    return t


def test_truth_covers_every_instantiation_of_every_release() -> None:
    for version in RELEASES:
        rows = [r for r in ROWS if version in r["versions"]]
        assert len(rows) == 60, version
        assert len({tuple(r["args"]) for r in rows}) == 60, version
    assert set(TRUTH["runs"]) == set(RELEASES)


def launcher_condition(smem: int, optin: int, static: int = 0) -> bool:
    """fused_gemm_maximum_active_blocks + TLLM_CHECK(occupancy > 0), with the compiler's smem:
    above 48 KiB the launch needs cudaFuncSetAttribute(smem) to succeed (smem + static <= opt-in);
    below it, the occupancy query, which is positive (opt-in + 1 KiB = shared memory per SM)."""
    return smem <= SET_ATTRIBUTE_ABOVE or smem + static <= optin


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("index", range(len(ROWS)))
def test_verdict_is_the_launchers_condition(index: int, arch: str) -> None:
    row = ROWS[index]
    limits = arch_for(arch)
    outcome = model.launch_outcome(tactic(row), limits)
    assert outcome.smem == row["smem_size"]
    assert outcome.fits == launcher_condition(row["smem_size"], limits.smem_optin)
    if not outcome.fits:
        assert outcome.message == "GPU lacks the shared memory resources to run fused_moe kernel"
        assert outcome.check is model.Check.SET_ATTRIBUTE


def failing(arch: str) -> list[str]:
    rows = [r for r in ROWS if "0.7.4" in r["versions"]]
    return sorted(
        tactic(r).describe()
        for r in rows
        if not launcher_condition(r["smem_size"], arch_for(arch).smem_optin)
    )


def test_a_third_fail_on_101376_none_on_a100() -> None:
    assert len(failing("sm_120")) == len(failing("sm_89")) == len(failing("sm_86")) == 20
    assert failing("sm_121") == failing("sm_120")
    assert failing("sm_80") == []
    tiles = {(d.split()[1], d.split()[2]) for d in failing("sm_120")}
    assert tiles == {
        ("128x128x64", "stages=3"),
        ("128x128x64", "stages=4"),
        ("16x256x64", "stages=3"),
        ("16x256x64", "stages=4"),
        ("64x128x64", "stages=4"),
    }


def test_the_headline_numbers() -> None:
    """128x128x64 with 4 stages, Swiglu: A 128x64x4, gate and weight 64x64x4 each, O 128x64,
    all 2-byte: 65,536 + 2 x 32,768 + 16,384 = 147,456 B."""
    t = model.tactic_of(
        model.LAUNCHER_NAME,
        (
            "cutlass::bfloat16_t",
            "cutlass::bfloat16_t",
            "128",
            "128",
            "64",
            "4",
            "tensorrt_llm::cutlass_extensions::EpilogueOpDefaultSilu",
        ),
    )
    assert isinstance(t, model.Tactic)
    assert model.kernel_smem(t) == 147456
    sm120 = model.launch_outcome(t, arch_for("sm_120"))
    assert not sm120.fits and sm120.limit == 101376
    assert model.launch_outcome(t, arch_for("sm_80")).fits
