"""FlashInfer's TGV GEMM: one macro call, one `tgv_gemm_host` launcher, one kernel
(`tgv_gemm_device`) written on CuTe, not a CUTLASS GemmKernel.

The launcher sizes the dynamic shared memory as `sizeof(SharedStorage<TypeA, TypeB, sA_layout,
sB_layout, DMA_Stage>)` (tgv_gemm.cuh), a struct of its own: the A and B stage buffers
(`alignas(128) cute::ArrayEngine<Type, cosize_v<Layout>>`), then two barrier arrays of DMA_Stage
and three scalars, each `alignas(16)`. The stage count is the macro's DMA_Stage (no builder picks
it). The smem layouts are `UMMA::tile_to_mma_shape` of the K-major `sm100_smem_selector` atom over
(CTA_M or CTA_N, CTA_K, DMA_Stage): a swizzled tiling whose cosize is the product of its shape, so
each buffer holds CTA_{M,N} * CTA_K * DMA_Stage elements. The struct is laid out by
cutlint.cutlass.layout. Each constant's source is in data/family.toml.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cutlint.cutlass.layout import Block, array, struct
from cutlint.cutlass.sm100_mainloop import ARCH_H, SM100_SMEM_CAPACITY
from cutlint.cutlass.storage import BARRIER_BYTES
from cutlint.families.base import family_toml
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.records import StageCount, StageTerm

HEADER = "flashinfer/gemm/tgv_gemm.cuh"


def family_data() -> dict[str, Any]:
    return family_toml(__package__)


def _constant(name: str) -> int:
    return int(family_data()["constants"][name]["value"])


@dataclass(frozen=True)
class Tactic:
    """What one macro call instantiates."""

    name: str
    element_bits: int
    cta_m: int
    cta_n: int
    cta_k: int
    stages: int


def tactic_of(name: str, args: tuple[str, ...]) -> Tactic | str:
    """The launcher one call instantiates, or why the model does not cover it."""
    data = family_data()
    macro = data["macros"].get(name)
    if macro is None:
        return f"`{name}` is not one of {', '.join(data['macros'])}"
    if len(args) != len(data["parameters"]):
        return f"`{name}` takes {len(data['parameters'])} arguments; this call passes {len(args)}"
    try:
        m, n, stages = (int(a) for a in args)
    except ValueError:
        return f"CTA {args[0]}x{args[1]}, DMA_Stage {args[2]}: not integers"
    if n & (n - 1) or n <= 0:
        # MMA_warp: static_assert((CTA_N & (CTA_N - 1)) == 0, "CTA_N must be a power of 2")
        return f"CTA_N {n}: tgv_gemm.cuh MMA_warp static_asserts a power of 2"
    return Tactic(name, int(macro["element_bits"]), m, n, _constant("cta_k"), stages)


def _stage_buffer(name: str, rows: int, t: Tactic) -> Block:
    elements = rows * t.cta_k * t.stages
    return array(
        name,
        elements * t.element_bits // 8,
        _constant("tensor_align"),
        f"{HEADER} SharedStorage::{name}: ArrayEngine<Type{name}, cosize_v<{name}SmemLayout>>, "
        f"{name}SmemLayout = UMMA::tile_to_mma_shape(sm100_smem_selector K-major atom, "
        f"(CTA_{'M' if name == 'A' else 'N'}, CTA_K, DMA_Stage))",
        ("input.call",),
    )


def shared_storage(t: Tactic) -> Block:
    """`SharedStorage<TypeA, TypeB, ASmemLayout, BSmemLayout, DMA_Stage>` of tgv_gemm.cuh."""
    barrier_align = _constant("barrier_align")
    src = f"{HEADER} SharedStorage"
    return struct(
        "SharedStorage",
        [
            _stage_buffer("A", t.cta_m, t),
            _stage_buffer("B", t.cta_n, t),
            array("tma_mma_full_barrier", BARRIER_BYTES * t.stages, barrier_align, src),
            array("tma_mma_empty_barrier", BARRIER_BYTES * t.stages, barrier_align, src),
            array("tma_epilog_full_barrier", BARRIER_BYTES, barrier_align, src),
            array("mma_epilog_full_barrier", BARRIER_BYTES, barrier_align, src),
            array("tmem_base_ptr", _constant("tmem_ptr_bytes"), barrier_align, src),
        ],
        src,
    )


def mainloop_shared_storage(t: Tactic, stages: int) -> Block:
    """The kernel has one SharedStorage (no mainloop collective): the whole struct."""
    return shared_storage(t)


def epilogue_shared_storage(t: Tactic) -> Block:
    """No epilogue collective, no epilogue storage: the epilogue warps store from TMEM through
    registers to global memory (EPILOG_warp). Zero bytes (the probe reports 0 for it too)."""
    return Block("(no epilogue storage)", 0, 1, f"{HEADER} EPILOG_warp")


def tmem_columns(t: Tactic) -> int:
    """MMA_warp: `tmem_allocator.allocate(Acc_col, ...)` with Acc_col = max(CTA_N, 32)."""
    return max(t.cta_n, _constant("tmem_min_columns"))


def stage_count(t: Tactic) -> StageCount:
    """DMA_Stage as the macro gives it; the per-stage terms are one stage of A, of B and of the
    two barrier arrays."""
    src = f"{HEADER} SharedStorage"
    per_stage = (
        StageTerm(name="A", bytes=t.cta_m * t.cta_k * t.element_bits // 8, source=src),
        StageTerm(name="B", bytes=t.cta_n * t.cta_k * t.element_bits // 8, source=src),
        StageTerm(name="tma_mma_full_barrier", bytes=BARRIER_BYTES, source=src),
        StageTerm(name="tma_mma_empty_barrier", bytes=BARRIER_BYTES, source=src),
    )
    return StageCount(
        stages=t.stages,
        capacity=SM100_SMEM_CAPACITY,
        reductions=(),
        carveout=0,
        stage_budget=SM100_SMEM_CAPACITY,
        per_stage=per_stage,
        stage_bytes=sum(p.bytes for p in per_stage),
        formula="DMA_Stage: the macro's third argument (tgv_gemm_host's template argument)",
        capacity_source=f"{ARCH_H} sm100_smem_capacity_bytes",
        fixed=True,
    )


def evaluate(
    name: str, args: tuple[str, ...], version: str | None, kernel_label: str = "default"
) -> KernelNumbers | str:
    """The numbers of one call's kernel, or why not modeled."""
    t = tactic_of(name, args)
    if isinstance(t, str):
        return t
    if kernel_label != "default":
        return f"`{name}` builds one kernel, `default`, not `{kernel_label}`"
    return KernelNumbers(
        family=family_data()["name"],
        kernel="default",
        stage_count=stage_count(t),
        layout=shared_storage(t),
        max_threads_per_block=_constant("threads"),
    )
