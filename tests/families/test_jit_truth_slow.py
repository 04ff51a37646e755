"""The slow suite: ask nvcc again for every row of each JIT family's committed compiler truth
(tests/data/nvcc_<family>_truth.json), so that the truth cannot drift from what the compiler says
about the releases' own files. About one compile of 8 files per module and release (~1-3 min
each, one at a time)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cutlint.verify.jit_truth import collect

DATA = Path(__file__).parents[1] / "data"
FAMILIES = (
    "sm120_mxfp8_gemm",
    "sm120_fp4_gemm",
    "sm120_fp8_groupwise",
    "sm120_fp4_group_gemm",
    "sm120_svdquant",
    "sm100_jit_gemm",
    "sm90_segment_gemm",
)
KEYS = ("version", "file", "name", "args", "label", "stages", "mainloop_smem", "epilogue_smem",
        "kernel_smem", "kernel_align", "max_threads_per_block", "members")  # fmt: skip


@pytest.mark.slow
@pytest.mark.compiler
@pytest.mark.parametrize("family", FAMILIES)
def test_truth_is_what_nvcc_says(family: str, flashinfer_root: Any, tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    committed = json.loads((DATA / f"nvcc_{family}_truth.json").read_text())["rows"]
    versions = sorted({r["version"] for r in committed})
    wheels = flashinfer_root(versions[0]).parent
    fresh = collect(family, versions, wheels, tmp_path)
    pick = lambda rows: sorted(json.dumps({k: r[k] for k in KEYS}, sort_keys=True) for r in rows)  # noqa: E731
    assert pick(fresh) == pick(committed)
