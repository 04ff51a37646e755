"""The TGV GEMM model against the compiler: every row of tests/data/nvcc_sm100_tgv_gemm_truth.json
(nvcc, sm_100a, every file FlashInfer's gen_tgv_gemm_sm10x_module renders for bf16 and fp16 in
0.6.3 and 0.7.4), byte for byte: sizeof, alignof and every member offset of SharedStorage, the
stage count and the launcher's block size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm100_tgv_gemm import model

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "nvcc_sm100_tgv_gemm_truth.json").read_text()
)["rows"]

MEMBERS = (
    "A",
    "B",
    "tma_mma_full_barrier",
    "tma_mma_empty_barrier",
    "tma_epilog_full_barrier",
    "mma_epilog_full_barrier",
    "tmem_base_ptr",
)


def test_truth_covers_both_modules_every_tile_and_both_releases() -> None:
    assert {r["module"] for r in ROWS} == {"tgv_gemm_bf16", "tgv_gemm_fp16"}
    assert {r["version"] for r in ROWS} == {"0.6.3", "0.7.4"}
    for module in ("tgv_gemm_bf16", "tgv_gemm_fp16"):
        for version in ("0.6.3", "0.7.4"):
            rows = [r for r in ROWS if r["module"] == module and r["version"] == version]
            assert len({tuple(r["args"]) for r in rows}) == 11, (module, version)


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int) -> None:
    row = ROWS[index]
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"])
    assert not isinstance(k, str), k
    got = {
        "stages": k.stages,
        "kernel_smem": k.smem,
        "kernel_align": k.layout.align,
        "max_threads_per_block": k.max_threads_per_block,
    }
    want = {key: row[key] for key in got}
    offsets = {p.name: (p.offset, p.size) for p in k.layout.pieces}
    for m in MEMBERS:
        got[m] = offsets[m]
        want[m] = (row["members"][f"kernel.{m}.offset"], row["members"][f"kernel.{m}.size"])
    assert got == want, (row["file"], row["version"])
