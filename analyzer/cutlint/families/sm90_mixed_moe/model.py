"""The SM90 mixed-input grouped MoE GEMM that `sm90_generic_mixed_moe_gemm_kernelLauncher` builds
(LAUNCHER, its `_impl` with KernelType AUTO):

- mainloop: TensorRT-LLM's `CollectiveBuilderMixedInput` with the weight as the transformed A
  operand (`tuple<Weight, Scale>`) and ptr-array schedules; stage count by
  `compute_stage_count_or_override_folded_weight_scale` with
  `StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`; storage of
  `CollectiveMmaArrayMixedInput` (kPostMma) or its pre-MMA E8M0 form (cutlint.cutlass.sm90_mixed_input);
- epilogue: `MixedInputSm90TmaEpilogueBuilder`, the ptr-array TMA epilogue's layout with
  ElementC = ElementD = the output type (so C and D share their buffers), column-major C/D,
  EpilogueTileAuto (cutlint.cutlass.epilogue, sm90_epilogue_builder);
- kernel: `GemmUniversalPrecomputedScheduler`: the ptr-array cooperative or pingpong shell without
  scheduler storage (cutlint.cutlass.kernel, `precomputed=True`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from cutlint.cutlass import epilogue as epi
from cutlint.cutlass import fusion as fusions
from cutlint.cutlass import kernel as shell
from cutlint.cutlass import sm90_gemm_kernel as kernel90
from cutlint.cutlass import sm90_mixed_input as mixed
from cutlint.cutlass.headers import EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT
from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.sm90_epilogue_builder import sm90_epilogue_tile
from cutlint.cutlass.storage import THREADS_PER_WARP_GROUP
from cutlint.families.alias_args import static_shape
from cutlint.families.base import family_data as base_family_data
from cutlint.families.base import family_toml
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount

PACKAGE = "cutlint.families.sm90_mixed_moe"
LAUNCHER_NAME = "sm90_generic_mixed_moe_gemm_kernelLauncher"
SMALL_K_LAUNCHER_NAME = "sm90_generic_mixed_moe_small_k_kernelLauncher"
LAUNCHER_NAMES = (LAUNCHER_NAME, SMALL_K_LAUNCHER_NAME)
SMALL_K_KERNEL = (
    "cutlass_extensions/gemm/kernel/sm90_gemm_array_tma_single_warpgroup_persistent.hpp"
)
SMALL_K_EPILOGUE = (
    "cutlass_extensions/epilogue/collective/default_epilogue_array_per_token_scale.hpp"
)
ADAPTER = "cutlass/epilogue/collective/detail.hpp: Sm90TmaWarpSpecializedAdapter"
LAUNCHER = "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_mixed_input_launcher.inl"
PRE_MMA_E8M0 = "cutlass::gemm::collective::MixedInputScaleMode::kPreMmaE8M0"
POST_MMA = "cutlass::gemm::collective::MixedInputScaleMode::kPostMma"
_C = base_family_data(PACKAGE).constants  # data/family.toml [constants], each with its source
EPILOGUE_WARP_GROUPS = _C["epilogue_warp_groups"]
ACCUMULATOR_BITS = _C["accumulator_bits"]
GMMA_M = _C["gmma_m"]
FOLD_M = _C["fold_m"]
FOLD_K = _C["fold_k"]
SMALL_K_STAGES = _C["small_k_stages"]
LEGACY_TENSORMAPS = _C["legacy_tensormaps"]


def family_data() -> dict[str, Any]:
    return family_toml(PACKAGE)


@dataclass(frozen=True)
class Tactic:
    tile: Shape3
    cluster: Shape3
    pingpong: bool
    prescale: bool
    """kPreMmaE8M0: the PreScale mainloop and the per-token-scale fusion."""
    activation_bits: int
    weight_bits: int
    scale_bits: int
    group_size: int
    output_bits: int
    legacy: bool = False
    """FlashInfer 0.6.x's launcher (data/family.toml [legacy]): packed scales, CUTLASS's epilogue
    builder and ptr-array shells, four TMA descriptors in the mainloop's shared memory."""
    single_warpgroup: bool = False
    """The small-K launcher (KernelType SINGLE_WARPGROUP_PREFILL / _ROLLING): StageCount<3>, the
    SingleWarpgroupPersistentGemm kernel and SmemEpilogueArrayPerTokenScale."""


def _shape(arg: str) -> Shape3 | None:
    """`cute::Shape<cute::Int<64>, cute::Int<16>, cute::Int<128>>` -> 64x16x128 (any spelling of
    the numbers C++ reads the same, alias_args.static_shape; None for a zero extent)."""
    s = static_shape(" ".join(arg.split()))
    return s if s is not None and min(s.m, s.n, s.k) > 0 else None


def tactic_of(args: Sequence[str], legacy: bool = False) -> Tactic | str:
    """The Tactic the launcher builds for these template arguments, or why it is outside the model."""
    d = family_data()
    act, weight, output, _tag, tile_a, cluster_a, sched, _epi_sched, quant = args[:9]
    scale_mode = args[9] if len(args) > 9 else POST_MMA
    kernel_type = args[10].rsplit("::", 1)[-1] if len(args) > 10 else "AUTO"
    if kernel_type not in ("AUTO", "SINGLE_WARPGROUP_PREFILL", "SINGLE_WARPGROUP_ROLLING"):
        return f"kernel type {kernel_type}: the small-K launcher takes a single-warpgroup schedule"
    single = kernel_type != "AUTO"
    act_bits = d["activations"].get(act)
    w = d["weights"].get(weight)
    pairs = d["legacy"]["pairs"] if legacy else d["pairs"]["pairs"]
    if act_bits is None or w is None or [act, weight] not in pairs:
        return f"{act} x {weight}: not an activation x weight pair the model covers"
    output_bits = d["outputs"].get(output)
    if output_bits is None:
        return f"output type {output}: the model knows half and bfloat16"
    if quant != "cutlass::WeightOnlyQuantOp::FINEGRAINED_SCALE_ONLY":
        return (
            f"{quant}: the model covers the launcher's group-wise scales (FINEGRAINED_SCALE_ONLY)"
        )
    if scale_mode not in (POST_MMA, PRE_MMA_E8M0):
        return f"scale mode {scale_mode}: not a MixedInputScaleMode the model knows"
    if scale_mode == PRE_MMA_E8M0 and (act, weight) != ("__nv_fp8_e4m3", "SafeFP4"):
        return f"{act} x {weight} with kPreMmaE8M0: {EXTENSIONS_SM90_GMMA_BUILDER_MIXED_INPUT} static_asserts FP4 x e4m3"
    if single and scale_mode != PRE_MMA_E8M0:
        return f"{LAUNCHER} static_asserts: the single-warpgroup kernel is only valid for pre-MMA E8M0 scaling"
    schedule = d["schedules"].get(sched)
    if schedule is None:
        return f"mainloop schedule {sched}: the model covers pingpong and cooperative"
    tile, cluster = _shape(tile_a), _shape(cluster_a)
    if tile is None or cluster is None:
        return f"tile {tile_a} / cluster {cluster_a}: not a static cute::Shape of three Int<>"
    groups = 1 if schedule == "pingpong" else 2
    if tile.m % max(FOLD_M, groups * GMMA_M) or tile.k % FOLD_K or tile.n % 8:
        return (
            f"tile {tile}: the folded weight scales need M a multiple of {FOLD_M} (and of the "
            f"cooperative warp groups) and K a multiple of {FOLD_K}"
        )
    return Tactic(
        tile=tile,
        cluster=cluster,
        pingpong=schedule == "pingpong",
        prescale=scale_mode == PRE_MMA_E8M0,
        activation_bits=int(act_bits),
        weight_bits=int(w["bits"]),
        scale_bits=int(w["scale_bits"]),
        group_size=int(w["group_size"]),
        output_bits=int(output_bits),
        single_warpgroup=single,
        legacy=legacy,
    )


UNIT_CLUSTER = Shape3(m=1, n=1, k=1)


def storage_tactic(t: Tactic) -> Tactic:
    """The tactic with a 1x1x1 cluster: the cluster picks the TMA copy atoms (multicast) and
    changes no storage, stage count or thread count, so tactics that differ only in it share
    one computation (the model's functions are memoized by tactic)."""
    return dataclasses.replace(t, cluster=UNIT_CLUSTER)


# --- epilogue ----------------------------------------------------------------------------------


@cache
def epilogue_tile(t: Tactic) -> EpilogueTile:
    """EpilogueTileAuto of the ptr-array schedule; ElementC = ElementD (16-bit: ReuseSmemC);
    LayoutTranspose<RowMajor>* C and D: M contiguous."""
    return sm90_epilogue_tile(
        tile_m=t.tile.m,
        tile_n=t.tile.n,
        cooperative=not t.pingpong,
        c_bits=t.output_bits,
        d_bits=t.output_bits,
        c_m_major=True,
        d_m_major=True,
    )


def _fusion() -> Block:
    return fusions.linear_combination()


def _small_k_epilogue(t: Tactic, name: str) -> Block:
    """SMALL_K_EPILOGUE: `struct SharedStorage { alignas(16) ElementD output[TileM * TileN];
    alignas(16) ElementCompute token_scale[TileN > 8 ? TileN : 1]; }`; the ADAPTER's TensorStorage
    and TensorMapStorage are both this struct."""
    return struct(
        name,
        [
            array(
                "output",
                t.tile.m * t.tile.n * t.output_bits // 8,
                16,
                f"{SMALL_K_EPILOGUE}: alignas(16) ElementD output[TileM * TileN]",
                ("input.tile", "input.types"),
            ),
            array(
                "token_scale",
                4 * (t.tile.n if t.tile.n > 8 else 1),
                16,
                f"{SMALL_K_EPILOGUE}: alignas(16) float token_scale[TileN > 8 ? TileN : 1]",
                ("input.tile",),
            ),
        ],
        f"{ADAPTER}<SmemEpilogueArrayPerTokenScale>: TensorStorage = TensorMapStorage = EpilogueOp::SharedStorage",
    )


@cache
def epilogue_shared_storage(t: Tactic) -> Block:
    if t.single_warpgroup:
        # ADAPTER derives from the epilogue, so CollectiveEpilogue::SharedStorage is the
        # epilogue's own struct (no carveout uses it: StageCount<3>)
        return _small_k_epilogue(t, "CollectiveEpilogue::SharedStorage")
    return epi.shared_storage(
        epilogue_tile(t), t.output_bits, t.output_bits, _fusion(), EPILOGUE_WARP_GROUPS
    )


# --- mainloop ----------------------------------------------------------------------------------


@cache
def stage_count(t: Tactic) -> StageCount:
    if t.legacy:
        return mixed.packed_scale_stage_count(
            weight_bits=t.weight_bits,
            activation_bits=t.activation_bits,
            scale_bits=t.scale_bits,
            group_size=t.group_size,
            tile=t.tile,
            carveout=epilogue_shared_storage(t).size,
            tensormaps=LEGACY_TENSORMAPS,
        )
    if t.single_warpgroup:
        return mixed.fixed_array_stage_count(
            weight_bits=t.weight_bits,
            activation_bits=t.activation_bits,
            scale_bits=t.scale_bits,
            group_size=t.group_size,
            tile=t.tile,
            stages=SMALL_K_STAGES,
        )
    return mixed.folded_stage_count(
        weight_bits=t.weight_bits,
        activation_bits=t.activation_bits,
        scale_bits=t.scale_bits,
        group_size=t.group_size,
        tile=t.tile,
        carveout=epilogue_shared_storage(t).size,
    )


def _mainloop_args(t: Tactic, stages: int) -> dict[str, Any]:
    return {
        "weight_bits": t.weight_bits,
        "activation_bits": t.activation_bits,
        "scale_bits": t.scale_bits,
        "group_size": t.group_size,
        "tile": t.tile,
        "stages": stages,
        "prescale": t.prescale,
        "zero_engine": t.legacy,
    }


@cache
def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mixed.array_shared_storage(**_mainloop_args(t, stages))


# --- the kernel --------------------------------------------------------------------------------


@cache
def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    if t.single_warpgroup:
        # SMALL_K_KERNEL: SingleWarpgroupPersistentGemm's SharedStorage is its base's, the
        # precomputed pingpong shell, with the adapter's storages
        parts = shell.ShellParts(
            mainloop_tensors=mixed.array_tensor_storage(**_mainloop_args(t, stages)),
            epilogue_tensors=_small_k_epilogue(t, "epilogue"),
            mainloop_pipeline=kernel90.mainloop_pipeline(stages, cp_async=False),
            epilogue_pipeline=epi.nosmem_load_pipeline(),
            mainloop_tensormaps=mixed.array_tensormaps(),
            epilogue_tensormaps=_small_k_epilogue(t, "epilogue"),
        )
        return shell.ptr_array_shared_storage(parts, pingpong=t.pingpong, precomputed=True)
    e = epilogue_tile(t)
    parts = shell.ShellParts(
        mainloop_tensors=mixed.array_tensor_storage(**_mainloop_args(t, stages)),
        epilogue_tensors=epi.tensor_storage(e, t.output_bits, t.output_bits, _fusion()),
        mainloop_pipeline=kernel90.mainloop_pipeline(stages, cp_async=False),
        epilogue_pipeline=epi.load_pipeline(e.stages_c),
        mainloop_tensormaps=(
            mixed.legacy_array_tensormaps(LEGACY_TENSORMAPS)
            if t.legacy
            else mixed.array_tensormaps()
        ),
        epilogue_tensormaps=epi.tensormaps(EPILOGUE_WARP_GROUPS),
    )
    # FlashInfer 0.6.x: GemmUniversal's own ptr-array shells; 0.7.x: the precomputed ones
    return shell.ptr_array_shared_storage(parts, pingpong=t.pingpong, precomputed=not t.legacy)


def _mma_threads(t: Tactic) -> int:
    return (1 if t.pingpong else 2) * THREADS_PER_WARP_GROUP


def max_threads_per_block(t: Tactic) -> int:
    if t.single_warpgroup:
        return THREADS_PER_WARP_GROUP  # SMALL_K_KERNEL: MaxThreadsPerBlock = NumThreadsPerWarpGroup
    return shell.max_threads_per_block(_mma_threads(t), pingpong=t.pingpong)


def register_plan(t: Tactic) -> RegisterPlan | None:
    if t.single_warpgroup:
        return None
    groups = shell.PINGPONG_MMA_WARP_GROUPS if t.pingpong else 2
    return shell.register_plan(
        t.tile.m,
        t.tile.n,
        groups * THREADS_PER_WARP_GROUP,
        low_register_pressure=False,
        mma_warp_groups=groups,
    )


def tma_descriptors(t: Tactic) -> int:
    """TMA descriptors in shared memory: the epilogue's C and one D per warp group (none in the
    small-K epilogue), and, in FlashInfer 0.6.x, the mainloop's A, B, scale and zero (0.7.x
    prebuilds the mainloop's in global memory)."""
    if t.single_warpgroup:
        return 0
    return 1 + EPILOGUE_WARP_GROUPS + (LEGACY_TENSORMAPS if t.legacy else 0)
