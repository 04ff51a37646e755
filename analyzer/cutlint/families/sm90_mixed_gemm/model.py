"""The SM90 fpA_intB GEMM that `sm90_generic_mixed_gemm_kernelLauncher` builds (LAUNCHER):

- mainloop: TensorRT-LLM's `CollectiveBuilderInterleaved` with the weight as the transformed A
  operand (`tuple<Weight, Scale[, Zero]>`, ColumnMajor transposed: K-major) and the activation as
  B; stage count by `compute_stage_count_or_override_single_affine_transformed_input` with
  `StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`; storage of
  `CollectiveMmaInterleaved` (cutlint.cutlass.sm90_mixed_input);
- epilogue: the SM90 single-problem TMA epilogue (`TmaWarpSpecialized[Cooperative]`) with an
  explicit subtile (min(M,128) x min(N,32)), ElementC void, D column-major (the launcher's
  LayoutTranspose<RowMajor>), and an Sm90EVT bias fusion whose nodes hold no shared memory
  (cutlint.cutlass.epilogue, sm90_epilogue_builder);
- kernel: `GemmUniversal` with the pingpong or cooperative TMA shell of the mainloop schedule and
  the persistent (M = 64) or stream-K scheduler (cutlint.cutlass.sm90_gemm_kernel).

The same three computations as every recipe: `stage_count`, `kernel_shared_storage` and the
launch configuration. The launcher and the collectives are the same text in FlashInfer 0.6.3
(CUTLASS 4.2.1) and 0.7.4 (CUTLASS 4.5.0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from cutlint.cutlass import epilogue as epi
from cutlint.cutlass import sm90_gemm_kernel as kernel
from cutlint.cutlass import sm90_mixed_input as mixed
from cutlint.cutlass.headers import (
    EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT,
    SM90_EPILOGUE_TMA_WARPSPECIALIZED,
    SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED,
)
from cutlint.cutlass.layout import Block, empty
from cutlint.cutlass.sm90_epilogue_builder import sm90_epilogue_tile
from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.families.alias_args import static_shape
from cutlint.families.base import family_data as base_family_data
from cutlint.families.base import family_toml
from cutlint.records import EpilogueTile, RegisterPlan, Shape3, StageCount

PACKAGE = "cutlint.families.sm90_mixed_gemm"
LAUNCHER_NAME = "sm90_generic_mixed_gemm_kernelLauncher"
LAUNCHER = "tensorrt_llm/kernels/cutlass_kernels/fpA_intB_gemm/launchers/fpA_intB_launcher_sm90.inl"
_C = base_family_data(PACKAGE).constants  # data/family.toml [constants], each with its source
EPI_TILE_M = _C["epi_tile_m"]
EPI_TILE_N = _C["epi_tile_n"]
PERSISTENT_TILE_M = _C["persistent_tile_m"]
ACCUMULATOR_BITS = _C["accumulator_bits"]
GMMA_M = _C["gmma_m"]
TEMPLATE_ARGS = 11


def family_data() -> dict[str, Any]:
    return family_toml(PACKAGE)


@dataclass(frozen=True)
class Tactic:
    """What changes shared memory or the launch configuration."""

    tile: Shape3
    cluster: Shape3
    shell: Shell
    cooperative_epilogue: bool
    activation_bits: int
    weight_bits: int
    scale_bits: int
    zero_bits: int
    """0: no zero points (the quantization mode has none)."""
    output_bits: int

    @property
    def scheduler(self) -> Sm90Scheduler:
        return (
            Sm90Scheduler.PERSISTENT if self.tile.m == PERSISTENT_TILE_M else Sm90Scheduler.STREAM_K
        )


def _shape(arg: str) -> Shape3 | None:
    """`cute::Shape<cute::Int<64>, cute::Int<16>, cute::Int<128>>` -> 64x16x128 (any spelling of
    the numbers C++ reads the same, alias_args.static_shape; None for a zero extent)."""
    s = static_shape(" ".join(arg.split()))
    return s if s is not None and min(s.m, s.n, s.k) > 0 else None


def tactic_of(args: Sequence[str]) -> Tactic | str:
    """The Tactic the launcher builds for these template arguments, or why it is outside the
    model (a `static_assert` of the launcher or the collective, or an unknown spelling)."""
    d = family_data()
    act, weight, scale_zero, _bias, output, quant, _tag, tile_a, cluster_a, sched, epi_sched = args
    act_bits = d["activations"].get(act)
    weight_bits = d["weights"].get(weight)
    if act_bits is None or weight_bits is None:
        return f"{act} x {weight}: not an activation x weight pair the model knows"
    if (weight_bits, act_bits) not in mixed.INTERLEAVED_WIDTHS:
        return (
            f"{weight} x {act}: {EXTENSIONS_SM90_MMA_INTERLEAVED_TMA_GMMA_RS_WARPSPECIALIZED_MIXED_INPUT}: get_smem_interleave_layout static_asserts "
            "w4a8, w4a16 or w8a16"
        )
    scale_bits = d["scales"].get(scale_zero)
    if scale_bits is None:
        return f"scale/zero type {scale_zero}: the model knows half and bfloat16"
    output_bits = d["outputs"].get(output)
    if output_bits is None:
        return f"output type {output}: the model knows half and bfloat16"
    has_zero = d["quant_ops"].get(quant)
    if has_zero is None:
        return f"quantization mode {quant}: not a WeightOnlyQuantOp the model knows"
    shell_name = d["schedules"].get(sched)
    if shell_name is None:
        return (
            f"mainloop schedule {sched}: the model covers the pingpong and cooperative TMA shells"
        )
    shell = Shell(shell_name)
    if epi_sched not in (
        "cutlass::epilogue::TmaWarpSpecialized",
        "cutlass::epilogue::TmaWarpSpecializedCooperative",
    ):
        return f"epilogue schedule {epi_sched}: the model covers the TMA epilogues"
    tile, cluster = _shape(tile_a), _shape(cluster_a)
    if tile is None or cluster is None:
        return f"tile {tile_a} / cluster {cluster_a}: not a static cute::Shape of three Int<>"
    groups = 2 if shell is Shell.TMA_COOPERATIVE else 1
    epi_n = min(tile.n, EPI_TILE_N)
    if (
        tile.m % (groups * GMMA_M)
        or tile.n % 8
        or tile.n % epi_n
        or tile.k * weight_bits % 256
        or tile.k * act_bits % 128
    ):
        return (
            f"tile {tile}: the model covers M a multiple of the warp groups' 64-row GMMA atoms, "
            "N a multiple of 8 and K whole swizzle rows of both operands"
        )
    return Tactic(
        tile=tile,
        cluster=cluster,
        shell=shell,
        cooperative_epilogue=epi_sched.endswith("Cooperative"),
        activation_bits=int(act_bits),
        weight_bits=int(weight_bits),
        scale_bits=int(scale_bits),
        zero_bits=int(scale_bits) if has_zero else 0,
        output_bits=int(output_bits),
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
    """LAUNCHER: EpilogueTileType = Shape<min(M, 128), min(N, 32)>, which (for N a multiple of
    min(N, 32)) is the cooperative EpilogueTileAuto subtile of EB; StagesC/StagesD from EB's
    sm90_get_tma_dispatch_policy for that subtile. ElementC is void; D is column-major
    (LayoutTranspose<RowMajor>): M contiguous."""
    e = sm90_epilogue_tile(
        tile_m=t.tile.m,
        tile_n=t.tile.n,
        cooperative=True,
        c_bits=None,
        d_bits=t.output_bits,
        c_m_major=True,
        d_m_major=True,
    )
    return e.model_copy(
        update={
            "source": f"{LAUNCHER}: EpilogueTileType = Shape<min(M, {EPI_TILE_M}), "
            f"min(N, {EPI_TILE_N})>; {e.source}"
        }
    )


def _fusion() -> Block:
    """LAUNCHER: Sm90EVT<Sm90Compute<homogeneous_multiply_add>, Sm90ScalarBroadcast,
    Sm90AccFetch, Sm90ColBroadcast<0, ...>>: every node's SharedStorage is empty (SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED:
    Sm90ColBroadcast 'doesn't support smem pipelining', `struct SharedStorage { };`)."""
    return empty(
        "thread",
        f"{SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED}: Sm90ScalarBroadcast, Sm90ColBroadcast<0>: struct SharedStorage {{ }}; "
        "the SM90_VISITOR_LOAD_TMA_WARPSPECIALIZED's tuple of empty storages",
        ("input.types",),
    )


def epilogue_tensor_storage(t: Tactic) -> Block:
    return epi.tensor_storage(
        epilogue_tile(t), None, t.output_bits, _fusion(), SM90_EPILOGUE_TMA_WARPSPECIALIZED
    )


@cache
def epilogue_shared_storage(t: Tactic) -> Block:
    """`sizeof(CollectiveEpilogue::SharedStorage)`: the launcher's StageCountAutoCarveout."""
    return epi.single_shared_storage(epilogue_tile(t), None, t.output_bits, _fusion())


# --- mainloop ----------------------------------------------------------------------------------


@cache
def stage_count(t: Tactic) -> StageCount:
    return mixed.interleaved_stage_count(
        weight_bits=t.weight_bits,
        activation_bits=t.activation_bits,
        scale_bits=t.scale_bits,
        zero_bits=t.zero_bits,
        tile=t.tile,
        carveout=epilogue_shared_storage(t).size,
    )


def _mainloop_args(t: Tactic, stages: int) -> dict[str, Any]:
    return {
        "weight_bits": t.weight_bits,
        "activation_bits": t.activation_bits,
        "scale_bits": t.scale_bits,
        "zero_bits": t.zero_bits,
        "tile": t.tile,
        "stages": stages,
    }


@cache
def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    return mixed.interleaved_shared_storage(**_mainloop_args(t, stages))


# --- the kernel --------------------------------------------------------------------------------


@cache
def kernel_shared_storage(t: Tactic, stages: int) -> Block:
    """`GemmKernel::SharedStorage` of the shell the mainloop's schedule selects."""
    return kernel.kernel_shared_storage(
        t.shell,
        mixed.interleaved_tensor_storage(**_mainloop_args(t, stages)),
        kernel.mainloop_pipeline(stages, cp_async=False),
        epilogue_tensor_storage(t),
        epi.load_pipeline(epilogue_tile(t).stages_c),
        t.scheduler,
    )


def max_threads_per_block(t: Tactic) -> int:
    return kernel.max_threads_per_block(t.shell, t.tile.m)


def register_plan(t: Tactic) -> RegisterPlan | None:
    return kernel.register_plan(t.shell, t.tile, ACCUMULATOR_BITS)
