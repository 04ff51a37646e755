"""The SM90 TMA warp-specialized grouped MoE GEMM (`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90,
...)`): FlashInfer's / TensorRT-LLM's launcher for H100 and H200. See model.py and
docs/families/sm90-tma-ws-grouped.md."""

from cutlint.families.sm90_tma_ws_grouped.family import FAMILY

__all__ = ["FAMILY"]
