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
        if p.keep_through is None:
            continue
        assert "cutlint_jit_probe::re" in out  # report<...> or registered<...>
        if module == "nvfp4_svdquant_gemm_cutlass":
            # run_tactic stays a function template that nothing instantiates: the macro that did
            # (explicit instantiations) registers Config::GemmKernel in the host pass instead
            host = out.split("#ifndef __CUDA_ARCH__")[1].split("#else")[0]
            assert "report<Config::GemmKernel>" in host and "run_tactic" not in host
        else:
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


def test_the_sm103_ultra_files_are_a_translation_unit_of_their_own() -> None:
    """fp4_gemm_cutlass_template_sm103.h shares fp4_gemm_cutlass_template.h's include guard, and the
    store256 files define their variant before the SM100 header: the K768 files go apart."""
    d = Path("/c/gen_gemm_sm103_cutlass_fp4")
    ultra = probe.tu_key(d / "fp4_gemm_cutlass_half_128_256_768.cu")
    store256 = probe.tu_key(d / "fp4_gemm_cutlass_store256_half_128_256_256.cu")
    assert ultra != store256 == "gen_gemm_sm103_cutlass_fp4"
    assert probe.sample(d / "fp4_gemm_cutlass___nv_bfloat16_128_128_768.cu")
    assert not probe.sample(d / "fp4_gemm_cutlass___nv_bfloat16_128_64_128.cu")  # SM100's again
