"""The SM120 sample of the ptxas batch: one or two files per SM120 family of FlashInfer 0.7.4's
cache (`cutlint generate flashinfer 0.7.4 --sm 120 --jit-gemm`), paths relative to the
`flashinfer/0.7.4/` directory of that output.

Families, as cutlint names them: the SM120 block-scaled fused-MoE grouped GEMM
(cutlass_instantiations/120/gemm_grouped/120), the JIT modules' dense FP4, MXFP8, NVFP4 SVDQuant,
FP8 groupwise, FP8 groupwise grouped, MXFP4 and NVFP4 groupwise grouped GEMMs. The cache's Ampere
fused-MoE files (gemm_grouped/80) and the fpA_intB SM90 files (gemm/90, compiled out on SM120)
are not SM120 families."""

FLASHINFER_VERSION = "0.7.4"
GENERATE = ("-m", "cutlint", "generate", "flashinfer", FLASHINFER_VERSION, "--sm", "120")
GENERATE_ARGS = (*GENERATE, "--jit-gemm", "--out")
TARGET = "sm_120a"
"""What issue 23 asks for; FlashInfer's JIT builds these modules for sm_120f (0.7.x, CUDA >= 12.9)
and the fused-MoE module for sm_120a."""

MOE = "120a/generated/cutlass_instantiations/120/gemm_grouped/120/"
JIT = "120f/generated/"
SAMPLES: dict[str, str] = {
    "moe_m128_g0": MOE + "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu",
    "moe_m256_g0": MOE + "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu",
    "fp4_128x128x128": JIT + "gen_gemm_sm120_cutlass_fp4/fp4_gemm_cutlass_half_128_128_128.cu",
    "fp4_256x128x128": JIT + "gen_gemm_sm120_cutlass_fp4/fp4_gemm_cutlass_half_256_128_128.cu",
    "mxfp8_128x128x128": JIT
    + "gen_gemm_sm120_cutlass_mxfp8/mxfp8_gemm_cutlass_sm120_half_128_128_128.cu",
    "svdquant_128x128x128": JIT
    + "gen_gemm_sm120_cutlass_nvfp4_svdquant/nvfp4_svdquant_gemm_cutlass_sm120_Tactic128x128x128Config.cu",
    "fp8_groupwise": JIT + "gen_gemm_sm120/gemm_groupwise_e4m3_bf16_majorfalse_sm120.cu",
    "fp8_groupwise_grouped": JIT
    + "gen_gemm_sm120/group_gemm_fp8_groupwise_e4m3_bf16_majorfalse_sm120.cu",
    "mxfp4_groupwise_grouped": JIT + "gen_gemm_sm120/group_gemm_mxfp4_groupwise_e4m3_bf16_sm120.cu",
    "nvfp4_groupwise_grouped": JIT + "gen_gemm_sm120/group_gemm_nvfp4_groupwise_bf16_sm120.cu",
}
