"""The CUTLASS 2.x implicit-GEMM conv model equals nvcc, byte for byte, on every DefaultConv*
kernel of a real cutlass_library 120a build (tests/data/nvcc_cutlass2_conv_truth.json, 139 rows:
conv2d and conv3d fprop, dgrad, wgrad and group fprop; SIMT and tensor op, Sm50 to Sm80; analytic,
optimized, fixed- and few-channels iterators; NHWC and interleaved NC32HW32/NC64HW64; 2 to 5
stages), and says why it leaves the one depthwise direct conv out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.cutlass2_conv import model

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_conv_truth.json"
ALL: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]
ROWS = [r for r in ALL if r["template"] != model.DEPTHWISE]


def modeled(row: dict[str, Any]) -> dict[str, int]:
    k = model.kernel_of(row["template"], tuple(row["args"]))
    kernel = model.kernel_shared_storage(k)
    return {
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": model.mma_shared_storage(k).size,
        "epilogue_smem": model.epilogue_shared_storage(k).size,
        "stages": k.stages,
        "threads": model.threads_per_block(k),
    }


def test_the_truth_covers_every_stratum() -> None:
    assert len(ALL) == 139 and not json.loads(TRUTH.read_text())["compile_errors"]
    assert len(ROWS) == 138
    kernels = [model.kernel_of(r["template"], tuple(r["args"])) for r in ROWS]
    assert {r["template"] for r in ROWS} == set(model.TEMPLATES)
    assert {k.opclass.rsplit("::", 1)[-1] for k in kernels} == {"OpClassSimt", "OpClassTensorOp"}
    assert {k.arch_tag for k in kernels} == {50, 75, 80}
    assert {k.stages for k in kernels} == {2, 3, 4, 5}
    assert {k.iterator_algorithm for k in kernels} == {
        "kAnalytic",
        "kOptimized",
        "kFixedChannels",
        "kFewChannels",
    }
    assert any(k.interleaved for k in kernels)


@pytest.mark.parametrize("row", ROWS, ids=[r["kernel"] for r in ROWS])
def test_model_equals_nvcc(row: dict[str, Any]) -> None:
    k = model.kernel_of(row["template"], tuple(row["args"]))
    assert model.scope_reason(k) is None
    want = {key: row[key] for key in modeled(row)}
    assert modeled(row) == want
