"""The cutlass2-blas3 and cutlass2-gemm-planar-complex models equal nvcc, byte for byte, on one
kernel of every (directory, tile, stages) stratum of the 120a generator's `--kernels all` for their
templates (tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json, 225 rows: 3 to 10 stages,
24 of them over sm_120's 101,376 B opt-in limit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutlint.families.cutlass2_blas3 import model as blas3
from cutlint.families.cutlass2_gemm_planar_complex import model as planar

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_blas3_planar_truth_all_kernels.json"
ROWS: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]
SM120_OPTIN = 101376


def modeled(row: dict[str, Any]) -> tuple[str | None, dict[str, int]]:
    if row["template"] in blas3.TEMPLATES:
        k = blas3.kernel_of(row["template"], tuple(row["args"]))
        reason = blas3.scope_reason(k)
        kernel, mma, epi = (
            blas3.kernel_shared_storage(k),
            blas3.mma_shared_storage(k),
            blas3.epilogue_shared_storage(k),
        )
        threads, stages = blas3.threads_per_block(k), k.stages
    else:
        pk = planar.kernel_of(tuple(row["args"]))
        reason = planar.scope_reason(pk)
        kernel, mma, epi = (
            planar.kernel_shared_storage(pk),
            planar.mma_shared_storage(pk),
            planar.epilogue_shared_storage(pk),
        )
        threads, stages = planar.threads_per_block(pk), pk.stages
    return reason, {
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "mainloop_smem": mma.size,
        "epilogue_smem": epi.size,
        "stages": stages,
        "threads": threads,
    }


def test_the_strata_reach_ten_stages_and_the_limit() -> None:
    assert len(ROWS) == 225 and not json.loads(TRUTH.read_text())["compile_errors"]
    assert {r["template"] for r in ROWS} == {*blas3.TEMPLATES, planar.TEMPLATE}
    assert sum(r["kernel_smem"] > SM120_OPTIN for r in ROWS) == 24
    assert max(r["stages"] for r in ROWS) == 10


@pytest.mark.parametrize("row", ROWS, ids=[r["kernel"] for r in ROWS])
def test_model_equals_nvcc(row: dict[str, Any]) -> None:
    reason, got = modeled(row)
    assert reason is None
    assert got == {key: row[key] for key in got}
