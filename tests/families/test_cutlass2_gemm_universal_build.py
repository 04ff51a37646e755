"""The cutlass2-gemm-universal family on a real cutlass_library 120a build (CUTLASS's own
generator from the nvidia-cutlass wheel, run at test time): every DefaultGemmUniversal kernel is
modeled, the truth rows' arguments are what the build's files say, 16 kernels fail initialize() on
sm_120, and (compiler) nvcc still agrees on two of them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.families.cutlass2_gemm_universal import model
from cutlint.families.cutlass2_gemm_universal.family import NAME
from cutlint.producers.cutlass_library.generate import DEFAULT_VERSION, download
from cutlint.records import Verdict
from cutlint.verify.alias_probe import probe

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_gemm_truth.json"
ROWS: list[dict[str, Any]] = json.loads(TRUTH.read_text())["rows"]


@pytest.mark.slow
def test_every_kernel_of_the_build_is_modeled_and_16_fail_on_sm_120(
    cutlass_library_build: Callable[..., Path],
) -> None:
    generated = cutlass_library_build("120a")
    result = api.check(generated, api.CheckOptions(arch="sm_120"))
    mine = [
        r for f in result.files for r in f.instantiations if r.recipe and r.recipe.family == NAME
    ]
    assert len(mine) == len(ROWS) == 208
    assert all(r.resources is not None for r in mine)
    failing = [r for r in mine if r.verdict is Verdict.FAILS_INITIALIZE]
    assert len(failing) == 16
    assert {r.resources.layout.size for r in failing if r.resources} == {131072}
    assert all(any(d.rule == "CUT101" for d in r.diagnostics) for r in failing)
    by_kernel = {r.instantiation.chain[0].name: r for r in mine}
    for row in ROWS:
        got = by_kernel[row["kernel"]]
        assert list(got.instantiation.args) == row["args"], row["kernel"]
        assert got.resources is not None and got.resources.layout.size == row["kernel_smem"]


@pytest.mark.slow
@pytest.mark.compiler
def test_nvcc_agrees_on_a_simt_and_a_complex_kernel(
    cutlass_library_build: Callable[..., Path], tmp_path: Path
) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    generated = cutlass_library_build("120a")
    files = [
        generated / "gemm/50/sgemm/cutlass_simt_sgemm_128x128_8x2_tn_align1.cu",
        generated
        / "gemm/80/c1688tf32gemm/cutlass_tensorop_c1688tf32gemm_128x128_16x4_nn_align1.cu",
    ]
    source = download(DEFAULT_VERSION) / "cutlass_library" / "source"
    rows, failures = probe(files, source, tmp_path)
    assert not failures and len(rows) == 2
    for row in rows:
        truth = next(r for r in ROWS if r["kernel"] == row["kernel"])
        k = model.kernel_of(tuple(truth["args"]))
        assert row["kernel_smem"] == model.kernel_shared_storage(k).size
        assert row["epilogue_smem"] == model.epilogue_shared_storage(k).size
        assert row["threads"] == model.threads_per_block(k)
