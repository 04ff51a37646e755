"""The dense MXFP8 SM120 model against the compiler: every row of
tests/data/nvcc_sm120_mxfp8_gemm_truth.json (nvcc on the files FlashInfer 0.6.8.post1 (4-argument
macro, StageCount<2>, CUTLASS 4.4.2), 0.6.11.post2, 0.7.2.post1 and 0.7.4 render), byte for byte."""

from __future__ import annotations

from cutlint.families.sm120_mxfp8_gemm import model
from cutlint.testing.truth import rows

ROWS = rows("sm120-mxfp8-gemm")


def test_truth_covers_every_release() -> None:
    counts = {
        v: sum(1 for r in ROWS if r["version"] == v)
        for v in ("0.6.8.post1", "0.6.11.post2", "0.7.2.post1", "0.7.4")
    }
    assert counts == {"0.6.8.post1": 6, "0.6.11.post2": 20, "0.7.2.post1": 12, "0.7.4": 12}


def test_the_flashinfer_3568_tactics() -> None:
    """256x128 and 128x256 with StageCount<2> (0.6.11.post2): 111,616 B, on every SM12x part."""
    recipe = model.recipe_for("0.6.11.post2")
    assert isinstance(recipe, model.Recipe)
    for m, n in ((256, 128), (128, 256)):
        for swap in ("true", "false"):
            t = model.tactic_of(
                "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120",
                ("half", str(m), str(n), "128", swap),
            )
            assert isinstance(t, model.Tactic)
            sc = model.stage_count(t, recipe)
            assert sc.stages == 2 and "StageCount<2>" in sc.formula
            assert model.kernel_shared_storage(t, 2).size == 111616
