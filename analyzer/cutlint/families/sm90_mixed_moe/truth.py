"""Compiler truth of the SM90 mixed-input MoE: FlashInfer 0.7.4's own generated gemm_grouped/90
*_Mixed_* files (every tile/cluster/schedule and every type/scale-mode/kernel-type combination,
the small-K launcher's included) and a sample of 0.6.3's, whose launcher builds the 0.6.x
recipe; compared as the mixed-input GEMM's (sm90_mixed_gemm/truth.py)."""

from __future__ import annotations

from cutlint.cutlass import sm90_mixed_input as mixed
from cutlint.families.sm90_mixed_gemm.truth import mixed_comparison
from cutlint.families.sm90_mixed_moe import model
from cutlint.families.truth import Comparison, Row, Truth

LEGACY = frozenset(model.family_data()["legacy"]["releases"])


def compare(row: Row) -> Comparison | str:
    t = model.tactic_of(tuple(row["args"]), bool(LEGACY & set(row["versions"])))
    if not isinstance(t, model.Tactic):
        return str(t)
    stages = model.stage_count(t).stages
    tensors = mixed.array_tensor_storage(**model._mainloop_args(t, stages))
    return mixed_comparison(model, t, tensors, row)


TRUTH = Truth(compare)
