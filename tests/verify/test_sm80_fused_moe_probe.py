"""The SM80 fused-MoE probe: the patched launcher, and one real compile equal to the truth.

The default run holds one compile (FlashInfer 0.7.4's M128_group1 file: 4 instantiations, 3 of
which fail on sm_120); the committed truth of all 60 x 3 is tests/data/nvcc_sm80_fused_moe_truth.json
(`python -m cutlint.verify.sm80_fused_moe_truth`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.families.probe import PatchError
from cutlint.families.sm80_fused_moe.probe import HELPERS_HPP, SM80_LAUNCHER_REL, patch_launcher
from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.sm80_fused_moe_probe import run_probe

TRUTH = Path(__file__).parent.parent / "data" / "nvcc_sm80_fused_moe_truth.json"
M128_1 = "cutlass_kernel_file_gemm_grouped_sm80_M128_group1.generated.cu"


def test_patch_keeps_the_kernel_type_and_drops_the_launch(
    flashinfer_root: Callable[[str], Path],
) -> None:
    launcher = FlashInferTree(flashinfer_root("0.7.4")).nv_internal / SM80_LAUNCHER_REL
    text = launcher.read_text()
    patched = patch_launcher(text, launcher)
    assert patched.startswith("#pragma once\n")
    assert HELPERS_HPP in patched
    kept = text[text.index("namespace tensorrt_llm::kernels::cutlass_kernels_oss {") :]
    kept = kept[: kept.index("activation_type>;") + len("activation_type>;\n")]
    assert kept in patched, "the launcher is kept byte for byte up to `using GemmType`"
    body = patched[patched.rindex("using GemmType =") :]
    assert "::cutlint_sm80_probe::touch<GemmType," in body
    for gone in ("run_global<GemmType>", "cudaFuncSetAttribute", "TLLM_CHECK_WITH_INFO"):
        assert gone not in body


def test_patch_fails_loudly_on_a_changed_launcher(tmp_path: Path) -> None:
    launcher = tmp_path / "fused_moe_gemm_launcher_sm80.inl"
    with pytest.raises(PatchError, match="using GemmType"):
        patch_launcher(
            "namespace tensorrt_llm::kernels::cutlass_kernels_oss {\ntemplate <typename "
            "ElementType_, typename CutlassWeightType_, int MaxTileM_, int TileN_, int TileK_, "
            "int Stages_, typename EpilogueTag>\nvoid sm80_generic_fused_moe_gemm_kernelLauncher("
            ") {}\n}  // namespace\n",
            launcher,
        )


@pytest.mark.compiler
def test_one_real_file_equals_the_committed_truth(
    nvcc: str,
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    grouped80 = real_cache("0.7.4").parent.parent / "gemm_grouped" / "80"
    run = run_probe([grouped80 / M128_1], flashinfer_root("0.7.4"), nvcc, workdir=tmp_path)
    truth = {
        r["line"]: r
        for r in json.loads(TRUTH.read_text())["rows"]
        if "0.7.4" in r["versions"] and r["file"] == M128_1
    }
    assert len(run.rows) == len(truth) == 4, (len(run.rows), sorted(truth))
    for row in run.rows:
        t = truth[row.line]
        assert list(row.args) == t["args"]
        assert (row.smem_size, row.threads_per_block, row.members) == (
            t["smem_size"],
            t["threads_per_block"],
            t["members"],
        )
    assert sorted(r.smem_size for r in run.rows) == [81920, 114688, 147456, 147456]
