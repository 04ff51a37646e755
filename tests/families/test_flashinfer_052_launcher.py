"""FlashInfer 0.5.2's 14-parameter MoE launcher builds other recipes than 0.5.3 on, measured by
nvcc 13.0 (`cutlint verify` against the 0.5.2 wheel): its Sm90 epilogue is
PtrArrayNoSmemWarpSpecialized (epilogue SharedStorage 1 B; stages 12/11/9/7 on M128_group0 where
the 0.5.3+ recipe gives 12/10/8/6) and its FINALIZE is EpilogueMoeFusedFinalizeBuilder (16,384 B
on M128_group17, 128x256x128 e4m3), never judged by
the other recipe: the Sm90 family models them (model.Tactic.legacy). Its SM120 NONE calls are modeled (the swapped problem: nvcc_sm120_truth.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.families import moe_macro_family as macro
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.records import Verdict
from cutlint.testing.truth import rows

# nvcc 13.0 (`cutlint verify` against the 0.5.2 wheel): (file, tile) -> (stages, SharedStorageSize,
# epilogue SharedStorage); M128_group0 is f16 NONE, M128_group17 e4m3 FINALIZE
NVCC = {
    ("M128_group0", "128x16x64"): (12, 222_208, 1),
    ("M128_group0", "128x32x64"): (11, 226_304, 1),
    ("M128_group0", "128x64x64"): (9, 222_208, 1),
    ("M128_group0", "128x128x64"): (7, 230_400, 1),
    ("M128_group17", "128x256x128"): (4, 214_016, 16_384),
}


def test_052_sm90_grouped_calls_are_their_own_recipe(flashinfer_root: Any, tmp_path: Path) -> None:
    grouped = generate_cache(flashinfer_root("0.5.2"), "0.5.2", tmp_path, sm=90)
    files = [grouped / f"cutlass_kernel_file_gemm_grouped_sm90_{g}.generated.cu" for g in
             ("M128_group0", "M128_group17")]  # fmt: skip
    result = api.check(files, api.CheckOptions(flashinfer_version="0.5.2", arch="sm_90"))
    seen = set()
    for f in result.files:
        group = Path(f.path).name.split("sm90_")[1].split(".")[0]
        for r in f.instantiations:
            assert r.verdict is not Verdict.NOT_MODELED, r.not_modeled
            res = r.resources
            assert res is not None and res.stage_count is not None and res.layout is not None
            tile = str(macro.args_of(r.recipe).cta_tile) if r.recipe else "?"
            got = (res.stage_count.stages, res.layout.size, res.layout.epilogue_size)
            assert got == NVCC[(group, tile)], (group, tile)
            seen.add((group, tile))
    assert seen == set(NVCC)


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


def test_052_sm90_truth_covers_both_epilogues() -> None:
    """The recorded 0.5.2 rows (compared member by member in tests/families/test_truth.py) hold
    NONE and FINALIZE, f16, f32 and e4m3, and every FINALIZE smem_D size (EpiTileN 16 and 32)."""
    got = rows("sm90-tma-ws-grouped", "tests/data/nvcc_sm90_052_truth.json")
    assert {r["version"] for r in got} == {"0.5.2"}
    assert {(r["args"][1], r["args"][5]) for r in got} >= {
        ("half", "NONE"),
        ("half", "FINALIZE"),
        ("__nv_fp8_e4m3", "NONE"),
        ("__nv_fp8_e4m3", "FINALIZE"),
        ("float", "NONE"),
        ("float", "FINALIZE"),
    }
    assert {r["epilogue_smem"] for r in got} == {1, 8_192, 16_384}
