"""The SM90 segment GEMM model against the compiler, byte for byte: every kernel (both weight
layouts) of the six instantiations the JIT module gemm_sm90 renders, for each vendored CUTLASS
(tests/data/nvcc_sm90_segment_gemm_truth.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm90_segment_gemm import model

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "nvcc_sm90_segment_gemm_truth.json").read_text()
)["rows"]


def test_truth_covers_every_kernel_of_every_release() -> None:
    # 2 x 2 (16-bit inputs: both weight layouts) + 4 x 1 (FP8: ColumnMajor only) per release
    releases = ("0.6.3", "0.6.8.post1", "0.6.11.post2", "0.7.2.post1", "0.7.4")
    assert {v: sum(1 for r in ROWS if r["version"] == v) for v in releases} == dict.fromkeys(
        releases, 8
    )
    # one compile per vendored CUTLASS (4.2.1, 4.4.2, 4.5.0)
    assert {r["probed_in"] for r in ROWS} == {"0.6.3", "0.6.8.post1", "0.6.11.post2"}
    assert {r["label"] for r in ROWS} == {"b_k_major", "b_n_major"}


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int, check_row: Any) -> None:
    check_row(model, ROWS[index])


# nvcc's member offsets -> the model's SharedStorage regions (offset of the first piece)
MEMBERS = {
    "kernel.tensors.epilogue": "tensors.epilogue",
    "kernel.pipelines.scheduler": "pipelines.scheduler",
    "kernel.pipelines.mainloop": "pipelines.mainloop",
    "kernel.pipelines.load_order": "pipelines.load_order",
    "kernel.scheduler_response": "scheduler_response",
    "kernel.tensormaps": "tensormaps.mainloop.smem_tensormap_A",
    "mainloop.tensors.smem_B": "tensors.mainloop.smem_B",
}


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_member_offsets_equal_compiler(index: int) -> None:
    row = ROWS[index]
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row["label"])
    assert not isinstance(k, str), k
    pieces = {p.name.removeprefix("SharedStorage."): p for p in k.layout.flat()}
    got = {m: pieces[p].offset for m, p in MEMBERS.items()}
    assert got == {m: row["members"][f"{m}.offset"] for m in MEMBERS}
