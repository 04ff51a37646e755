"""The sm100-jit-gemm probe without a compiler: its patches apply to the real 0.7.4 headers, and
the FP8/BF16 launchers' `__PRETTY_FUNCTION__` (as nvcc printed it) maps back to the macro's
arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint.families.sm100_jit_gemm import probe
from cutlint.verify.jit_probe import patch_header


@pytest.mark.parametrize("module", sorted(probe.MODULE_PATCHES))
def test_patches_apply_to_the_real_headers(flashinfer_root: Any, module: str) -> None:
    include = Path(flashinfer_root("0.7.4")) / "flashinfer" / "data" / "include"
    for p in probe.MODULE_PATCHES[module]:
        real = include / p.header
        out = patch_header(real.read_text(), p, real.parent)
        if p.keep_through is not None:
            assert "cutlint_jit_probe::re" in out  # report<...> or registered<...>
            assert "gemm.initialize" not in out and "gemm.run(" not in out


def test_macro_args_from_the_launcher_name() -> None:
    pretty = (
        "static const char* flashinfer::gemm::genericFp8GemmKernelLauncherSm100(const "
        "__nv_fp8_e4m3*, const __nv_fp8_e4m3*, const float*, const float*, T*, int, int, int, "
        "int, CutlassGemmConfig, char*, size_t, cudaStream_t)::CutlintProbeTag::name() [with T = "
        "__half; arch = cutlass::arch::Sm100; int CTA_M_ = 64; int CTA_N_ = 64; int CTA_K_ = 128; "
        "ClusterShape_ = cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >; XSM_ = "
        "flashinfer::gemm::_2SM]"
    )
    assert probe.macro_args(pretty) == ("half", "64", "64", "128", "2", "1", "1", "_2SM")
    assert probe.macro_args("/tmp/x/fp4_gemm_cutlass_half_128_64_128.cu") is None
