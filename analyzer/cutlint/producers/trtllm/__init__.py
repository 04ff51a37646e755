"""TensorRT-LLM: the MoE GEMM launchers and the instantiation macro that FlashInfer vendors."""
