"""Shared memory of MoeGemmRunner's CUTLASS 2.x grouped kernels, and what the runner decides.

The kernel of a tactic (genericMoeGemmKernelLauncher::call, unfused branch) is
`MoeFCGemm<Mma, Epilogue, ...>` (cutlass_extensions/gemm/kernel/moe_cutlass_kernel.h) with the
`Mma` and `Epilogue` of `cutlass::gemm::kernel::DefaultGemmGrouped<..., arch, ThreadblockShape,
WarpShape, InstructionShape, EpilogueOp, ..., Stages, kDeviceOnly, ...>`:

    union SharedStorage {                                   // moe_cutlass_kernel.h
      ProblemVisitor::SharedStorage problem_visitor;        // empty struct (kDeviceOnly)
      Mma::SharedStorage main_loop;                         // gemm/threadblock/mma_base.h
      Epilogue::SharedStorage epilogue;                     // epilogue/threadblock/epilogue_base.h
    };

`Mma` is `MmaMultistage`, except for 2-stage FP8 (`mainloop_class`); both keep MmaBase's storage:
`AlignedBuffer<ElementA, (M + padA.row) x (K * Stages + padA.col)> operand_A;
AlignedBuffer<ElementB, (K * Stages + padB.row) x (N + padB.col)> operand_B;` with zero padding
(default_mma_core_sm80.h: `MmaPolicy<MmaTensorOp, MatrixShape<0, 0>, MatrixShape<0, 0>, ...>`).
The epilogue (default_epilogue_tensor_op.h) stages float accumulators:
`AlignedBuffer<float, ((WarpCount.M * 8 * WarpCount.K) + 0) * FragmentsPerIteration x
(WarpCount.N * WarpShape.N + 8)>`. Both are laid out by cutlint.cutlass.gemm_2x, which every
CUTLASS 2.x family shares.

Header paths are relative to CUTLASS's `include/` (the release's vendored copy).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cutlint.cutlass import gemm_2x
from cutlint.cutlass.layout import Block, empty
from cutlint.families.sm80_fused_moe import model as fused
from cutlint.records import ArchLimits, ElementType, Shape3
from cutlint.runners.sm8x_grouped.tactics import RunnerKind, RunnerTactic, table

MOE_KERNEL = "cutlass_extensions/gemm/kernel/moe_cutlass_kernel.h (FlashInfer)"

# default_fpA_intB_traits.h (FlashInfer): MixedGemmArchTraits AccType = float
ACCUMULATOR = "float"
# default_fpA_intB_traits.h: ElementsPerAccessC = 128 / sizeof_bits<TypeA> (16-bit) or
# 128 / sizeof_bits<TypeC = __nv_bfloat16> (FP8): 8 for every runner here
ELEMENTS_PER_ACCESS_C = 8
# the epilogue's ElementOutput of each runner output type
_OUTPUT_ELEMENT = {"f16": "cutlass::half_t", "bf16": "cutlass::bfloat16_t"}


class Output(StrEnum):
    """The runner's OutputType (the epilogue's ElementOutput)."""

    F16 = "f16"
    BF16 = "bf16"


@dataclass(frozen=True)
class GroupedKernel:
    """The CUTLASS 2.x grouped kernel of one tactic."""

    kind: RunnerKind
    output: Output
    arch_tag: int
    threadblock: Shape3
    warp: Shape3
    stages: int

    @property
    def warp_count(self) -> Shape3:
        tb, w = self.threadblock, self.warp
        return Shape3(m=tb.m // w.m, n=tb.n // w.n, k=tb.k // w.k)


def kernel_of(t: RunnerTactic, kind: RunnerKind, output: Output) -> GroupedKernel:
    c = t.config
    return GroupedKernel(kind, output, t.arch_tag, c.tile.threadblock, c.tile.warp, c.stages)


def mainloop_class(k: GroupedKernel) -> str:
    """The mainloop DefaultMma picks: FlashInfer specializes the 2-stage Sm80 half_t and
    bfloat16_t cases to MmaMultistage (cutlass_extensions/gemm/threadblock/default_mma.h,
    default_mma_bf16.h); the 2-stage FP8 Sm89 case takes CUTLASS's 2-stage specialization
    (cutlass/gemm/threadblock/default_mma.h: MmaPipelined)."""
    return "MmaPipelined" if k.stages == 2 and k.kind is RunnerKind.FP8 else "MmaMultistage"


def mma_shared_storage(k: GroupedKernel) -> Block:
    """MmaBase::SharedStorage (cutlint.cutlass.gemm_2x): the SM80 tensor-op cores' zero padding."""
    bits = k.kind.element_bytes * 8
    return gemm_2x.mma_shared_storage(
        gemm_2x.MmaStorage(k.threadblock, k.stages, bits, bits, mainloop=mainloop_class(k))
    )


def _epilogue(k: GroupedKernel) -> gemm_2x.EpilogueStorage:
    return gemm_2x.tensor_op_epilogue(
        k.threadblock, k.warp, _OUTPUT_ELEMENT[k.output.value], ACCUMULATOR, ELEMENTS_PER_ACCESS_C
    )


def fragments_per_iteration(k: GroupedKernel) -> int:
    """DefaultEpilogueTensorOp's kFragmentsPerIteration (cutlint.cutlass.gemm_2x): 2 for the
    half_t output of float accumulators, 8 per access, 1 for bfloat16_t."""
    return _epilogue(k).fragments_per_iteration


def epilogue_shared_storage(k: GroupedKernel) -> Block:
    """EpilogueBase::SharedStorage of DefaultEpilogueTensorOp (cutlint.cutlass.gemm_2x)."""
    return gemm_2x.epilogue_shared_storage(_epilogue(k))


def kernel_shared_storage(k: GroupedKernel) -> Block:
    """MoeFCGemm::SharedStorage (MOE_KERNEL): the union; base_grouped.h's smem_size is its sizeof."""
    return gemm_2x.kernel_union(
        "MoeFCGemm::SharedStorage",
        mma_shared_storage(k),
        epilogue_shared_storage(k),
        f"{MOE_KERNEL}: union SharedStorage",
        extra=(empty("problem_visitor", f"{MOE_KERNEL}: MoeProblemVisitor::SharedStorage {{}}"),),
    )


def threads_per_block(k: GroupedKernel) -> int:
    """GemmKernel::kThreadCount = 32 x WarpCount (M x N x K) (DefaultGemmGrouped's Mma)."""
    return gemm_2x.thread_count(k.threadblock, k.warp)


@dataclass(frozen=True)
class Verdict:
    """What `GemmGrouped::maximum_active_blocks()` gives on one arch, and the runner's check."""

    arch: str
    smem: int
    limit: int
    fits: bool
    message: str | None
    """The runner's exception text when it does not fit."""


def grouped_verdict(smem: int, arch: ArchLimits) -> Verdict:
    """base_grouped.h maximum_active_blocks: above 48 KiB, cudaFuncSetAttribute(smem) fails
    above the opt-in limit (static shared memory: none) and it returns -1; otherwise the
    occupancy query, positive on every arch here (opt-in + 1 KiB = shared memory per SM). The
    runner then needs `std::min(2, ...) > 0`."""
    o = table()["occupancy"]
    fits = (
        smem <= int(o["dynamic_smem_opt_in_above"])
        or smem + int(o["static_smem"]) <= arch.smem_optin
    )
    return Verdict(arch.name, smem, arch.smem_optin, fits, None if fits else str(o["run_message"]))


class KernelPath(StrEnum):
    """Which kernel a tactic runs as."""

    UNFUSED = "unfused"
    """MoeFCGemm (this module): GEMM 2, and GEMM 1 without the fused gated activation."""
    FUSED = "fused"
    """fused_moe::Fused_Moe_Kernel_sm80 (families/sm80_fused_moe): GEMM 1 of a 16-bit runner
    with Swiglu/Geglu when gemm_n and gemm_k are multiples of 64."""


@dataclass(frozen=True)
class TacticVerdict:
    tactic: RunnerTactic
    path: KernelPath
    smem: int
    """The kernel's shared memory on this path."""
    run: Verdict
    """What running (profiling) the tactic does."""
    prefilter_query: int | None
    """The pre-filter's query (0.6.11.post2 and later; absent in 0.6.8.post1): the occupancy it reports, as a class:
    0 = filtered out, 1 = kept; None when the release has no pre-filter."""
    query_smem: int | None
    """The shared memory of the kernel the pre-filter asks about (the unfused one), if it asks."""


def fused_tactic(t: RunnerTactic, kind: RunnerKind, epilogue_tag: str) -> fused.Tactic:
    element = ElementType.F16 if kind is RunnerKind.F16 else ElementType.BF16
    activation = (
        fused.Activation.SWIGLU if epilogue_tag.endswith("Silu") else fused.Activation.GEGLU
    )
    return fused.Tactic(
        element, t.config.tile.threadblock, t.config.stages, epilogue_tag, activation
    )


def verdict(
    version: str,
    t: RunnerTactic,
    kind: RunnerKind,
    output: Output,
    arch: ArchLimits,
    gated_activation: bool = False,
) -> TacticVerdict:
    """The run and pre-filter verdicts of one tactic on one arch.

    `gated_activation`: GEMM 1 of a Swiglu/Geglu MoE whose gemm_n and gemm_k are multiples of 64
    (the runner then takes the fused kernel for 16-bit types)."""
    unfused = kernel_shared_storage(kernel_of(t, kind, output)).size
    f = table()["fused"]
    on_fused = gated_activation and kind is not RunnerKind.FP8 and t.gemm == int(f["gemm"])
    if on_fused:
        ft = fused_tactic(t, kind, "tensorrt_llm::cutlass_extensions::EpilogueOpDefaultSilu")
        out = fused.launch_outcome(ft, arch)
        run = Verdict(arch.name, out.smem, out.limit, out.fits, out.message)
        path = KernelPath.FUSED
    else:
        run = grouped_verdict(unfused, arch)
        path = KernelPath.UNFUSED
    query: int | None = None
    query_smem: int | None = None
    if table()["versions"][version]["prefilter"]:
        # queryOccupancyForConfig: runGemm<EpilogueOpDefault>, use_fused_moe = false. For FP8 x
        # FP8 the alpha_scales check throws first (default GroupedGemmInput): occupancy 0.
        if kind is RunnerKind.FP8:
            query = 0
        else:
            query_smem = unfused
            query = 1 if grouped_verdict(unfused, arch).fits else 0
    return TacticVerdict(t, path, run.smem, run, query, query_smem)


def prefilter_keeps(verdicts: list[TacticVerdict]) -> list[int]:
    """core.py get_valid_tactics for one GEMM's tactics (the autotuner tunes gemm1 and gemm2
    apart): the ids with occupancy > 0, or all of them when none is."""
    if not verdicts or verdicts[0].prefilter_query is None:
        return [v.tactic.tactic for v in verdicts]
    kept = [v.tactic.tactic for v in verdicts if v.prefilter_query]
    return kept or [v.tactic.tactic for v in verdicts]


__all__ = [
    "GroupedKernel",
    "KernelPath",
    "Output",
    "TacticVerdict",
    "Verdict",
    "epilogue_shared_storage",
    "fragments_per_iteration",
    "fused_tactic",
    "grouped_verdict",
    "kernel_of",
    "kernel_shared_storage",
    "mainloop_class",
    "mma_shared_storage",
    "prefilter_keeps",
    "threads_per_block",
    "verdict",
]
