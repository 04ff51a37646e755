"""The SM90 fpA_intB model against the compiler: every row of
tests/data/nvcc_sm90_mixed_gemm_truth.json (nvcc on a stratified sample of FlashInfer's own
generated gemm/90 files: every tile/cluster/schedule and every type/quantization combination),
byte for byte: stages, the mainloop's and epilogue's SharedStorage, SharedStorageSize,
MaxThreadsPerBlock and the mainloop TensorStorage's members."""

from __future__ import annotations

from typing import Any

from cutlint.families.sm90_mixed_gemm import model
from cutlint.families.sm90_mixed_gemm.probe import key_of_args
from cutlint.testing.truth import rows

ROWS = rows("sm90-mixed-gemm")


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
