"""`cutlint binaries` and the rules a binary decides (CUT108, CUT110, CUT111), on kernels compiled
here: a kernel without launch bounds at 96 registers cannot launch 1,024 threads (CUT108); a
kernel squeezed to 32 registers by its launch bounds spills (CUT111, from ptxas's log); the
others launch, and the findings name nothing else."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.binaries.judge import judge
from cutlint.binaries.read import read_paths
from cutlint.cli import main
from cutlint.engine.loader import rules_by_id
from cutlint.model.arch import arch_for

WIDE = r"""
__global__ void wide(float* out, const float* in, int n) {
  float acc[80];
  #pragma unroll
  for (int i = 0; i < 80; ++i) acc[i] = in[threadIdx.x + i * n];
  float s = 0;
  #pragma unroll
  for (int j = 0; j < 3; ++j)
    #pragma unroll
    for (int i = 0; i < 80; ++i) s = s * acc[(i + j) % 80] + acc[i];
  out[threadIdx.x] = s;
}
"""

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


@pytest.fixture(scope="module")
def cubin(tmp_path_factory: pytest.TempPathFactory, kernel_source: str) -> tuple[Path, Path]:
    assert NVCC is not None
    d = tmp_path_factory.mktemp("judge")
    (d / "k.cu").write_text(kernel_source + WIDE)
    run = subprocess.run(
        [NVCC, "-cubin", "-arch=sm_90a", "-Xptxas", "-v", "-o", str(d / "k.cubin"), str(d / "k.cu")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    (d / "ptxas.log").write_text(run.stdout + run.stderr)
    return d / "k.cubin", d / "ptxas.log"


def test_findings_per_kernel(cubin: tuple[Path, Path]) -> None:
    from cutlint.binaries.ptxas import parse

    path, log = cubin
    spills = {k.name: k for k in parse(log.read_text())}
    verdicts = judge(read_paths([path]).kernels, arch_for("sm_90"), 1024, 0, spills)
    found = {v.image.kernel.name: [d.rule for d in v.diagnostics] for v in verdicts}
    wide = next(v for v in verdicts if v.image.kernel.name == "_Z4widePfPKfi")
    assert wide.image.kernel.registers is not None and wide.image.kernel.registers > 64
    assert wide.occupancy is not None and wide.occupancy.blocks_per_sm == 0
    assert found == {
        "_Z4widePfPKfi": ["CUT108"],
        "_Z8squeezedPfPKfi": ["CUT111"],
        "_Z6framedPfPKfi": [],  # a local array: a frame, no spill
        "_Z5heavyPfPKfi": [],
        "_Z5lightPi": [],
    }


def test_no_block_size_no_finding(cubin: tuple[Path, Path]) -> None:
    path, _ = cubin
    verdicts = judge(read_paths([path]).kernels, arch_for("sm_90"))
    wide = next(v for v in verdicts if v.image.kernel.name == "_Z4widePfPKfi")
    assert wide.threads is None and wide.occupancy is None and wide.diagnostics == ()


def test_the_command(cubin: tuple[Path, Path]) -> None:
    path, log = cubin
    args = ["binaries", str(path), "--arch", "sm_90", "--threads", "1024", "--ptxas-log", str(log)]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 1, text.output
    assert "CUT108 registers-exceed-block-limit" in text.output
    assert "too many resources requested for launch" in text.output
    out = CliRunner().invoke(main, [*args, "--format", "json"])
    data = json.loads(out.output)
    heavy = next(k for k in data["kernels"] if k["name"] == "_Z5heavyPfPKfi")
    assert (heavy["registers"], heavy["register_cap"], heavy["threads"]) == (
        heavy["registers"], 168, 384,
    )  # fmt: skip
    assert heavy["occupancy"]["blocks_per_sm"] == 1
    clean = CliRunner().invoke(main, ["binaries", str(path), "--arch", "sm_90"])
    assert clean.exit_code == 0, clean.output


def test_the_binary_rules_exist_and_speak_of_no_family() -> None:
    rules = rules_by_id()
    for rule in ("CUT108", "CUT109", "CUT110", "CUT111"):
        assert rules[rule].applies_to.families == []
