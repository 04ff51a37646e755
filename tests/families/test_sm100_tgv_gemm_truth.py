"""The TGV GEMM model against the compiler: every row of tests/data/nvcc_sm100_tgv_gemm_truth.json
(nvcc, sm_100a, every file FlashInfer's gen_tgv_gemm_sm10x_module renders for bf16 and fp16 in
0.6.3 and 0.7.4), byte for byte: sizeof, alignof and every member offset of SharedStorage, the
stage count and the launcher's block size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutlint.testing.truth import rows

ROWS = rows("sm100-tgv-gemm")


def test_truth_covers_both_modules_every_tile_and_both_releases() -> None:
    assert {r["module"] for r in ROWS} == {"tgv_gemm_bf16", "tgv_gemm_fp16"}
    assert {r["version"] for r in ROWS} == {"0.6.3", "0.7.4"}
    for module in ("tgv_gemm_bf16", "tgv_gemm_fp16"):
        for version in ("0.6.3", "0.7.4"):
            rows = [r for r in ROWS if r["module"] == module and r["version"] == version]
            assert len({tuple(r["args"]) for r in rows}) == 11, (module, version)


def test_a_rendered_sm103_cache_is_claimed_and_fits(flashinfer_root: Any, tmp_path: Path) -> None:
    """The files FlashInfer's JIT writes for a 10.3 part (gen_tgv_gemm_{bf16,fp16}/): every call
    claimed by this family, judged against sm_103, and every one fits."""
    from cutlint.api import CheckOptions, check
    from cutlint.producers.flashinfer.jit_modules import render_jit_specs

    modules = render_jit_specs(flashinfer_root("0.7.4"), "0.7.4", tmp_path, 103)
    files = [p for m in modules if m.name.startswith("tgv_gemm_") for p in m.generated]
    assert len(files) == 22
    results = check(files, CheckOptions()).files
    insts = [i for r in results for i in r.instantiations]
    assert len(insts) == 22
    assert {i.recipe.family for i in insts if i.recipe is not None} == {"sm100-tgv-gemm"}
    assert {i.verdict.value for i in insts} == {"fits"}
