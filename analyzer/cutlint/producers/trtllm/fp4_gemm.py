"""TensorRT-LLM's dense FP4 GEMM launchers (cpp/tensorrt_llm/kernels/cutlass_kernels/fp4_gemm/
nvfp4_nvfp4_gemm_template_sm{100,120}.h): each macro call defines the struct of FlashInfer's
header for the same kernel, built with the CUTLASS of TensorRT-LLM's own build (its
3rdparty/cutlass submodule, which cpp/CMakeLists.txt puts on the include path), not with a
FlashInfer release's vendored one. A family that models such a call names its `release` so."""

from __future__ import annotations

RELEASE_PREFIX = "TensorRT-LLM, CUTLASS "
"""The `release` of a call read by a TensorRT-LLM header's `#define`: its recipe on the CUTLASS
the file's build context found (or assumed: the context says which)."""


def release(cutlass: str) -> str:
    """The release of a TensorRT-LLM call built on CUTLASS `cutlass` (`4.5.0`)."""
    return f"{RELEASE_PREFIX}{cutlass}"


def cutlass_of(release: str | None) -> str | None:
    """The CUTLASS version of a TensorRT-LLM call's release; None for any other release."""
    if release is None or not release.startswith(RELEASE_PREFIX):
        return None
    return release[len(RELEASE_PREFIX) :]


__all__ = ["RELEASE_PREFIX", "cutlass_of", "release"]
