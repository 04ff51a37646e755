"""The SM90 fpA_intB model against the compiler: every row of
tests/data/nvcc_sm90_mixed_gemm_truth.json (nvcc on a stratified sample of FlashInfer's own
generated gemm/90 files: every tile/cluster/schedule and every type/quantization combination),
byte for byte: stages, the mainloop's and epilogue's SharedStorage, SharedStorageSize,
MaxThreadsPerBlock and the mainloop TensorStorage's members."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm90_mixed_gemm import model
from cutlint.families.sm90_mixed_gemm.probe import key_of_args

TRUTH = json.loads(
    (Path(__file__).parent.parent / "data" / "nvcc_sm90_mixed_gemm_truth.json").read_text()
)
ROWS: list[dict[str, Any]] = TRUTH["rows"]


def tactic(row: dict[str, Any]) -> model.Tactic:
    t = model.tactic_of(tuple(row["args"]))
    assert isinstance(t, model.Tactic), t
    return t


def test_truth_is_a_stratified_sample() -> None:
    """At least 20 rows, every tile/cluster/schedule and every type/quantization combination of
    the 378 instantiations (42 and 18 of them in 0.7.4), both releases."""
    rows = [r for r in ROWS if "0.7.4" in r["versions"]]
    assert len(rows) >= 20
    keys = [key_of_args(r["args"]) for r in rows]
    assert len({k[6:] for k in keys}) == 42
    assert len({k[:6] for k in keys}) == 18
    assert any("0.6.3" in r["versions"] for r in ROWS)


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
    tensors = model.mixed.interleaved_tensor_storage(**model._mainloop_args(t, stages))
    got = {"mainloop.tensors.sizeof": tensors.size, "mainloop.tensors.alignof": tensors.align}
    for piece in tensors.flat():
        name = piece.name.rsplit(".", 1)[-1]
        got[f"mainloop.tensors.{name}.offset"] = piece.offset
        got[f"mainloop.tensors.{name}.size"] = piece.size
    assert got == row["members"]
