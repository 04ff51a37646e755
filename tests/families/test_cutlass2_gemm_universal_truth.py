"""The CUTLASS 2.x universal GEMM model equals nvcc on every DefaultGemmUniversal kernel of a real
cutlass_library 120a build (tests/data/nvcc_cutlass2_gemm_truth.json, 208 rows: SIMT and tensor op,
Sm50 to Sm80, real, complex, mixed-input, interleaved, 2 to 5 stages), byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.cutlass2_gemm_universal import model

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_gemm_truth.json"
ROWS: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]


def modeled(row: dict[str, Any]) -> dict[str, int]:
    k = model.kernel_of(tuple(row["args"]))
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
    """Every operator class, arch directory and stage count of the build is in the rows."""
    assert len(ROWS) == 208 and not json.loads(TRUTH.read_text())["compile_errors"]
    kernels = [model.kernel_of(tuple(r["args"])) for r in ROWS]
    assert {k.opclass.rsplit("::", 1)[-1] for k in kernels} == {"OpClassSimt", "OpClassTensorOp"}
    assert {k.arch_tag for k in kernels} == {50, 60, 61, 75, 80}
    assert {k.stages for k in kernels} == {2, 3, 4, 5}
    assert any(k.complex for k in kernels) and any(k.interleaved for k in kernels)


@pytest.mark.parametrize("row", ROWS, ids=[r["kernel"] for r in ROWS])
def test_model_equals_nvcc(row: dict[str, Any]) -> None:
    k = model.kernel_of(tuple(row["args"]))
    assert model.scope_reason(k) is None
    want = {key: row[key] for key in modeled(row)}
    assert modeled(row) == want
