"""A producer's runner classes, whose kernels come from dispatch switches, not from files:
FlashInfer's SM120 GEMM runners (`runner_tactics`) and MoeGemmRunner's CUTLASS 2.x grouped
kernels on SM8x (`sm8x_grouped`). Each lists the runner's tactics (producer data) and asks the
kernel families' models for their numbers: so it sits above the families and below the engine,
explain, pregen and verify, which use it."""
