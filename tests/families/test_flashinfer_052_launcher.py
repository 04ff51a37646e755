"""FlashInfer 0.5.2's 14-parameter MoE launcher builds other recipes than 0.5.3 on, measured by
nvcc 13.0 (`cutlint verify` against the 0.5.2 wheel): its Sm90 epilogue is
PtrArrayNoSmemWarpSpecialized (epilogue SharedStorage 1 B; stages 12/11/9/7 on M128_group0 where
the 0.5.3+ recipe gives 12/10/8/6) and its FINALIZE is EpilogueMoeFusedFinalizeBuilder (16,384 B
on M128_group17, 128x256x128 e4m3): such calls are not modeled, with that reason, never judged by
the other recipe. Its SM120 NONE calls are modeled (the swapped problem: nvcc_sm120_truth.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.records import Verdict


def test_052_sm90_grouped_calls_say_why_not(flashinfer_root: Any, tmp_path: Path) -> None:
    grouped = generate_cache(flashinfer_root("0.5.2"), "0.5.2", tmp_path, sm=90)
    files = [p for p in sorted(grouped.glob("*.cu")) if "_Mixed_" not in p.name][:3]
    result = api.check(files, api.CheckOptions(flashinfer_version="0.5.2", arch="sm_90"))
    rows = [r for f in result.files for r in f.instantiations]
    assert rows and {r.verdict for r in rows} == {Verdict.NOT_MODELED}
    assert all(
        "PtrArrayNoSmemWarpSpecialized" in (r.not_modeled.reason if r.not_modeled else "")
        for r in rows
    )


def test_052_sm120_finalize_says_why_not(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    # a 0.5.2-shaped call (14 arguments), written for this test
    f.write_text(
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half,\n"
        "  EpilogueOpDefault, FINALIZE, 128, 128, 128, 1, 1, 1, false, false);\n"
    )
    options = api.CheckOptions(flashinfer_version="0.5.2", arch="sm_120")
    (row,) = [r for x in api.check([f], options).files for r in x.instantiations]
    assert row.verdict is Verdict.NOT_MODELED
    assert (
        row.not_modeled is not None and "EpilogueMoeFusedFinalizeBuilder" in row.not_modeled.reason
    )
