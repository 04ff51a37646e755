"""The metrics rules may name: a flat view of one instantiation's Resources.

Every metric is derived from the model's records; nothing here computes a new number of the
kernel. The names are the vocabulary of the rule files and their message templates.
"""

from __future__ import annotations

from cutlint.records import Instantiation, Resources, Variant

Facts = dict[str, int | bool | str]

METRICS: dict[str, str] = {
    "smem.total": "sizeof(GemmKernel::SharedStorage), the bytes initialize() asks for",
    "smem.limit": "the arch's opt-in shared memory per block",
    "smem.slack": "smem.limit - smem.total",
    "smem.over": "smem.total - smem.limit",
    "smem.mainloop": "sizeof(CollectiveMainloop::SharedStorage)",
    "smem.epilogue": "sizeof(CollectiveEpilogue::SharedStorage), the builder's carveout",
    "stages": "the stage count the builder picks",
    "builder.capacity": "the capacity the stage-count formula starts from",
    "builder.reduced_capacity": "the capacity less the builder's up-front reductions",
    "builder.accounted": "what the builder believes the kernel needs: reductions + carveout + stages x stage bytes",
    "builder.undercount": "smem.total - builder.accounted: kernel storage the budget does not count",
    "builder.stage_bytes": "bytes per stage in the builder's formula",
    "cluster.size": "CGA_M x CGA_N x CGA_K",
    "cluster.shape": "the cluster as written, MxNxK",
    "cluster.dynamic": "DYNAMIC_CGA",
    "arch.sm": "the target arch's compute capability, e.g. 120",
    "arch.name": "the target arch, e.g. sm_120",
    "arch.max_cluster_size": "largest cluster the arch's builders accept",
    "dispatch.supported": "the launcher's SM120 dispatch accepts this tile and cluster",
    "tile": "the CTA tile, MxNxK",
    "swap_ab": "SwapAB",
    "fusion": "the epilogue fusion",
    "variant.fits": "a neighbouring variant (SwapAB, fusion) fits",
    "variant.advice": "which neighbouring variant fits, in words",
    "cutlass.version": "the CUTLASS version modeled",
}


def _advice(variants: tuple[Variant, ...]) -> str:
    fitting = [v for v in variants if v.fits]
    if not fitting:
        return "no SwapAB or fusion variant of this tile fits; a smaller tile (N or K) does"
    best = min(fitting, key=lambda v: v.smem_bytes)
    return f"the {best.label} variant fits ({best.smem_bytes:,} B, {best.stages} stages)"


def facts_for(inst: Instantiation, res: Resources) -> Facts:
    sc = res.stage_count
    reductions = sum(r.bytes for r in sc.reductions)
    accounted = reductions + sc.carveout + sc.stages * sc.stage_bytes
    moe = inst.moe
    assert moe is not None  # Resources exist only for typed instantiations
    c = moe.cluster
    return {
        "smem.total": res.layout.size,
        "smem.limit": res.arch.smem_optin,
        "smem.slack": res.arch.smem_optin - res.layout.size,
        "smem.over": res.layout.size - res.arch.smem_optin,
        "smem.mainloop": res.layout.mainloop_size,
        "smem.epilogue": res.layout.epilogue_size,
        "stages": sc.stages,
        "builder.capacity": sc.capacity,
        "builder.reduced_capacity": sc.capacity - reductions,
        "builder.accounted": accounted,
        "builder.undercount": res.layout.size - accounted,
        "builder.stage_bytes": sc.stage_bytes,
        "cluster.size": c.m * c.n * c.k,
        "cluster.shape": str(c),
        "cluster.dynamic": moe.dynamic_cga,
        "arch.sm": res.arch.sm,
        "arch.name": res.arch.name,
        "arch.max_cluster_size": res.arch.max_cluster_size,
        "dispatch.supported": res.dispatch_supported,
        "tile": str(moe.cta_tile),
        "swap_ab": moe.swap_ab,
        "fusion": moe.fusion.value if moe.fusion else "?",
        "variant.fits": any(v.fits for v in res.variants),
        "variant.advice": _advice(res.variants),
        "cutlass.version": res.cutlass_version,
    }
