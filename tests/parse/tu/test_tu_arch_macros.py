"""`CUTLASS_ARCH_MMA_SM*_SUPPORTED` as nvcc's host pass defines them, read from config.h."""

from __future__ import annotations

from pathlib import Path

from cutlint.parse.tu.arch_macros import supported_macros

# The shape of cutlass/arch/config.h (CUTLASS 4.2.0), cut to three arches.
CONFIG = """
#if (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 0))
  #define CUTLASS_ARCH_MMA_SM90_SUPPORTED 1
#endif
#if !CUTLASS_CLANG_CUDA && (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)
  #define CUTLASS_ARCH_MMA_SM101_SUPPORTED 1
#endif
#if !CUTLASS_CLANG_CUDA && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
  #define CUTLASS_ARCH_MMA_SM120_SUPPORTED 1
  #if (!defined(CUTLASS_ARCH_MMA_SM120_ENABLED) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1200)
    #define CUTLASS_ARCH_MMA_SM120_ENABLED 1
  #endif
#endif
"""


def test_what_nvcc_defines_and_clang_does_not(tmp_path: Path) -> None:
    (tmp_path / "cutlass" / "arch").mkdir(parents=True)
    (tmp_path / "cutlass" / "arch" / "config.h").write_text(CONFIG)
    # SM90's guard does not exclude clang: config.h defines it for libclang too.
    assert supported_macros([tmp_path], 13, 0) == ["-DCUTLASS_ARCH_MMA_SM120_SUPPORTED=1"]
    assert supported_macros([tmp_path], 12, 8) == [
        "-DCUTLASS_ARCH_MMA_SM101_SUPPORTED=1",
        "-DCUTLASS_ARCH_MMA_SM120_SUPPORTED=1",
    ]
    assert supported_macros([tmp_path], 12, 4) == []
    assert supported_macros([tmp_path / "none"], 13, 0) == []
