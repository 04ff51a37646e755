"""`cutlint verify` on cutlass_library kernel files (the cutlass-alias probe): a CUTLASS 3.x SM120
kernel and a 2.x Ampere kernel of a real 120a build, compiled in one batch against the wheel's
headers, agree with the model; a second run answers from the cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cutlint.verify.result import Status
from cutlint.verify.run import VerifyOptions, verify

SM120 = "gemm/120/f16_gemm_e2m1/cutlass3x_sm120_bstensorop_gemm_ue4m3xe2m1_ue4m3xe2m1_f32_f16_e5m2_128x128x128_1x1x1_0_tnt_align32_cooperative_o_vs16.cu"
SM80 = (
    "gemm/80/bf16_s16816gemm_bf16/cutlass_tensorop_bf16_s16816gemm_bf16_256x128_32x3_nn_align8.cu"
)


def test_cutlass_library_kernels_agree_with_nvcc(
    cutlass_library_build: Callable[..., Path], nvcc: str, tmp_path: Path
) -> None:
    build = cutlass_library_build("120a")
    files = [build / SM120, build / SM80]
    options = VerifyOptions(arch="sm_120", cache_dir=tmp_path, nvcc=nvcc, download=True)
    first = verify(files, options)
    assert [v.status for v in first.instantiations] == [Status.AGREE, Status.AGREE]
    assert {v.compiler.smem_bytes for v in first.instantiations if v.compiler} == {88064, 73728}
    again = verify(files, options)
    assert all(v.status is Status.AGREE and v.cached for v in again.instantiations)


def test_without_a_target_nothing_is_guessed(
    cutlass_library_build: Callable[..., Path], tmp_path: Path
) -> None:
    """No --arch and the file outside its build (the build's compile_commands.json would say
    sm_120a): nothing says the target, so nothing is modeled or compiled."""
    import shutil

    build = cutlass_library_build("120a")
    alone = tmp_path / "alone" / "generated" / SM80
    alone.parent.mkdir(parents=True)
    shutil.copy(build / SM80, alone)
    result = verify([alone], VerifyOptions(cache_dir=tmp_path, download=True))
    assert [v.status for v in result.instantiations] == [Status.NO_BACKEND]
    assert result.files == ()
