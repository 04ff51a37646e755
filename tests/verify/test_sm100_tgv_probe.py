"""The sm100-tgv-gemm probe without a compiler: its patch applies to the real 0.6.3 and 0.7.4
tgv_gemm.cuh (the launcher keeps its types, registers SMEMStorage, launches nothing), and the
launcher's `__PRETTY_FUNCTION__` maps back to the macro's arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm100_tgv_gemm import probe
from cutlint.verify.jit_probe import patch_header


@pytest.mark.parametrize("version", ["0.6.3", "0.7.4"])
def test_the_patch_applies_to_the_real_header(flashinfer_root: Any, version: str) -> None:
    include = Path(flashinfer_root(version)) / "flashinfer" / "data" / "include"
    (p,) = probe.PATCHES
    real = include / p.header
    out = patch_header(real.read_text(), p, real.parent)
    host = out.split("void tgv_gemm_host(")[1]
    assert "registered_storage<SMEMStorage, CutlintProbeTag>" in host
    assert "static int threads() { return 256; }" in host
    assert "cudaLaunchKernelEx" not in host and "cudaFuncSetAttribute" not in host


def test_macro_args_from_the_launcher_name() -> None:
    pretty = (
        "static const char* flashinfer::gemm::tgv_gemm_host(TypeA*, TypeB*, TypeC*, TypeBias*, "
        "int, int, int, int, int, int, int, int, int, int, int, int, int, bool, int, "
        "cudaStream_t)::CutlintProbeTag::name() [with TypeA = cutlass::bfloat16_t; TypeB = "
        "cutlass::bfloat16_t; TypeC = cutlass::bfloat16_t; AccType = float; TypeBias = "
        "cutlass::bfloat16_t; int CTA_M = 64; int CTA_N = 8; int CTA_K = 128; int DMA_Stage = 6; "
        "cute::UMMA::Major UmmaMajorA = cute::UMMA::Major::K; cute::UMMA::Major UmmaMajorB = "
        "cute::UMMA::Major::K]"
    )
    assert probe.macro_args(pretty) == ("64", "8", "6")
    assert probe.macro_args("/tmp/x/tgv_gemm_bf16_64x8_6.cu") is None
