"""The cutlass2-conv, cutlass2-gemm-grouped and cutlass2-sparse-gemm families on a real
cutlass_library 120a build (CUTLASS's own generator, run at test time): each family owns every
kernel of its truth file, the truth rows' arguments are what the build's files say, and the
verdicts on sm_120 are the ones the docs give (20 sparse GEMMs fail initialize())."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.records import Verdict

DATA = Path(__file__).parents[1] / "data"
FAMILIES = {
    "cutlass2-conv": ("nvcc_cutlass2_conv_truth.json", 139, 1, 0),
    "cutlass2-gemm-grouped": ("nvcc_cutlass2_gemm_grouped_truth.json", 12, 0, 0),
    "cutlass2-sparse-gemm": ("nvcc_cutlass2_sparse_gemm_truth.json", 28, 0, 20),
}
"""family: (truth file, kernels of the build, not modeled, failing on sm_120)."""


@pytest.mark.slow
def test_every_kernel_is_owned_and_judged(
    cutlass_library_build: Callable[..., Path],
) -> None:
    generated = cutlass_library_build("120a")
    result = api.check(generated, api.CheckOptions(arch="sm_120"))
    for family, (truth, count, not_modeled, failing) in FAMILIES.items():
        rows: list[dict[str, Any]] = json.loads((DATA / truth).read_text())["rows"]
        mine = [
            r
            for f in result.files
            for r in f.instantiations
            if r.recipe and r.recipe.family == family
        ]
        assert len(mine) == len(rows) == count, family
        assert sum(r.verdict is Verdict.NOT_MODELED for r in mine) == not_modeled, family
        assert sum(r.verdict is Verdict.FAILS_INITIALIZE for r in mine) == failing, family
        by_kernel = {r.instantiation.chain[0].name: r for r in mine}
        for row in rows:
            got = by_kernel[row["kernel"]]
            assert [" ".join(a.split()) for a in got.instantiation.args] == row["args"]
            if got.resources is not None:
                assert got.resources.layout.size == row["kernel_smem"], row["kernel"]
