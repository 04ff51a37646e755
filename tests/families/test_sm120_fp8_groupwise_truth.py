"""The FP8 groupwise GEMM / grouped GEMM SM120 model against the compiler, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm120_fp8_groupwise import model

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "nvcc_sm120_fp8_groupwise_truth.json").read_text()
)["rows"]


def test_truth_covers_every_release() -> None:
    releases = ("0.6.11.post2", "0.7.2.post1", "0.7.4")
    assert {v: sum(1 for r in ROWS if r["version"] == v) for v in releases} == dict.fromkeys(
        releases, 32
    )


@pytest.mark.parametrize("index", range(len(ROWS)))
def test_model_equals_compiler(index: int, check_row: Any) -> None:
    check_row(model, ROWS[index])
