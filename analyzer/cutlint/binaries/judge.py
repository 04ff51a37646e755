"""A compiled kernel's registers, occupancy and findings on a target arch.

The binary gives what the source cannot: the registers ptxas allocated (and, with ptxas's log,
its spills). The block size is the launch bounds' (CUTLASS 3.x kernels: MaxThreadsPerBlock) or
the caller's; without either, the register-per-block and occupancy findings are not decided and
nothing is reported for them. Rules are the same rule files the check pipeline evaluates
(CUT108-CUT111), over the same metric names, through cutlint.engine.evaluate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cutlint.binaries.cubin import Kernel
from cutlint.binaries.ptxas import PtxasKernel
from cutlint.binaries.read import KernelImage
from cutlint.engine.evaluate import diagnose
from cutlint.engine.loader import rules_by_id
from cutlint.families.base import Facts
from cutlint.model.occupancy import block_registers, occupancy, register_cap
from cutlint.records import ArchLimits, Diagnostic, Occupancy

BINARY_RULES = ("CUT108", "CUT110", "CUT111")
"""The rules a binary decides. CUT109 (the setmaxnreg split) needs the kernel shell's constants,
which a cubin does not record: the model's RegisterPlan decides it."""


@dataclass(frozen=True, slots=True)
class KernelVerdict:
    image: KernelImage
    threads: int | None
    """Threads a block: the launch bounds', else the caller's (None: not known)."""
    occupancy: Occupancy | None
    diagnostics: tuple[Diagnostic, ...]


def _threads(kernel: Kernel, given: int | None) -> int | None:
    if kernel.max_threads is not None:
        x, y, z = kernel.max_threads
        return x * y * z
    return given


def facts(
    kernel: Kernel,
    arch: ArchLimits,
    threads: int,
    dynamic_smem: int,
    ptxas: PtxasKernel | None,
) -> tuple[Facts, Occupancy]:
    regs = kernel.registers or 0
    occ = occupancy(arch, threads, dynamic_smem, regs, static_smem=kernel.static_smem)
    min_blocks = 1 if kernel.max_threads is not None else None
    _cap, derivation = register_cap(threads, min_blocks, arch)
    cap = kernel.register_cap if kernel.register_cap is not None else _cap
    return {
        "arch.name": arch.name,
        "threads": threads,
        "registers.decided": kernel.registers is not None,
        "registers.per_thread": regs,
        "registers.cap": cap,
        "registers.cap_derivation": f"the cubin's register cap {cap} ({derivation})",
        "registers.block": block_registers(regs, threads, arch),
        "registers.block_limit": arch.registers_per_block,
        "registers.measured": "ptxas's log" if ptxas else "the cubin",
        "registers.spill_stores": ptxas.spill_stores if ptxas else 0,
        "registers.spill_loads": ptxas.spill_loads if ptxas else 0,
        "smem.total": kernel.static_smem + dynamic_smem,
        "smem.limit": arch.smem_optin,
        "occupancy.at_most": occ.at_most,
        "occupancy.derivation": occ.derivation,
    }, occ


def judge(
    images: list[KernelImage],
    arch: ArchLimits,
    threads: int | None = None,
    dynamic_smem: int = 0,
    ptxas: Mapping[str, PtxasKernel] | None = None,
) -> list[KernelVerdict]:
    rules = [rules_by_id()[r] for r in BINARY_RULES]
    out = []
    for image in images:
        k = image.kernel
        n = _threads(k, threads)
        if n is None or k.registers is None:
            out.append(KernelVerdict(image, n, None, ()))
            continue
        spills = (ptxas or {}).get(k.name)
        kernel_facts, occ = facts(k, arch, n, dynamic_smem, spills)
        found = diagnose(rules, kernel_facts, image.path, None)
        out.append(KernelVerdict(image, n, occ, tuple(found)))
    return out
