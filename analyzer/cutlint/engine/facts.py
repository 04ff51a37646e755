"""The metrics rules may name: a flat view of one instantiation's Resources and recipe.

Core metrics come from the Resources every family has; a family adds its own, namespaced
(`moe.swap_ab`), through its `facts`. Nothing here computes a new number of the kernel. The names
are the vocabulary of the rule files and their message templates.
"""

from __future__ import annotations

from cutlint.families.base import Facts
from cutlint.records import Resources, Variant

CORE_METRICS: dict[str, str] = {
    "smem.total": "sizeof(GemmKernel::SharedStorage), the bytes initialize() asks for",
    "smem.limit": "the arch's opt-in shared memory per block",
    "smem.slack": "smem.limit - smem.total",
    "smem.over": "smem.total - smem.limit",
    "smem.mainloop": "sizeof(CollectiveMainloop::SharedStorage)",
    "smem.epilogue": "sizeof(CollectiveEpilogue::SharedStorage)",
    "stages": "the stage count the builder picks (or StageCount<N> gives)",
    "builder.capacity": "the capacity the stage-count formula starts from",
    "builder.reserved": "what the builder subtracts from the capacity up front",
    "builder.carveout": "the StageCountAutoCarveout bytes (the epilogue's SharedStorage)",
    "builder.stage_budget": "capacity - reserved - carveout: the bytes the builder divides into stages",
    "builder.stage_bytes": "bytes per stage in the builder's formula",
    "builder.estimate": "what the builder believes the kernel needs: reserved + carveout + stages x stage bytes",
    "builder.undercount": "smem.total - builder.estimate: kernel storage the builder does not count",
    "arch.sm": "the target arch's compute capability, e.g. 120",
    "arch.name": "the target arch, e.g. sm_120",
    "arch.max_cluster_size": "largest cluster the arch's builders accept",
    "dispatch.supported": "the launcher's dispatch accepts this tile and cluster (true when it has no list, or the release is unknown)",
    "dispatch.reason": "why the launcher's dispatch refuses the tactic, in its own terms (empty when it does not)",
    "variant.fits": "a neighbouring variant fits",
    "variant.advice": "which neighbouring variant fits, in words",
    "cutlass.version": "the CUTLASS version modeled",
    "threads": "threads per block (MaxThreadsPerBlock)",
    "registers.cap": "the per-thread register cap __launch_bounds__ puts on ptxas (255 without)",
    "registers.cap_derivation": "how registers.cap follows from the launch bounds, in words",
    "registers.decided": "whether registers per thread are decided (reconfigured kernels: the cap)",
    "registers.per_thread": "registers per thread at launch (0: not decided)",
    "registers.block": "registers allocated to the block at launch (0: not decided)",
    "registers.block_limit": "the arch's registers per block",
    "registers.file": "the arch's registers per SM",
    "registers.reconfigured_block": "what the warp groups hold after setmaxnreg (0: no reconfiguration)",
    "registers.measured": "where measured registers and spills come from, in words (the model's otherwise)",
    "registers.spill_stores": "bytes ptxas spills to local memory (0: none, or not known from the source)",
    "registers.spill_loads": "bytes ptxas loads back from spills (0: none, or not known from the source)",
    "occupancy.at_most": "active blocks per SM, the least of the decided limits",
    "occupancy.decided": "whether every occupancy limit is decided (or one is already zero)",
    "occupancy.derivation": "the occupancy limits, in words",
}


CORE_METRIC_NODES: dict[str, tuple[str, ...]] = {
    "smem.total": ("layout.total",),
    "smem.limit": ("limit",),
    "smem.slack": ("layout.total", "limit"),
    "smem.over": ("layout.total", "limit"),
    "stages": ("builder.stages",),
    "builder.capacity": ("builder.capacity",),
    "builder.carveout": ("builder.carveout",),
    "builder.stage_budget": ("builder.stage_budget",),
    "builder.stage_bytes": ("builder.stage_bytes",),
    "arch.sm": ("input.arch",),
    "arch.name": ("input.arch",),
    "arch.max_cluster_size": ("input.arch",),
    "cutlass.version": ("input.cutlass",),
    "dispatch.supported": ("dispatch",),
    "dispatch.reason": ("dispatch",),
    "variant.fits": ("variants",),
    "variant.advice": ("variants",),
}
"""The derivation-graph nodes (cutlint.explain.graph) that hold a core metric's value."""

CORE_METRIC_INPUTS: dict[str, tuple[str, ...]] = {
    "builder.reserved": ("builder.reduction.*",),
    "builder.estimate": (
        "builder.reduction.*",
        "builder.carveout",
        "builder.stages",
        "builder.stage_bytes",
    ),
    "builder.undercount": ("layout.total", "metric.builder.estimate"),
    "smem.mainloop": ("layout.tensors",),
    "smem.epilogue": ("builder.carveout",),
    "threads": (),
}
"""Core metrics that are arithmetic over graph nodes (each gets a node of its own): the nodes
core_facts computes them from, as core_facts below writes them."""


def _advice(variants: tuple[Variant, ...]) -> str:
    fitting = [v for v in variants if v.fits]
    if not variants:
        return "a smaller tile or one stage fewer fits"
    if not fitting:
        labels = " or ".join(v.label for v in variants)
        return f"no {labels} variant of this tile fits; a smaller tile (N or K) does"
    best = min(fitting, key=lambda v: v.smem_bytes)
    return f"the {best.label} variant fits ({best.smem_bytes:,} B, {best.stages} stages)"


def core_facts(res: Resources) -> Facts:
    sc = res.stage_count
    return {
        "smem.total": res.layout.size,
        "smem.limit": res.arch.smem_optin,
        "smem.slack": res.arch.smem_optin - res.layout.size,
        "smem.over": res.layout.size - res.arch.smem_optin,
        "smem.mainloop": res.layout.mainloop_size,
        "smem.epilogue": res.layout.epilogue_size,
        "stages": sc.stages,
        "builder.capacity": sc.capacity,
        "builder.reserved": sc.reserved,
        "builder.carveout": sc.carveout,
        "builder.stage_budget": sc.stage_budget,
        "builder.stage_bytes": sc.stage_bytes,
        "builder.estimate": sc.estimate,
        "builder.undercount": res.layout.size - sc.estimate,
        "arch.sm": res.arch.sm,
        "arch.name": res.arch.name,
        "arch.max_cluster_size": res.arch.max_cluster_size,
        "dispatch.supported": res.dispatch_supported is not False,
        "dispatch.reason": res.dispatch_reason,
        "variant.fits": any(v.fits for v in res.variants),
        "variant.advice": _advice(res.variants),
        "cutlass.version": res.cutlass_version,
        "threads": res.max_threads_per_block,
        **_register_facts(res),
    }


def _register_facts(res: Resources) -> Facts:
    use, occ, plan = res.register_use, res.occupancy, res.registers
    return {
        "registers.cap": use.cap if use else res.arch.registers_per_thread,
        "registers.cap_derivation": use.cap_derivation if use else "launch bounds not known",
        "registers.decided": use is not None and use.per_thread is not None,
        "registers.per_thread": (use.per_thread or 0) if use else 0,
        "registers.block": (use.block or 0) if use else 0,
        "registers.block_limit": res.arch.registers_per_block,
        "registers.file": res.arch.registers_per_sm,
        "registers.reconfigured_block": (plan.block_registers or 0) if plan else 0,
        # spills are ptxas's to know (cutlint.binaries.measured): never guessed from the source
        "registers.measured": (use.measured or "the model") if use else "the model",
        "registers.spill_stores": (use.spill_stores or 0) if use else 0,
        "registers.spill_loads": (use.spill_loads or 0) if use else 0,
        "occupancy.at_most": occ.at_most if occ else 1,
        "occupancy.decided": occ is not None and occ.blocks_per_sm is not None,
        "occupancy.derivation": occ.derivation if occ else "not computed",
    }
