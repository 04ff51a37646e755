"""The SM90 mixed-input MoE model against the compiler: every row of
tests/data/nvcc_sm90_mixed_moe_truth.json (nvcc on FlashInfer 0.7.4's own generated
gemm_grouped/90 *_Mixed_* files: a sample holding every tile/cluster/schedule and every
type/scale-mode/kernel-type combination, the small-K launcher's included; and a sample of
0.6.3's, whose launcher builds the 0.6.x recipe), byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm90_mixed_gemm.probe import moe_key_of_args
from cutlint.families.sm90_mixed_moe import model

TRUTH = json.loads(
    (Path(__file__).parent.parent / "data" / "nvcc_sm90_mixed_moe_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]


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


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int) -> None:
    row = ROWS[index]
    t = tactic(row)
    stages = model.stage_count(t).stages
    assert stages == row["stages"]
    assert model.mainloop_shared_storage(t, stages).size == row["mainloop_size"]
    assert model.epilogue_shared_storage(t).size == row["epilogue_size"]
    assert model.kernel_shared_storage(t, stages).size == row["smem_size"]
    assert model.max_threads_per_block(t) == row["max_threads_per_block"]
    tensors = model.mixed.array_tensor_storage(**model._mainloop_args(t, stages))
    got = {"mainloop.tensors.sizeof": tensors.size, "mainloop.tensors.alignof": tensors.align}
    for piece in tensors.flat():
        name = piece.name.rsplit(".", 1)[-1]
        got[f"mainloop.tensors.{name}.offset"] = piece.offset
        got[f"mainloop.tensors.{name}.size"] = piece.size
    assert {k: got[k] for k in row["members"]} == row["members"]
