"""Macros that only another vendor's GPU build defines: a file whose `#error` stands under one of
them (`#ifndef USE_ROCM` / `#error "targets gfx950"`) is that vendor's source, not an NVIDIA
target's, and nvcc never compiles it in the build that uses it.

cutlint judges NVIDIA targets; such an `#error` says "not for this target", never "nvcc would
reject this file" (engine/error_guards.py).
"""

from __future__ import annotations

import re

VENDOR_MACROS: dict[str, tuple[str, str]] = {
    "USE_ROCM": (
        "AMD ROCm",
        "PyTorch's ROCm build and its cpp_extension (torch/utils/cpp_extension.py: -DUSE_ROCM=1); "
        "SGLang's JIT for HIP (sglang/kernels/jit/utils/arch.py get_default_target_flags)",
    ),
    "__HIP_PLATFORM_AMD__": (
        "AMD ROCm",
        "hipcc on an AMD platform (HIP's hip/hip_common.h); SGLang's JIT for HIP passes it "
        "(sglang/kernels/jit/utils/compile/toolchain.py base_cuda_flags)",
    ),
    "__HIP_PLATFORM_HCC__": ("AMD ROCm", "hipcc before ROCm 6 (HIP's hip/hip_common.h)"),
    "__HIPCC__": ("AMD ROCm", "clang compiling HIP (clang's __clang_hip_runtime_wrapper.h)"),
    "__HIP__": ("AMD ROCm", "clang's predefined macro for `-x hip`"),
    "__HIP_DEVICE_COMPILE__": ("AMD ROCm", "clang's predefined macro for HIP's device pass"),
    "__MUSACC__": ("Moore Threads MUSA", "mcc, the MUSA compiler (torch_musa)"),
}
"""Macro -> (the vendor whose build defines it, where it is defined)."""

_GFX = re.compile(r"__gfx[0-9a-f]+__")
"""clang's per-target macros of an AMD GPU device pass (`__gfx950__`: AMDGPU target IDs)."""

_NAME = re.compile(r"[A-Za-z_]\w*")


def vendor_macro(condition: str) -> tuple[str, str, str] | None:
    """(macro, vendor, source) of the first other-vendor macro `condition` names, or None."""
    for name in _NAME.findall(condition):
        if name in VENDOR_MACROS:
            return (name, *VENDOR_MACROS[name])
        if _GFX.fullmatch(name):
            return name, "AMD ROCm", "clang's AMDGPU target macro for a device pass"
    return None
