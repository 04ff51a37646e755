"""The real SM120 files that FlashInfer's own generator writes (0.6.3 and 0.7.2.post1, made at test
time from the wheels), checked end to end against compiler truth (tests/data, from nvcc)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.families.moe_macro_family import moe_args
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
