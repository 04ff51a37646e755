"""SM120 block-scaled grouped MoE GEMM (FlashInfer / TensorRT-LLM, `Sm120`/`Sm121` macro calls)."""

from cutlint.families.sm120_blockscaled_grouped.family import FAMILY

__all__ = ["FAMILY"]
