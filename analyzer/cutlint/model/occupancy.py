"""Registers and occupancy: what a kernel's block holds of an SM, and how many blocks fit.

`occupancy` mirrors CUDA's own calculator, `cudaOccMaxActiveBlocksPerMultiprocessor` of
include/cuda_occupancy.h (CUDA 13.0), which is what `cudaOccupancyMaxActiveBlocksPerMultiprocessor`
answers: the least of four limits (warps, blocks, shared memory, registers per SM), for cc 8.0 to
12.1 (no partitioned global caching, the default shared-memory carveout). Block barriers are left
out: one `__syncthreads` barrier a block never limits below the block limit on these arches
(cudaOccMaxBlocksPerSMBlockBarrierLimit: at least one barrier per resident block).

`register_cap` is the cap `__launch_bounds__(MaxThreadsPerBlock, MinBlocksPerMultiprocessor)`
puts on ptxas: the register file shared by MinBlocks blocks of MaxThreads threads, rounded down
to the allocation unit, at most the per-thread maximum (measured on an H200, docs/hardware.md:
384 threads, 1 block -> 168 registers in every CUTLASS SM90 kernel's cubin).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cache
from typing import TypeVar, cast

from cutlint import tables
from cutlint.identity import ByIdentity
from cutlint.records import ArchLimits, Occupancy, RegisterUse, Resources

_NO_LIMIT = 1 << 30


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _per_thread_unit(arch: ArchLimits) -> int:
    """Registers per thread come in multiples of this: the per-warp unit over the warp."""
    return arch.register_allocation_unit // arch.warp_size


def register_cap(threads: int, min_blocks: int | None, arch: ArchLimits) -> tuple[int, str]:
    """The per-thread register cap ptxas compiles a kernel under, and its derivation."""
    if min_blocks is None:
        return arch.registers_per_thread, (
            f"no __launch_bounds__: the per-thread maximum, {arch.registers_per_thread}"
        )
    unit = _per_thread_unit(arch)
    share = arch.registers_per_sm // (threads * min_blocks)
    cap = min(arch.registers_per_thread, share // unit * unit)
    return cap, (
        f"__launch_bounds__({threads}, {min_blocks}): {arch.registers_per_sm:,} / "
        f"({threads} x {min_blocks}) = {share}, down to a multiple of {unit}, "
        f"at most {arch.registers_per_thread}: {cap}"
    )


def block_registers(per_thread: int, threads: int, arch: ArchLimits) -> int:
    """Registers the block is allocated: per warp, rounded up to the allocation unit."""
    per_warp = _round_up(per_thread * arch.warp_size, arch.register_allocation_unit)
    return per_warp * -(-threads // arch.warp_size)


MEMO = 4096
"""Distinct arguments `occupancy` and `register_use` keep answers for (a build's kernels take a
few hundred distinct threads, sizes and register plans)."""

_T = TypeVar("_T")
_BY_ARCH: ByIdentity[object] = ByIdentity(bound=MEMO)


def _by_arch(arch: ArchLimits, key: tuple[Hashable, ...], compute: Callable[[], _T]) -> _T:
    """`compute()`, kept by (`key`, the arch record's identity). The arch is a frozen record
    (one per arch: model.arch's table) that holds a dict, so it has no hash: its identity stands
    for its value. `key` must hold every other argument `compute` reads."""
    return cast(_T, _BY_ARCH.get(arch, compute, *key))


def occupancy(
    arch: ArchLimits,
    threads: int,
    dynamic_smem: int,
    registers_per_thread: int | None,
    static_smem: int = 0,
    max_dynamic_smem: int | None = None,
) -> Occupancy:
    """`occupancy_of`, kept per distinct arguments (all it reads)."""
    return _by_arch(
        arch,
        ("occupancy", threads, dynamic_smem, registers_per_thread, static_smem, max_dynamic_smem),
        lambda: occupancy_of(
            arch, threads, dynamic_smem, registers_per_thread, static_smem, max_dynamic_smem
        ),
    )


def occupancy_of(
    arch: ArchLimits,
    threads: int,
    dynamic_smem: int,
    registers_per_thread: int | None,
    static_smem: int = 0,
    max_dynamic_smem: int | None = None,
) -> Occupancy:
    """Active blocks per SM; `registers_per_thread` None: that limit is not decided.

    `max_dynamic_smem` is the kernel's `cudaFuncAttributeMaxDynamicSharedMemorySize`; None: as
    CUTLASS's adapters (`GemmUniversalAdapter::initialize`, 2.x `GemmUniversalBase`) and the
    TensorRT-LLM launchers set it, to the kernel's own size when that is at least 48 KiB, and not
    at all below."""
    warps = -(-threads // arch.warp_size)
    by_warps = (
        0 if threads > arch.threads_per_block else (arch.threads_per_sm // arch.warp_size) // warps
    )
    by_blocks = arch.max_blocks_per_sm
    # cudaOccMaxBlocksPerSMSmemLimit: the reservation counts with static memory; the per-block
    # limit is the opt-in (or default) size plus the reservation.
    allocated = _round_up(
        static_smem + arch.smem_reserved_per_block + dynamic_smem, arch.smem_allocation_unit
    )
    if max_dynamic_smem is None and dynamic_smem >= arch.smem_per_block_default:
        max_dynamic_smem = dynamic_smem
    per_block = arch.smem_per_block_default + arch.smem_reserved_per_block
    exceeded = False
    if max_dynamic_smem is not None:
        # cudaOccSMemPerBlock, FUNC_SHMEM_LIMIT_OPTIN: the opt-in limit once the most the
        # kernel may use is above the default; a launch above the attribute is refused
        exceeded = dynamic_smem > max_dynamic_smem
        most = static_smem + arch.smem_reserved_per_block + max_dynamic_smem
        if most > arch.smem_per_block_default:
            per_block = arch.smem_optin + arch.smem_reserved_per_block
    by_smem = 0 if exceeded or allocated > per_block else arch.smem_per_sm // allocated
    by_registers = (
        None
        if registers_per_thread is None
        else _registers_limit(arch, warps, registers_per_thread)
    )
    limits = {"warps": by_warps, "blocks": by_blocks, "shared memory": by_smem}
    if by_registers is not None:
        limits["registers"] = by_registers
    at_most = min(limits.values())
    decided = by_registers is not None or at_most == 0
    regs = "registers not decided" if by_registers is None else f"registers {by_registers}"
    return Occupancy(
        blocks_per_sm=at_most if decided else None,
        at_most=at_most,
        by_warps=by_warps,
        by_blocks=by_blocks,
        by_smem=by_smem,
        by_registers=by_registers,
        limited_by=tuple(k for k, v in limits.items() if v == at_most),
        smem_allocated=allocated,
        derivation=(
            f"{arch.name}: min(warps {by_warps}, blocks {by_blocks}, shared memory {by_smem} "
            f"({allocated:,} B a block of {arch.smem_per_sm:,} B, limit {per_block:,} B), {regs})"
            f" = {at_most if decided else f'at most {at_most}'}"
        ),
    )


def _registers_limit(arch: ArchLimits, warps: int, per_thread: int) -> int:
    """cudaOccMaxBlocksPerSMRegsLimit (cc 7.x-12.x: no partitioned global caching)."""
    per_warp = _round_up(per_thread * arch.warp_size, arch.register_allocation_unit)
    block = per_warp * warps
    # The launch check assumes the block's warps spread over every sub-partition.
    assumed = per_warp * _round_up(warps, arch.register_sub_partitions)
    if (
        arch.registers_per_block < assumed
        or arch.registers_per_block < block
        or per_thread > arch.registers_per_thread + 1  # cudaOccRegAllocationMaxPerThread: 256
    ):
        return 0
    if per_warp == 0:
        return _NO_LIMIT
    per_sub = (arch.registers_per_sm // arch.register_sub_partitions) // per_warp
    return per_sub * arch.register_sub_partitions // warps


@cache
def _launch_bounds() -> dict[str, tuple[int | None, str]]:
    data = tables.load(tables.data_file("cutlint.model", "launch_bounds.toml"))
    out: dict[str, tuple[int | None, str]] = {}
    for family in data["device_kernel"]["families"]:
        out[family] = (data["device_kernel"]["min_blocks_per_sm"], data["device_kernel"]["source"])
    for family in data["no_bounds"]["families"]:
        out[family] = (None, data["no_bounds"]["source"])
    return out


def register_use(family: str, res: Resources) -> RegisterUse | None:
    """Registers per thread and per block from the model, or None when the family's kernel entry
    is not known (its launch bounds, hence the cap, are not decidable)."""
    reconfigured = res.registers is not None and res.registers.reconfigured
    threads = res.max_threads_per_block
    return _by_arch(
        res.arch,
        ("register_use", family, threads, reconfigured),
        lambda: _register_use(family, threads, reconfigured, res.arch),
    )


def _register_use(
    family: str, threads: int, reconfigured: bool, arch: ArchLimits
) -> RegisterUse | None:
    """`register_use` by all it reads of the resources."""
    bounds = _launch_bounds().get(family)
    if bounds is None:
        return None
    min_blocks, source = bounds
    cap, derivation = register_cap(threads, min_blocks, arch)
    # A kernel that reconfigures its warp groups (setmaxnreg) is compiled to the whole cap: the
    # split must add up to what the block holds (CUTLASS's LoadRegisterRequirement /
    # MmaRegisterRequirement; measured on an H200: 168 = the cap for 384 threads). Otherwise
    # ptxas may use fewer than the cap: not decidable from the source.
    per_thread = cap if reconfigured else None
    return RegisterUse(
        per_thread=per_thread,
        cap=cap,
        cap_derivation=derivation,
        block=None if per_thread is None else block_registers(per_thread, threads, arch),
        origin="model",
        source=source,
    )


def with_occupancy(family: str, res: Resources) -> Resources:
    """`res` with its register use and occupancy filled in."""
    use = register_use(family, res)
    occ = occupancy(
        res.arch,
        res.max_threads_per_block,
        res.layout.size,
        None if use is None else use.per_thread,
    )
    return res.model_copy(update={"register_use": use, "occupancy": occ})
