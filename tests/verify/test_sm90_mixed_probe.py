"""The SM90 mixed-input probe: the patched launchers, and one real compile equal to the truth.

The committed truth is tests/data/nvcc_sm90_mixed_gemm_truth.json
(`python -m cutlint.verify.sm90_mixed_truth`); the compile below is in the slow suite (about a
minute for one gemm/90 file of 8 instantiations on two cores).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.families.probe import PatchError
from cutlint.families.sm90_mixed_gemm.probe import (
    HELPERS_HPP,
    LAUNCHER_REL,
    MOE_LAUNCHER_REL,
    key_of_args,
    patch_launcher,
    patch_moe_launcher,
)
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.sm90_mixed_probe import run_probe

TRUTH = Path(__file__).parent.parent / "data" / "nvcc_sm90_mixed_gemm_truth.json"
# A file of the committed sample (the greedy stratification's M = 64 pick).
M64 = "cutlass_kernel_file_gemm_sm90_M64_group10.generated.cu"


def test_patch_keeps_the_kernel_type_and_drops_the_run(
    flashinfer_root: Callable[[str], Path],
) -> None:
    launcher = FlashInferTree(flashinfer_root("0.7.4")).nv_internal / LAUNCHER_REL
    text = launcher.read_text()
    patched = patch_launcher(text, launcher)
    assert patched.startswith("#pragma once\n") and HELPERS_HPP in patched
    kept = text[text.index("void sm90_generic_mixed_gemm_kernelLauncher(") :]
    kept = kept[: kept.index("TileScheduler>;") + len("TileScheduler>;\n")]
    assert kept in patched, "the launcher is kept byte for byte up to `using GemmKernel`"
    body = patched[patched.rindex("using GemmKernel =") :]
    assert "::cutlint_sm90_mixed_probe::touch<GemmKernel," in body
    for gone in ("gemm.run(", "initialize(", "compute_occupancy_for_kernel"):
        assert gone not in body
    assert "not compiled with FAST_BUILD" in body  # the else branch is kept


def test_moe_patch_keeps_the_kernel_type_and_drops_the_run(
    flashinfer_root: Callable[[str], Path],
) -> None:
    launcher = FlashInferTree(flashinfer_root("0.7.4")).nv_internal / MOE_LAUNCHER_REL
    patched = patch_moe_launcher(launcher.read_text(), launcher)
    body = patched[patched.rindex("using GemmGrouped =") :]
    assert "::cutlint_sm90_mixed_probe::touch<GemmKernel," in body
    impl = body[: body.index("\n}\n")]
    assert "gemm.run(" not in impl and "initialize(" not in impl


def test_patch_fails_loudly_on_a_changed_launcher(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="using GemmKernel"):
        patch_launcher(
            "namespace tensorrt_llm {\nvoid sm90_generic_mixed_gemm_kernelLauncher() {}\n}\n",
            tmp_path / "fpA_intB_launcher_sm90.inl",
        )


def test_the_match_key_reads_the_generated_spelling() -> None:
    rows = json.loads(TRUTH.read_text())["rows"]
    key = key_of_args(rows[0]["args"])
    assert key[0].startswith("cutlass::") and isinstance(key[5], int) and len(key[6]) == 3


@pytest.mark.slow
@pytest.mark.compiler
def test_one_real_file_equals_the_committed_truth(
    nvcc: str, flashinfer_root: Callable[[str], Path], tmp_path: Path
) -> None:
    root = flashinfer_root("0.7.4")
    grouped = generate_cache(root, "0.7.4", tmp_path / "gen", sm=90)
    run = run_probe([grouped.parent.parent / "gemm" / "90" / M64], root, nvcc)
    truth = {
        r["line"]: r
        for r in json.loads(TRUTH.read_text())["rows"]
        if "0.7.4" in r["versions"] and r["file"] == M64
    }
    assert len(run.rows) == len(truth) == 8
    for row in run.rows:
        t = truth[row.line]
        assert (row.stages, row.smem_size, row.members) == (
            t["stages"],
            t["smem_size"],
            t["members"],
        )
