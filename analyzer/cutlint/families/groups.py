"""The rule groups a family joins: the one table that says which rules speak of which kernels.

A rule selects the groups it holds for (`applies_to = { groups = [...], arches = [...] }`) and a
family declares the groups it joins (`Family.joins`); no rule names a family. A group is a
mechanism in the compiled code, not a list of kernels: "the kernel shell does not static_assert
its SharedStorage, so an overshoot fails when the launcher asks cudaFuncSetAttribute for it" is
true of a GemmUniversalAdapter kernel and of FlashInfer's TGV launcher alike. So a new family
joins the groups whose mechanism its kernel has, in its own folder, and the registry test
(tests/families/test_registry.py) holds that every modeled family is in exactly one capacity
group, and in the TMEM group when it reports TMEM columns.

This module imports nothing of cutlint: the rule schema (engine) and every family read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RuleGroup(StrEnum):
    SMEM_AT_INITIALIZE = "smem-at-initialize"
    SMEM_AT_COMPILE = "smem-at-compile"
    SMEM_LAUNCHER_OCCUPANCY = "smem-launcher-occupancy"
    SVDQUANT_CONFIG_ASSERTS = "svdquant-config-asserts"
    STAGE_FLOOR = "stage-floor"
    SM120_STAGE_BUDGET = "sm120-stage-budget"
    TMEM = "tmem"
    SM120_MOE_CLUSTER = "sm120-moe-cluster"
    SM120_MOE_DISPATCH = "sm120-moe-dispatch"
    TMA_WS_MOE_DISPATCH = "tma-ws-moe-dispatch"
    SM120_BUILDER_ASSERTS = "sm120-builder-asserts"
    MOE_RUNNER_OFFERS = "moe-runner-offers"
    SM90_TMA_BUILDER_ALIGNMENT = "sm90-tma-builder-alignment"
    SM1XX_TMA_BUILDER_ALIGNMENT = "sm1xx-tma-builder-alignment"


class Role(StrEnum):
    """What the registry test asks of a group."""

    CAPACITY = "capacity"
    """Checks the kernel's shared memory against what the arch (or the kernel's own assert)
    allows: every modeled family is in exactly one such group."""
    TMEM = "tmem"
    """Checks tensor-memory columns: every family that reports `Resources.tmem_columns` joins."""
    OTHER = "other"


@dataclass(frozen=True)
class Group:
    role: Role
    what: str
    """The mechanism a member's kernel has, in CUTLASS's (or the launcher's) terms."""
    source: str
    """Where that mechanism is in the code."""


GROUPS: dict[RuleGroup, Group] = {
    RuleGroup.SMEM_AT_INITIALIZE: Group(
        Role.CAPACITY,
        "the kernel shell does not static_assert its SharedStorage against the capacity; the "
        "launcher asks cudaFuncSetAttribute(MaxDynamicSharedMemorySize) for it before the "
        "launch, which fails above the arch's opt-in limit",
        "include/cutlass/gemm/device/gemm_universal_adapter.h: GemmUniversalAdapter::initialize; "
        "FlashInfer flashinfer/gemm/tgv_gemm.cuh: tgv_gemm_host (gpuErrChk(cudaFuncSetAttribute))",
    ),
    RuleGroup.SMEM_AT_COMPILE: Group(
        Role.CAPACITY,
        "the SM100 kernel shell static_asserts SharedStorageSize <= sm100_smem_capacity_bytes: "
        "an overshoot is a compile error of the file",
        "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp, "
        "sm100_gemm_array_tma_warpspecialized.hpp: static_assert(SharedStorageSize <= ...)",
    ),
    RuleGroup.SMEM_LAUNCHER_OCCUPANCY: Group(
        Role.CAPACITY,
        "the launcher computes the kernel's occupancy itself and throws when no block fits",
        "FlashInfer csrc/nv_internal/.../fused_moe_gemm_launcher_sm80.inl: "
        "fused_gemm_maximum_active_blocks",
    ),
    RuleGroup.SVDQUANT_CONFIG_ASSERTS: Group(
        Role.CAPACITY,
        "the SVDQuant config class static_asserts its tile and its kernel's SharedStorageSize "
        "against sm120_smem_capacity_bytes",
        "FlashInfer include/flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h: static_assert",
    ),
    RuleGroup.STAGE_FLOOR: Group(
        Role.OTHER,
        "the mainloop static_asserts DispatchPolicy::Stages >= 2 on a builder-picked stage count",
        "include/cutlass/gemm/collective/sm90_mma_*tma_gmma_ss_warpspecialized.hpp, "
        "sm120_*mma*_tma*.hpp: static_assert(DispatchPolicy::Stages >= 2)",
    ),
    RuleGroup.SM120_STAGE_BUDGET: Group(
        Role.OTHER,
        "the SM120 block-scaled builder's stage budget (sm100_compute_stage_count_or_override_"
        "blockscaled with ReducedSmemCapacityBytes) leaves out kernel-level storage",
        "include/cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl",
    ),
    RuleGroup.TMEM: Group(
        Role.TMEM,
        "the kernel allocates its accumulators (and scale factors) in tensor memory",
        "include/cute/arch/tmem_allocator_sm100.hpp: Sm100TmemCapacityColumns",
    ),
    RuleGroup.SM120_MOE_CLUSTER: Group(
        Role.OTHER,
        "the SM120 block-scaled builder static_asserts a 1x1x1 cluster",
        "include/cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl",
    ),
    RuleGroup.SM120_MOE_DISPATCH: Group(
        Role.OTHER,
        "the MoE launcher's SM120 dispatch accepts a fixed list of tiles",
        "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch_tma_ws.h: "
        "are_tile_shapes_supported_sm120",
    ),
    RuleGroup.TMA_WS_MOE_DISPATCH: Group(
        Role.OTHER,
        "the MoE launcher's SM90 / SM100 dispatch accepts a fixed list of tile and cluster shapes",
        "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch_tma_ws.h: "
        "dispatchMoeGemmSelectTileShapeTmaWarpSpecialized",
    ),
    RuleGroup.SM120_BUILDER_ASSERTS: Group(
        Role.OTHER,
        "CollectiveBuilder<Sm120, ...> static_asserts on layout, cluster and epilogue tile",
        "include/cutlass/gemm/collective/builders/sm120_blockscaled_mma_builder.inl, "
        "sm120_blockwise_mma_builder.inl; epilogue/collective/builders/sm120_builder.inl",
    ),
    RuleGroup.MOE_RUNNER_OFFERS: Group(
        Role.OTHER,
        "the MoE runner offers the autotuner a fixed list of tactics",
        "tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp: get_candidate_configs_sm90",
    ),
    RuleGroup.SM90_TMA_BUILDER_ALIGNMENT: Group(
        Role.OTHER,
        "CollectiveBuilder<Sm90, ...> with a TMA kernel schedule static_asserts that A's and B's "
        "alignment is 16 bytes (the tensor map's global address and strides)",
        "include/cutlass/gemm/collective/builders/sm90_gmma_builder.inl: "
        "detail::is_aligned<..., detail::tma_alignment_bytes>",
    ),
    RuleGroup.SM1XX_TMA_BUILDER_ALIGNMENT: Group(
        Role.OTHER,
        "CollectiveBuilder<Sm100 / Sm120, ...> with a TMA kernel schedule is a specialization "
        "enabled only when A's and B's alignment meets TMA's 16 bytes (64 / 96 B for the "
        "mxf8f6f4 sub-byte operands); otherwise none matches",
        "include/cutlass/gemm/collective/builders/sm1xx_common.inl: sm1xx_gemm_is_aligned, "
        'sm1xx_blockscaled_gemm_is_aligned; collective_builder_decl.hpp: "Could not build a '
        'collective for given parameters."',
    ),
}
"""Every group, its role and the mechanism it stands for."""


def groups_of(role: Role) -> frozenset[RuleGroup]:
    return frozenset(g for g, info in GROUPS.items() if info.role is role)
