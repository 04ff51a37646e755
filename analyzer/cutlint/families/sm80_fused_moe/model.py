"""The Ampere fused-MoE kernel that FlashInfer's `sm80_generic_fused_moe_gemm_kernelLauncher` runs.

The kernel is `fused_moe::Fused_Moe_Kernel_sm80` (a CuTe kernel, not a CUTLASS 2.x `MmaMultistage`
one): GEMM1 and the gated activation in one pass, 4 warps, an A tile, two B tiles (gate and
linear weight) per stage and an output staging tile in shared memory. What this module computes,
each from the header it mirrors (data/family.toml has the paths and every constant's source):

- `tactic_of`: the instantiation's template arguments as a `Tactic`, or why it is outside;
- `traits_shared_storage`: `Fused_Moe_Kernel_traits_sm80::SharedStorage{Normal,Gate}` as the
  compiler lays it out, for the tile M the kernel is instantiated with and for its M = 16 variant;
- `kernel_smem`: `Fused_Moe_Kernel_sm80::kSmemSize`, the launcher's `smem_size`;
- `launch_outcome`: what the launcher decides with that number on one arch, quoted from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

from cutlint.cutlass.layout import Block, array, struct
from cutlint.families import base
from cutlint.families.base import family_toml
from cutlint.records import ArchLimits, ElementType, Shape3

LAUNCHER_NAME = "sm80_generic_fused_moe_gemm_kernelLauncher"
TRAITS = "cutlass_extensions/gemm/kernel/fused_moe_kernel_traits.cuh"
KERNEL = "cutlass_extensions/gemm/kernel/fused_moe_kernel.cuh"
LAUNCHER = "moe_gemm/launchers/fused_moe_gemm_launcher_sm80.inl"

_ELEMENTS = {"cutlass::half_t": ElementType.F16, "cutlass::bfloat16_t": ElementType.BF16}


PACKAGE = "cutlint.families.sm80_fused_moe"


def family_data() -> dict[str, Any]:
    """The data file's tables (the generator's lists, the tag routing, the launcher's texts)."""
    return family_toml(PACKAGE)


def constant(name: str) -> int:
    """A number of the data file's `[constants]`, each with its source (families/base.py)."""
    return base.family_data(PACKAGE).constants[name]


class Activation(StrEnum):
    """`fused_moe::Activation_Type`, as `EpilogueRouting<EpilogueTag>(true)` picks it."""

    GELU = "Gelu"
    RELU = "Relu"
    SILU = "Silu"
    SWIGLU = "Swiglu"
    GEGLU = "Geglu"
    IDENTITY = "Identity"
    INVALID = "InvalidType"

    @property
    def gated(self) -> bool:
        """traits: isGateActivation (Swiglu, Geglu): SharedStorageGate, kernel kTileN = N / 2."""
        return self in (Activation.SWIGLU, Activation.GEGLU)


@dataclass(frozen=True)
class Tactic:
    """One explicit instantiation `<ElementType_, CutlassWeightType_, MaxTileM_, TileN_, TileK_,
    Stages_, EpilogueTag>` of the launcher."""

    element: ElementType
    """ElementType_ (= CutlassWeightType_, = the output type: the launcher passes ElementType_ for
    both to the kernel)."""
    tile: Shape3
    """MaxTileM_ x TileN_ x TileK_ as instantiated (the dispatch's ThreadblockShape)."""
    stages: int
    epilogue_tag: str
    activation: Activation

    def describe(self) -> str:
        tag = self.epilogue_tag.rsplit("::", 1)[-1]
        return f"{self.element.value} {self.tile} stages={self.stages} {tag} ({self.activation})"


@dataclass(frozen=True)
class Traits:
    """`Fused_Moe_Kernel_traits_sm80<..., TileM, TileN, TileK, Stages, activation>`."""

    tile_m: int
    tile_n: int
    """kTileN: the kernel already halved it for a gated activation."""
    tile_k: int
    """kTileK: at least 64 when TileM is 16."""
    block_k_smem: int
    """kBlcokKSmem: the K extent of the shared-memory layout atom (32, or 64 when TileM is 16)."""
    stages: int
    gated: bool


def element_bytes(element: ElementType) -> int:
    """f16 and bf16 (the only element types modeled): 2 bytes."""
    assert element in _ELEMENTS.values(), element
    return constant("element_bytes")


def _activation(tag: str) -> Activation:
    routed = family_data()["activation"].get(tag)
    return Activation(routed) if routed is not None else Activation.INVALID


def tactic_of(name: str, template_args: tuple[str, ...]) -> Tactic | str:
    """The launcher instantiation's template arguments as a Tactic, or why not (a reason)."""
    if name.rsplit("::", 1)[-1] != LAUNCHER_NAME:
        return f"not {LAUNCHER_NAME}"
    if len(template_args) != 7:
        return f"{LAUNCHER_NAME} takes 7 template arguments, found {len(template_args)}"
    elem, weight, m, n, k, stages, tag = (" ".join(a.split()) for a in template_args)
    if elem not in _ELEMENTS:
        return f"element type {elem} is not modeled (f16 and bf16 are)"
    if weight != elem:
        return f"weight type {weight} differs from the element type {elem}: not modeled"
    try:
        tile = Shape3(m=int(m), n=int(n), k=int(k))
        stage_count = int(stages)
    except ValueError:
        return f"tile or stages are not integer literals: {m}, {n}, {k}, {stages}"
    activation = _activation(tag)
    if activation is Activation.INVALID:
        return f"epilogue tag {tag} routes to Activation_Type::InvalidType"
    t = Tactic(_ELEMENTS[elem], tile, stage_count, tag, activation)
    problem = compile_problem(t)
    return problem if problem is not None else t


def traits_for(t: Tactic, tile_m: int) -> Traits:
    """The traits the kernel instantiates for a tile M (its own MaxTileM, or 16)."""
    tile_n = t.tile.n // 2 if t.activation.gated else t.tile.n
    tile_k = t.tile.k if tile_m > 16 else max(t.tile.k, constant("m16_min_tile_k"))
    block_k = constant("block_k_smem_m16") if tile_m == 16 else constant("block_k_smem")
    return Traits(tile_m, tile_n, tile_k, block_k, t.stages, t.activation.gated)


def uses_m16(t: Tactic) -> bool:
    """kernel: `use_m16 = TileK_ >= 64`."""
    return t.tile.k >= constant("m16_from_tile_k")


def kernel_traits(t: Tactic) -> tuple[Traits, ...]:
    """BaseKernelTraits, and BaseKernelTraits_m16 when the kernel sizes its storage by it too."""
    base = traits_for(t, t.tile.m)
    return (base, traits_for(t, 16)) if uses_m16(t) else (base,)


def compile_problem(t: Tactic) -> str | None:
    """The traits' static_asserts, for the kernel's traits: why it would not compile, if so."""
    atom_rows = constant("atom_rows")
    if t.stages < 2:
        return f"Stages = {t.stages}: traits static_assert(Stages >= 2)"
    for tr in kernel_traits(t):
        where = f"traits for tile M {tr.tile_m}"
        if tr.tile_m % 16 or tr.tile_n % 32 or tr.tile_k % 32:
            return f"{where}: static_assert(TileM % 16, TileN % 32, TileK % 32 == 0) fails"
        if tr.tile_m % atom_rows or tr.tile_n % atom_rows or tr.tile_k % tr.block_k_smem:
            return f"{where}: the tile is not a multiple of the {atom_rows}x{tr.block_k_smem} atom"
    return None


@cache
def traits_shared_storage(tr: Traits, element: ElementType) -> Block:
    """`SharedStorageGate` (gated) or `SharedStorageNormal`, as the compiler lays it out:
    `cute::array_aligned<ElementInput, cosize_v<SmemLayoutX>>` members (alignas 16) in a struct
    deriving from `cute::aligned_struct<128>`. cosize of `tile_to_shape(atom, (M|N, K, Stages))`
    is M|N x K x Stages: the swizzled atom is compact and tiles without gaps."""
    b = element_bytes(element)
    align = constant("array_align")

    def tile(name: str, extent: str, elements: int) -> Block:
        src = f"{TRAITS}: cute::array_aligned<ElementInput, cosize_v<{extent}>> {name}"
        return array(name, elements * b, align, src)

    a = tile("smem_input", "SmemLayoutA", tr.tile_m * tr.tile_k * tr.stages)
    w = tr.tile_n * tr.tile_k * tr.stages
    o = tile("smem_o", "SmemLayoutO", tr.tile_m * tr.tile_n)
    if tr.gated:
        members = [
            a,
            tile("smem_fc1_gate_weight", "SmemLayoutB", w),
            tile("smem_fc1_weight", "SmemLayoutB", w),
            o,
        ]
        name = "SharedStorageGate"
    else:
        members = [a, tile("smem_fc1_weight", "SmemLayoutB", w), o]
        name = "SharedStorageNormal"
    src = f"{TRAITS}: struct {name} : cute::aligned_struct<128> (tile M {tr.tile_m})"
    return struct(name, members, src, base_align=constant("storage_align"))


def kernel_smem(t: Tactic) -> int:
    """`Fused_Moe_Kernel_sm80::kSmemSize`: sizeof of the base traits' SharedStorage, or of the
    M = 16 traits' when use_m16 and that one is larger. The launcher's `smem_size`."""
    return max(traits_shared_storage(tr, t.element).size for tr in kernel_traits(t))


def shared_storage(t: Tactic) -> Block:
    """The SharedStorage whose sizeof is kSmemSize (the base traits' on a tie)."""
    blocks = [traits_shared_storage(tr, t.element) for tr in kernel_traits(t)]
    return max(blocks, key=lambda b: b.size)


def threads_per_block(t: Tactic) -> int:
    """`GemmType::kThreadCount` = traits kWarpsCount * 32, the launch's block size."""
    return constant("warps") * constant("threads_per_warp")


class Check(StrEnum):
    """The launcher's checks, in the order it runs them."""

    SET_ATTRIBUTE = "cudaFuncSetAttribute"
    """fused_gemm_maximum_active_blocks: MaxDynamicSharedMemorySize = smem_size, above 48 KiB."""
    OCCUPANCY = "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
    """fused_gemm_maximum_active_blocks: blocks per SM; the launcher needs > 0."""


@dataclass(frozen=True)
class LaunchOutcome:
    """What the launcher's run path does with this tactic on one arch."""

    arch: str
    smem: int
    """The dynamic shared memory the launcher asks for (kSmemSize)."""
    static_smem: int
    limit: int
    """The arch's opt-in limit per block (cudaDevAttrMaxSharedMemoryPerBlockOptin)."""
    fits: bool
    check: Check
    """The check that decides: the attribute call when smem > 48 KiB, else the occupancy query."""
    message: str | None
    """The launcher's exception text when it does not fit."""
    blocks_by_smem: int
    """Blocks per SM that shared memory allows (the occupancy query's upper bound; registers
    may lower it, never to 0 at 128 threads)."""
    query_occupancy_zero: bool
    """Whether the launcher's profiling branch (`kernel_occupancy != nullptr`, strict `>=`)
    would report occupancy 0. FlashInfer never takes that branch (family.toml, launcher)."""


def launch_outcome(t: Tactic, arch: ArchLimits, static_smem: int | None = None) -> LaunchOutcome:
    """The launcher's run path on `arch`:

        int occupancy = std::min(2, fused_moe::fused_gemm_maximum_active_blocks<GemmType>());
        TLLM_CHECK_WITH_INFO(occupancy > 0, "GPU lacks the shared memory resources to run fused_moe kernel");

    `fused_gemm_maximum_active_blocks` returns -1 when `smem_size > (48 << 10)` and
    `cudaFuncSetAttribute(MaxDynamicSharedMemorySize, smem_size)` fails, which it does above
    opt-in minus the kernel's static shared memory (the limit is inclusive: docs/failures.md, measured on an H200); otherwise the
    occupancy query, which is at least 1 whenever the attribute call succeeded, since every arch's
    shared memory per SM is its opt-in limit plus the 1 KiB reserved per block.
    """
    d = family_data()["launcher"]
    static = constant("static_smem") if static_smem is None else static_smem
    smem = kernel_smem(t)
    opt_in_above = constant("dynamic_smem_opt_in_above")
    per_block = smem + static + arch.smem_reserved_per_block
    blocks = arch.smem_per_sm // per_block
    if smem > opt_in_above:
        check = Check.SET_ATTRIBUTE
        fits = smem + static <= arch.smem_optin
    else:
        check = Check.OCCUPANCY
        fits = blocks > 0
    return LaunchOutcome(
        arch=arch.name,
        smem=smem,
        static_smem=static,
        limit=arch.smem_optin,
        fits=fits,
        check=check,
        message=None if fits else str(d["run_message"]),
        blocks_by_smem=blocks if fits else 0,
        query_occupancy_zero=(smem > opt_in_above and smem + static >= arch.smem_optin)
        or blocks == 0,
    )


__all__ = [
    "LAUNCHER",
    "LAUNCHER_NAME",
    "PACKAGE",
    "Activation",
    "Check",
    "LaunchOutcome",
    "Tactic",
    "Traits",
    "compile_problem",
    "constant",
    "family_data",
    "kernel_smem",
    "kernel_traits",
    "launch_outcome",
    "shared_storage",
    "tactic_of",
    "threads_per_block",
    "traits_for",
    "traits_shared_storage",
    "uses_m16",
]
