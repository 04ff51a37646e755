"""The CUTLASS headers (and TensorRT-LLM's cutlass_extensions headers) the model's numbers come
from, one name each: every `source` and `derived_from` that cites a header names it from here,
so one header has one name across the modules that cite it. Paths are relative to CUTLASS's
`include/` (cutlass_extensions: TensorRT-LLM's `cutlass_extensions/include/`)."""

BLOCKWISE_SCALE_LAYOUT = "cutlass/detail/blockwise_scale_layout.hpp"
MIXED_INPUT_UTILS = "cutlass/detail/collective/mixed_input_utils.hpp"
SM100_EPILOGUE_BUILDER = "cutlass/epilogue/collective/builders/sm100_builder.inl"
SM120_EPILOGUE_BUILDER = "cutlass/epilogue/collective/builders/sm120_builder.inl"
SM90_EPILOGUE_BUILDER = "cutlass/epilogue/collective/builders/sm90_builder.inl"
SM90_EPILOGUE_ARRAY_TMA_WARPSPECIALIZED = (
    "cutlass/epilogue/collective/sm90_epilogue_array_tma_warpspecialized.hpp"
)
SM90_EPILOGUE_TMA_WARPSPECIALIZED = (
    "cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp"
)
SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED = (
    "cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp"
)
SM100_BLOCKSCALED_UMMA_BUILDER = (
    "cutlass/gemm/collective/builders/sm100_blockscaled_umma_builder.inl"
)
SM120_BLOCKSCALED_MMA_BUILDER = "cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl"
SM120_BLOCKWISE_MMA_BUILDER = "cutlass/gemm/collective/builders/sm120_blockwise_mma_builder.inl"
SM120_SPARSE_MMA_BUILDER = "cutlass/gemm/collective/builders/sm120_sparse_mma_builder.inl"
SM120_BLOCKSCALED_SPARSE_MMA_BUILDER = (
    "cutlass/gemm/collective/builders/sm120_blockscaled_sparse_mma_builder.inl"
)
SM1XX_SPARSE_CONFIG = "cutlass/gemm/collective/builders/sm1xx_sparse_config.inl"
SM120_MMA_BUILDER = "cutlass/gemm/collective/builders/sm120_mma_builder.inl"
SM90_COMMON_SS_SMEM_SELECTOR = "cutlass/gemm/collective/builders/sm90_common.inl: ss_smem_selector"
SM90_GMMA_BUILDER = "cutlass/gemm/collective/builders/sm90_gmma_builder.inl"
SM90_SPARSE_GMMA_BUILDER = "cutlass/gemm/collective/builders/sm90_sparse_gmma_builder.inl"
SM120_BLOCKSCALED_MMA_ARRAY_TMA = "cutlass/gemm/collective/sm120_blockscaled_mma_array_tma.hpp"
SM120_BLOCKSCALED_MMA_TMA = "cutlass/gemm/collective/sm120_blockscaled_mma_tma.hpp"
SM120_MMA_ARRAY_TMA_BLOCKWISE_SCALING = (
    "cutlass/gemm/collective/sm120_mma_array_tma_blockwise_scaling.hpp"
)
SM120_MMA_TMA_BLOCKWISE_SCALING = "cutlass/gemm/collective/sm120_mma_tma_blockwise_scaling.hpp"
SM120_SPARSE_MMA_TMA = "cutlass/gemm/collective/sm120_sparse_mma_tma.hpp"
SM120_BLOCKSCALED_SPARSE_MMA_TMA = "cutlass/gemm/collective/sm120_blockscaled_sparse_mma_tma.hpp"
SM120_MMA_TMA = "cutlass/gemm/collective/sm120_mma_tma.hpp"
SM90_VISITOR_TMA_WARPSPECIALIZED = "cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp"
CUTE_TUPLE = "cute/container/tuple.hpp"
SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized.hpp"
)
SM90_MMA_ARRAY_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING = (
    "cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
)
SM90_MMA_MULTISTAGE_GMMA_RS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_mma_multistage_gmma_rs_warpspecialized.hpp"
)
SM90_MMA_MULTISTAGE_GMMA_SS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp"
)
SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized.hpp"
)
SM90_MMA_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT = (
    "cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp"
)
SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT = (
    "cutlass/gemm/collective/sm90_mma_array_tma_gmma_rs_warpspecialized_mixed_input.hpp"
)
SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
)
SM90_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8_BLOCKWISE_SCALING = (
    "cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
)
SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED = (
    "cutlass/gemm/collective/sm90_sparse_mma_tma_gmma_ss_warpspecialized.hpp"
)
SM90_SPARSE_MMA_TMA_GMMA_SS_WARPSPECIALIZED_FP8 = (
    "cutlass/gemm/collective/sm90_sparse_mma_tma_gmma_ss_warpspecialized_fp8.hpp"
)
SM100_GEMM_ARRAY_TMA_WARPSPECIALIZED = (
    "cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized.hpp"
)
SM120_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE_ASYMMETRIC_DMA = (
    "cutlass/gemm/kernel/sm120_gemm_tma_warpspecialized_cooperative_asymmetric_dma.hpp"
)
SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE = (
    "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
)
SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG = (
    "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_pingpong.hpp"
)
SM90_GEMM_TMA_WARPSPECIALIZED = "cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp"
SM90_GEMM_TMA_WARPSPECIALIZED_COOPERATIVE = (
    "cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp"
)
SM90_GEMM_TMA_WARPSPECIALIZED_PINGPONG = (
    "cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"
)
SM90_GEMM_WARPSPECIALIZED = "cutlass/gemm/kernel/sm90_gemm_warpspecialized.hpp"
SM90_GEMM_WARPSPECIALIZED_COOPERATIVE = (
    "cutlass/gemm/kernel/sm90_gemm_warpspecialized_cooperative.hpp"
)
SM90_TILE_SCHEDULER = "cutlass/gemm/kernel/sm90_tile_scheduler.hpp"
SM90_TILE_SCHEDULER_STREAM_K = "cutlass/gemm/kernel/sm90_tile_scheduler_stream_k.hpp"
SM90_TILE_SCHEDULER_GROUP = "cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp"
TILE_SCHEDULER = "cutlass/gemm/kernel/tile_scheduler.hpp"
SM90_PIPELINE = "cutlass/pipeline/sm90_pipeline.hpp"
EXTENSIONS_MIXED_INPUT_UTILS = "cutlass_extensions/detail/collective/mixed_input_utils.hpp"
EXTENSIONS_SM90_GMMA_BUILDER_INTERLEAVED = (
    "cutlass_extensions/gemm/collective/builders/sm90_gmma_builder_interleaved.inl"
)
EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT = (
    "cutlass_extensions/gemm/collective/builders/sm90_gmma_builder_mixed_input.inl"
)
EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_ = (
    "cutlass_extensions/gemm/collective/sm90_mma_array_tma_gmma_rs_warpspecialized_mixed_input_.hpp"
)
EXTENSIONS_SM90_MMA_ARRAY_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT_PRESCALE = "cutlass_extensions/gemm/collective/sm90_mma_array_tma_gmma_rs_warpspecialized_mixed_input_prescale.hpp"
EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT = "cutlass_extensions/gemm/collective/sm90_mma_interleaved_tma_gmma_rs_warpspecialized_mixed_input.hpp"
EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_COOPERATIVE_PRECOMPUTED = (
    "cutlass_extensions/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative_precomputed.hpp"
)
EXTENSIONS_SM90_GEMM_ARRAY_TMA_WARPSPECIALIZED_PINGPONG_PRECOMPUTED = (
    "cutlass_extensions/gemm/kernel/sm90_gemm_array_tma_warpspecialized_pingpong_precomputed.hpp"
)
