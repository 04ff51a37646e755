"""FlashInfer 0.5.0 and 0.5.1 ship 0.5.2's CUTLASS generator, launchers, GEMM headers and
vendored CUTLASS byte for byte (the wheels' `jit/gemm/cutlass/generate_kernels.py`,
`data/csrc/nv_internal/tensorrt_llm/{kernels/cutlass_kernels,cutlass_extensions}`,
`data/include/flashinfer/gemm` and `data/cutlass`): their caches, JIT GEMM modules included, are
judged as 0.5.2's, with nothing not modeled (the Sm90 grouped calls of the 14-parameter launcher
included: their own recipe, tests/families/test_flashinfer_052_launcher.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.records import Verdict

SAME = (
    "flashinfer/jit/gemm/cutlass/generate_kernels.py",
    "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/"
    "moe_gemm_tma_ws_launcher.inl",
    "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/"
    "moe_gemm_tma_ws_mixed_input_launcher.inl",
    "flashinfer/data/include/flashinfer/gemm/fp4_gemm_template_sm100.h",
    "flashinfer/data/cutlass/include/cutlass/version.h",
)


def _verdicts(version: str, sm: int, out: Path) -> Counter[Verdict]:
    run = CliRunner().invoke(
        main,
        ["generate", "flashinfer", version, "--sm", str(sm), "--jit-gemm", "-q", "--out", str(out)],
    )
    assert run.exit_code == 0, run.output
    result = api.check([run.output.strip().splitlines()[-1]])
    return Counter(r.verdict for f in result.files for r in f.instantiations)


@pytest.mark.parametrize("version", ["0.5.0", "0.5.1"])
@pytest.mark.parametrize("sm", [90, 100])
def test_judged_as_052(version: str, sm: int, flashinfer_root: Any, tmp_path: Path) -> None:
    old, new = flashinfer_root(version), flashinfer_root("0.5.2")
    for rel in SAME:
        assert (old / rel).read_bytes() == (new / rel).read_bytes(), rel
    got = _verdicts(version, sm, tmp_path)
    assert got[Verdict.NOT_MODELED] == 0 and got[Verdict.CONTEXT_UNKNOWN] == 0
    assert got == _verdicts("0.5.2", sm, tmp_path)
