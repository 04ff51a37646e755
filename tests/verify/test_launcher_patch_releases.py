"""The probe copy of the TMA WS MoE launcher for a release whose macro has 14 parameters
(FlashInfer 0.5.2: no EpilogueSchedule, DYNAMIC_CGA or SWAP_AB): the patch keeps the kernel types
and runs the launcher with SwapAB off, since that launcher has none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint.verify.nvcc_probe import ProbeError, patch_launcher

LAUNCHER = (
    "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/"
    "moe_gemm_tma_ws_launcher.inl"
)


def test_14_parameter_launcher_is_patched(flashinfer_root: Any) -> None:
    launcher = Path(flashinfer_root("0.5.2")) / LAUNCHER
    patched = patch_launcher(launcher.read_text(), launcher)
    assert "::cutlint_probe::report<GemmKernel, CollectiveMainloop, CollectiveEpilogue>(" in patched
    # the registrar passes `false` where a 17-parameter launcher passes SWAP_AB_
    assert (
        "::cutlint_probe::run( \\\n      &tma_warp_specialized_generic_moe_gemm_kernelLauncher_"
        in (patched)
    )
    assert ", false, __LINE__, cutlint_probe_args_##" in patched
    assert "using GemmGrouped = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;" in patched


def test_swap_ab_elsewhere_than_last_is_refused(tmp_path: Path) -> None:
    """A launcher whose SWAP_AB parameter moved is not guessed at."""
    text = (
        "#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(ArchTag_, SWAP_AB_, BIAS_) \\\n"
        "  static void tma_warp_specialized_generic_moe_gemm_kernelLauncher_##ArchTag_() {}\n"
    )
    with pytest.raises(ProbeError, match="not SWAP_AB"):
        patch_launcher(text, tmp_path / "moe_gemm_tma_ws_launcher.inl")
