"""FlashInfer's SM90 segment GEMM (`CutlassSegmentGEMMSM90Run<DTypeIn, DTypeOut>`, the JIT module
gemm_sm90), as its header builds it (HEADER, data/family.toml):

- mainloop: CUTLASS's SM90 `CollectiveBuilder<Sm90, OpClassTensorOp, DTypeIn, RowMajor*, 16 B,
  DTypeIn, WEIGHT_LAYOUT*, 16 B, float, Tile, Cluster, StageCountAutoCarveout<sizeof(
  CollectiveEpilogue::SharedStorage)>, KernelPtrArrayTmaWarpSpecializedCooperative[FP8FastAccum]>`:
  the ptr-array TMA SS mainloop, its stage count with the ptr-array kernel carveout;
- epilogue: `PtrArrayNoSmemWarpSpecialized` (no shared memory: an empty SharedStorage, and the
  empty tensormaps of the no-smem epilogue);
- kernel: `GemmUniversal<GroupProblemShape<Shape<int,int,int>>, ...>`, the ptr-array cooperative
  shell with the grouped tile scheduler.

These are the parts the sm90-collective-builder family computes for cutlass_library's grouped
kernels (its nvcc truth holds grouped NoSmem kernels); this module fixes the Tactic the header
chooses and asks that model. One kernel per weight layout (DISPATCH_WEIGHT_LAYOUT): `b_k_major`
(ColumnMajor B) and `b_n_major` (RowMajor B, 16-bit inputs only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass.layout import Block
from cutlint.cutlass.sm90_gemm_kernel import Shell, Sm90Scheduler
from cutlint.families.base import family_data as base_family_data
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.families.sm90_collective_builder import model as builder
from cutlint.records import RegisterPlan, Shape3, StageCount

PACKAGE = "cutlint.families.sm90_segment_gemm"
HEADER = "flashinfer/gemm/group_gemm_sm90.cuh"
_C = base_family_data(PACKAGE).constants
ACCUMULATOR_BITS = _C["accumulator_bits"]


def family_data() -> dict[str, Any]:
    return family_toml(PACKAGE)


@dataclass(frozen=True)
class Tactic:
    dtype_in: str
    dtype_out: str
    in_bits: int
    out_bits: int
    tile: Shape3
    cluster: Shape3
    fp8_fast_accum: bool


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    data = family_data()
    short = name.rsplit("::", 1)[-1]
    if short not in data["launchers"]:
        return f"`{name}` is not one of {', '.join(data['launchers'])}"
    if len(args) != len(data["parameters"]):
        return (
            f"`{name}` takes {len(data['parameters'])} template arguments; this passes {len(args)}"
        )
    dtype_in, dtype_out = args
    inp = data["inputs"].get(dtype_in)
    if inp is None:
        return f"input type `{dtype_in}`: the model covers {', '.join(data['inputs'])}"
    out_bits = data["outputs"].get(dtype_out)
    if out_bits is None:
        return f"output type `{dtype_out}`: the model covers {', '.join(data['outputs'])}"
    m, n, k = inp["tile"]
    cm, cn, ck = inp["cluster"]
    return Tactic(
        dtype_in=dtype_in,
        dtype_out=dtype_out,
        in_bits=int(inp["bits"]),
        out_bits=int(out_bits),
        tile=Shape3(m=m, n=n, k=k),
        cluster=Shape3(m=cm, n=cn, k=ck),
        fp8_fast_accum=inp["schedule"].endswith("FP8FastAccum"),
    )


def kernels_of(t: Tactic) -> tuple[str, ...]:
    """The kernels DISPATCH_WEIGHT_LAYOUT builds for this input type (data [kernels])."""
    return tuple(
        label
        for label, k in family_data()["kernels"].items()
        if t.in_bits in k.get("input_bits", [t.in_bits])
    )


def builder_tactic(t: Tactic, kernel: str = "b_k_major") -> builder.Tactic:
    """The sm90-collective-builder Tactic of this header's kernel: A RowMajor (K-major), B by the
    weight layout, C = D = DTypeOut RowMajor (N-major), NoSmem ptr-array epilogue."""
    return builder.Tactic(
        shell=Shell.TMA_COOPERATIVE,
        fp8_fast_accum=t.fp8_fast_accum,
        tile=t.tile,
        cluster=t.cluster,
        a_bits=t.in_bits,
        b_bits=t.in_bits,
        accumulator_bits=ACCUMULATOR_BITS,
        stage_policy=builder.StagePolicy.EPILOGUE_CARVEOUT,
        stage_value=0,
        epilogue=builder.EpilogueKind.NO_SMEM,
        c_bits=t.out_bits,
        d_bits=t.out_bits,
        c_m_major=False,
        d_m_major=False,
        scheduler=Sm90Scheduler.PERSISTENT,
        fp8=t.in_bits == 8,
        b_k_major=kernel == "b_k_major",
        grouped=True,
    )


def stage_count(t: Tactic, kernel: str = "b_k_major") -> StageCount:
    return builder.stage_count(builder_tactic(t, kernel))


def mainloop_shared_storage(t: Tactic, stages: int, kernel: str = "b_k_major") -> Block:
    return builder.mainloop_shared_storage(builder_tactic(t, kernel), stages)


def epilogue_shared_storage(t: Tactic) -> Block:
    return builder.epilogue_shared_storage(builder_tactic(t))


def kernel_shared_storage(t: Tactic, stages: int, kernel: str = "b_k_major") -> Block:
    return builder.kernel_shared_storage(builder_tactic(t, kernel), stages)


def max_threads_per_block(t: Tactic) -> int:
    return builder.max_threads_per_block(builder_tactic(t))


def register_plan(t: Tactic) -> RegisterPlan | None:
    return builder.register_plan(builder_tactic(t))


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel: str = "b_k_major"
) -> KernelNumbers | str:
    """The numbers of one kernel of the call; the header is the same in every release (data
    header_releases), so the release does not choose the recipe."""
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    if kernel not in kernels_of(t):
        return f"`{name}<{', '.join(args)}>` builds {', '.join(kernels_of(t))}, not `{kernel}`"
    sc = stage_count(t, kernel)
    return KernelNumbers(
        family=family_data()["name"],
        kernel=kernel,
        stage_count=sc,
        layout=kernel_shared_storage(t, sc.stages, kernel),
        max_threads_per_block=max_threads_per_block(t),
    )
