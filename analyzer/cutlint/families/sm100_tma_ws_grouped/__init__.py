"""SM100 / SM103 TMA warp-specialized grouped MoE GEMM (FlashInfer / TensorRT-LLM, `Sm100` /
`Sm103` macro calls)."""

from cutlint.families.sm100_tma_ws_grouped.family import FAMILY

__all__ = ["FAMILY"]
