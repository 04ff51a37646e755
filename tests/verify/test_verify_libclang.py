"""`cutlint verify --backend libclang`: clang's record layout of the same types, no nvcc run.

`slow` (a parse of a few seconds per file, and the wheels): 0.6.3's M256_BS_group0, 8
instantiations, must give the committed nvcc truth, field by field, through the whole command.
Skipped without the clang bindings, the CUDA toolkit's headers or the wheels.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint.cli import main

M256 = "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"
FIELDS = {
    "stages": "stages",
    "smem_bytes": "kernel_smem",
    "mainloop_smem_bytes": "mainloop_smem",
    "epilogue_smem_bytes": "epilogue_smem",
    "max_threads_per_block": "max_threads_per_block",
}


@pytest.mark.slow
def test_libclang_gives_the_nvcc_truth(
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    nvcc_truth: list[dict[str, Any]],
    tmp_path: Path,
) -> None:
    pytest.importorskip("clang.cindex")
    from cutlint.verify.libclang_layout import find_cuda_path, run_layout

    if find_cuda_path() is None:
        pytest.skip("no CUDA toolkit headers (cuda_runtime.h) for libclang")
    path, root = real_cache("0.6.3") / M256, flashinfer_root("0.6.3")
    truth = {r["line"]: r for r in nvcc_truth if r["version"] == "0.6.3" and r["file"] == M256}
    assert len(truth) == 8

    # The backend itself: every number, and the kernel's alignment.
    rows = run_layout(path, root, tmp_path / "build").rows
    assert [r.line for r in rows] == sorted(truth)
    for row in rows:
        t = truth[row.line]
        assert list(row.args) == t["args"]
        got = (row.stages, row.mainloop_smem, row.epilogue_smem, row.kernel_smem)
        assert got == (t["stages"], t["mainloop_smem"], t["epilogue_smem"], t["kernel_smem"])
        assert (row.kernel_align, row.max_threads_per_block) == (
            t["kernel_align"],
            t["max_threads_per_block"],
        )

    # Through the command: the compiler side of every row is the truth, and the model agrees.
    args = ["verify", str(path), "--headers", str(root), "--backend", "libclang"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--format", "json"]
    result = CliRunner().invoke(main, args)
    data = json.loads(result.stdout)
    assert result.exit_code == 0, result.stderr
    assert data["compiler"]["name"] == "libclang"
    assert len(data["instantiations"]) == 8
    for inst in data["instantiations"]:
        t = truth[inst["line"]]
        assert inst["status"] == "agree"
        for ours, theirs in FIELDS.items():
            assert inst[ours] == t[theirs], (inst["line"], ours)
