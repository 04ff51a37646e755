"""`cutlint verify --device-code` on one small case: ptxas's report per kernel, the cubin's cap,
the cache (a second run compiles nothing) and sharding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.verify.device_code import compile_report, shard_files
from cutlint.verify.headers import find_nvcc

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


def test_report_cache_and_command(tmp_path: Path, kernel_source: str) -> None:
    assert NVCC is not None
    src = tmp_path / "k.cu"
    src.write_text(kernel_source)
    version = find_nvcc(None).version_text
    first = compile_report(src, (), "sm_90a", NVCC, version, tmp_path / "cache")
    assert first.error is None and not first.cached
    rows = {k["name"]: k for k in first.kernels}
    squeezed, heavy = rows["_Z8squeezedPfPKfi"], rows["_Z5heavyPfPKfi"]
    assert squeezed["register_cap"] == 32 and squeezed["spill_stores"] > 0
    assert heavy["register_cap"] == 168 and heavy["max_threads"] == [384, 1, 1]
    again = compile_report(src, (), "sm_90a", NVCC, version, tmp_path / "cache")
    assert again.cached and again.kernels == first.kernels
    out = CliRunner().invoke(
        main,
        ["verify", "--device-code", str(src), "--arch", "sm_90", "--format", "json",
         "--cache-dir", str(tmp_path / "cache")],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    (report,) = json.loads(out.output)
    assert report["cached"] and report["kernels"] == [dict(k) for k in first.kernels]


def test_a_file_that_does_not_compile_says_why(tmp_path: Path) -> None:
    assert NVCC is not None
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k() { undeclared(); }\n")
    report = compile_report(bad, (), "sm_90a", NVCC, "v", None)
    assert report.error is not None and "undeclared" in report.error


def test_shards_are_disjoint_and_whole() -> None:
    files = [Path(f"f{i}.cu") for i in range(7)]
    parts = [shard_files(files, k, 3) for k in (1, 2, 3)]
    assert sorted(p for part in parts for p in part) == sorted(files)
    assert sum(len(p) for p in parts) == 7
