"""The real SM120 files that FlashInfer's own generator writes (0.6.3 and 0.7.2.post1, made at test
time from the wheels), checked end to end against compiler truth (tests/data, from nvcc)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.families.base import moe_args
from cutlint.records import Verdict

EXPECTED = {"0.6.3": 40, "0.7.2.post1": 88}
SM120_OPTIN = 101376


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_check_equals_compiler_on_real_files(
    version: str, real_cache: Any, nvcc_truth: list[dict[str, Any]]
) -> None:
    directory: Path = real_cache(version)
    result = api.check([directory])
    rows = [r for f in result.files for r in f.instantiations]
    assert len(rows) == EXPECTED[version]
    assert not result.all_diagnostics() or all(
        d.rule in ("CUT101", "CUT102", "CUT104") for d in result.all_diagnostics()
    )
    truth = {(t["file"], t["line"]): t for t in nvcc_truth if t["version"] == version}
    for r in rows:
        t = truth[(Path(r.instantiation.span.path).name, r.instantiation.span.line)]
        res = r.resources
        assert res is not None, r.not_modeled
        assert res.cutlass_version == {"0.6.3": "4.2.1", "0.7.2.post1": "4.5.0"}[version]
        assert (res.stage_count.stages, res.layout.size) == (t["stages"], t["kernel_smem"])
        overflows = t["kernel_smem"] > SM120_OPTIN
        assert (r.verdict is Verdict.FAILS_INITIALIZE) == overflows
        assert (r.verdict is Verdict.ZERO_SLACK) == (t["kernel_smem"] == SM120_OPTIN)


def test_predicted_failures_are_the_headline_tactics(real_cache: Any) -> None:
    """FP4 x FP4, FINALIZE, SwapAB off, 128x256x128 or 256x128x128, half or bf16: the only failures."""
    for version in EXPECTED:
        result = api.check([real_cache(version)])
        failing = {
            (
                str(moe_args(r).cta_tile),
                moe_args(r).output_type,
                moe_args(r).swap_ab,
            )
            for f in result.files
            for r in f.instantiations
            if r.verdict is Verdict.FAILS_INITIALIZE and moe_args(r)
        }
        assert {(t, s) for t, _, s in failing} == {("128x256x128", False), ("256x128x128", False)}
        assert len(failing) == 4


# Releases beyond the two with compiler truth: the macro's parameter list, the vendored CUTLASS and
# the dispatch list come from each release's row of producers/flashinfer/data/releases.toml.
RELEASES = {
    # version: (instantiations, vendored CUTLASS, FINALIZE SwapAB-off failures)
    "0.5.2": (8, "4.2.1", 0),  # 14-parameter macro; the generator writes no FINALIZE tactic
    "0.6.6": (40, "4.2.1", 4),
    "0.6.8.post1": (40, "4.4.2", 4),
    "0.7.4": (88, "4.5.0", 4),
}


@pytest.mark.parametrize("version", sorted(RELEASES))
def test_every_release_reads_without_false_input_errors(version: str, real_cache: Any) -> None:
    count, cutlass, failures = RELEASES[version]
    result = api.check([real_cache(version)])
    rows = [r for f in result.files for r in f.instantiations]
    assert len(rows) == count
    assert all(d.rule in ("CUT101", "CUT102", "CUT104") for d in result.all_diagnostics())
    assert all(r.resources is not None for r in rows), [r.not_modeled for r in rows]
    origins = {r.resources.cutlass_version_origin for r in rows if r.resources}
    assert origins == {f"FlashInfer {version} vendors CUTLASS {cutlass}"}
    failing = [r for r in rows if r.verdict is Verdict.FAILS_INITIALIZE]
    assert len(failing) == failures
    for r in failing:
        args = moe_args(r)
        assert args is not None and args.fusion is not None
        assert (args.fusion.value, args.swap_ab, r.resources and r.resources.layout.size) == (
            "FINALIZE",
            False,
            102400,
        )


def test_a_release_newer_than_the_table_is_judged_with_the_nearest_and_says_so(
    real_cache: Any, tmp_path: Path
) -> None:
    import shutil

    newer = tmp_path / "flashinfer" / "9.9.9" / "120f" / "generated" / "cutlass_instantiations"
    shutil.copytree(real_cache("0.7.4"), newer / "120" / "gemm_grouped" / "120")
    result = api.check([newer])
    origins = {
        r.resources.cutlass_version_origin
        for f in result.files
        for r in f.instantiations
        if r.resources
    }
    (origin,) = origins
    assert (
        "FlashInfer 9.9.9 is not in cutlint's release table; judged as FlashInfer 0.7.4" in origin
    )
    assert origin.endswith("FlashInfer 0.7.4 vendors CUTLASS 4.5.0")
