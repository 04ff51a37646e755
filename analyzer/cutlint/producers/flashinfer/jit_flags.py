"""The flags FlashInfer's JIT compiles its CUTLASS modules with, per module (read from the
release's `flashinfer/jit/` code; the sources are named beside each list). `cutlint verify`
compiles with the same flags, so the compiler's numbers are the ones a real build gets."""

from __future__ import annotations

# The flags gen_cutlass_fused_moe_sm120_module() passes (flashinfer/jit/fused_moe.py), plus the
# defaults gen_jit_spec()/build_cuda_cflags() add (flashinfer/jit/core.py, cpp_ext.py).
# -Xfatbin/--compress-mode only affect the fatbin container and are left out.
SM120_DEFINES: tuple[str, ...] = (
    "-DCOMPILE_BLACKWELL_TMA_GEMMS",
    "-DCOMPILE_BLACKWELL_SM120_TMA_GROUPED_GEMMS",
    "-DENABLE_BF16",
    "-DENABLE_FP8",
    "-DENABLE_FP4",
    "-DUSING_OSS_CUTLASS_MOE_GEMM",
    "-DCUTLASS_ENABLE_GDC_FOR_SM100=1",
)
SM120_GENCODE = "-gencode=arch=compute_120a,code=sm_120a"
# The flags gen_cutlass_fused_moe_sm90_module() passes (flashinfer/jit/fused_moe.py) and
# sm90a_nvcc_flags (flashinfer/jit/core.py: the gencode and CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED).
# 0.7.x adds CUTLASS_ENABLE_GDC_FOR_SM90=1 (grid-dependency control, device code only) and
# CUTLASS_MIXED_GEMM_FP4_FP8_PREPROCESSED_SIGNS=1 (the mixed-input fpA_intB mainloop only); the
# probe passes the 0.7.x set to every release, since neither define reaches the TMA WS grouped
# GEMM's types. FLASHINFER_SM90_MOE_PREBUILT_D_DESCRIPTOR (0.7.4, H20 only) touches only
# moe_gemm_tma_ws_mixed_input_prebuild.h and is left out, as on every other part.
SM90_DEFINES: tuple[str, ...] = (
    "-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED",
    "-DCOMPILE_HOPPER_TMA_GEMMS",
    "-DCOMPILE_HOPPER_TMA_GROUPED_GEMMS",
    "-DENABLE_BF16",
    "-DENABLE_FP8",
    "-DENABLE_FP8_BLOCK_SCALE",
    "-DENABLE_FP4",
    "-DUSING_OSS_CUTLASS_MOE_GEMM",
    "-DCUTLASS_ENABLE_GDC_FOR_SM90=1",
    "-DCUTLASS_MIXED_GEMM_FP4_FP8_PREPROCESSED_SIGNS=1",
)
SM90_GENCODE = "-gencode=arch=compute_90a,code=sm_90a"
# gen_cutlass_fused_moe_sm100_module() (flashinfer/jit/fused_moe.py); the gencode is
# CompilationContext.get_nvcc_flags_list() for a 10.0 part (flashinfer/compilation_context.py:
# _normalize_cuda_arch gives SM 10+ the `a` suffix). 0.6.x lacks CUTLASS_ENABLE_GDC_FOR_SM100=1
# (grid-dependency control: device code only, no type changes); the 0.7.x set is passed to all.
SM100_DEFINES: tuple[str, ...] = (
    "-DCOMPILE_BLACKWELL_TMA_GEMMS",
    "-DCOMPILE_BLACKWELL_TMA_GROUPED_GEMMS",
    "-DENABLE_BF16",
    "-DENABLE_FP8",
    "-DENABLE_FP4",
    "-DUSING_OSS_CUTLASS_MOE_GEMM",
    "-DCUTLASS_ENABLE_GDC_FOR_SM100=1",
)
SM100_GENCODE = "-gencode=arch=compute_100a,code=sm_100a"
# gen_cutlass_fused_moe_sm103_module(): the SM100 set plus COMPILE_BLACKWELL_SM103_TMA_GROUPED_GEMMS,
# for a 10.3 part. (The SM103 module also compiles the gemm_grouped/100 files, with these flags.)
SM103_DEFINES: tuple[str, ...] = (*SM100_DEFINES, "-DCOMPILE_BLACKWELL_SM103_TMA_GROUPED_GEMMS")
SM103_GENCODE = "-gencode=arch=compute_103a,code=sm_103a"
JIT_DEFAULT_FLAGS: tuple[str, ...] = (
    "-std=c++17",
    "-use_fast_math",
    "-DFLASHINFER_ENABLE_F16",
    "-DFLASHINFER_ENABLE_BF16",
    "-DFLASHINFER_ENABLE_FP8_E4M3",
    "-DFLASHINFER_ENABLE_FP8_E5M2",
    "-DNDEBUG",
    "-O3",
    # torch's ABI flag; 1 is what current torch wheels and gcc both default to.
    "-D_GLIBCXX_USE_CXX11_ABI=1",
    "--compiler-options=-fPIC",
    "--expt-relaxed-constexpr",
    "-static-global-template-stub=false",
)
