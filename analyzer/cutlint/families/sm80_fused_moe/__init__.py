"""The Ampere fused-MoE family: `sm80_generic_fused_moe_gemm_kernelLauncher` (model.py)."""
