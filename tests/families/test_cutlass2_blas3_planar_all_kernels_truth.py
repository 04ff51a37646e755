"""The cutlass2-blas3 and cutlass2-gemm-planar-complex models equal nvcc, byte for byte, on one
kernel of every (directory, tile, stages) stratum of the 120a generator's `--kernels all` for their
templates (tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json, 225 rows: 3 to 10 stages,
24 of them over sm_120's 101,376 B opt-in limit)."""

from __future__ import annotations

from pathlib import Path

from cutlint.families.cutlass2_blas3 import model as blas3
from cutlint.families.cutlass2_gemm_planar_complex import model as planar
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_blas3_planar_truth_all_kernels.json"
ROWS = read_truth(TRUTH)["rows"]
SM120_OPTIN = 101376


def test_the_strata_reach_ten_stages_and_the_limit() -> None:
    assert len(ROWS) == 225 and not read_truth(TRUTH)["compile_errors"]
    assert {r["template"] for r in ROWS} == {*blas3.TEMPLATES, planar.TEMPLATE}
    assert sum(r["kernel_smem"] > SM120_OPTIN for r in ROWS) == 24
    assert max(r["stages"] for r in ROWS) == 10
