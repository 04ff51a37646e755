"""The SM90 mixed-input MoE model against the compiler: every row of
tests/data/nvcc_sm90_mixed_moe_truth.json (nvcc on FlashInfer 0.7.4's own generated
gemm_grouped/90 *_Mixed_* files: a sample holding every tile/cluster/schedule and every
type/scale-mode/kernel-type combination, the small-K launcher's included; and a sample of
0.6.3's, whose launcher builds the 0.6.x recipe), byte for byte."""

from __future__ import annotations

from typing import Any

from cutlint.families.sm90_mixed_gemm.probe import moe_key_of_args
from cutlint.families.sm90_mixed_moe import model
from cutlint.testing.truth import rows

ROWS = rows("sm90-mixed-moe")


LEGACY = set(model.family_data()["legacy"]["releases"])


def tactic(row: dict[str, Any]) -> model.Tactic:
    legacy = bool(LEGACY & set(row["versions"]))
    t = model.tactic_of(tuple(row["args"]), legacy)
    assert isinstance(t, model.Tactic), t
    return t


def test_truth_is_a_stratified_sample() -> None:
    rows = [r for r in ROWS if "0.7.4" in r["versions"]]
    assert len(rows) >= 20
    keys = [moe_key_of_args(r["args"]) for r in rows]
    assert len({k[:4] for k in keys}) == 9  # type x scale mode x kernel type
    assert any(tactic(r).single_warpgroup for r in rows)
    assert any(tactic(r).prescale and not tactic(r).single_warpgroup for r in rows)
    # FlashInfer 0.6.x's launcher, every (activation, weight) pair of its generator
    legacy = [r for r in ROWS if LEGACY & set(r["versions"])]
    assert len({tuple(r["args"][:2]) for r in legacy}) == len(
        model.family_data()["legacy"]["pairs"]
    )
