"""How a verdict was derived, as a graph: from the instantiation's arguments to every byte.

Nodes are the inputs (tile, types, fusion, SwapAB, CUTLASS version, arch), the intermediate
quantities of the builder's arithmetic (carveout, per-stage terms, stage bytes, budget, stages),
the epilogue's choices (subtile, StagesC, StagesD), each region of the kernel's SharedStorage,
the total, the limit, the rules' findings and the verdict. An edge u -> v says "u is derived from
v". Each node carries `label`, `value`, `unit` and `source` (the CUTLASS header and symbol it
mirrors, or where an input came from).

Every value is read off the model's records (Resources: StageCount terms, SmemLayout regions,
ArchLimits sources, EpilogueTile) or the engine's facts over them; nothing is computed again.
What this module adds is which record feeds which: that smem_A is built from the stage count and
the A term, that the carveout is built from the epilogue's choices.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from cutlint.engine.evaluate import TEMPLATE_FIELD, metrics_named
from cutlint.engine.facts import METRICS, Facts, facts_for
from cutlint.engine.loader import rules_by_id
from cutlint.records import InstantiationResult, Region, Resources

LAUNCHER = "launcher moe_gemm_tma_ws_launcher.inl"
KERNEL = "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp"

# Which nodes each region of SharedStorage is built from, by its member name (the names are the
# model's, model/sm120_blockscaled.py). Regions not listed are constants (barriers of fixed
# depth, scheduler responses, tensormaps) or padding.
REGION_INPUTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mainloop.smem_A", ("builder.stages", "builder.term.A")),
    ("mainloop.smem_B", ("builder.stages", "builder.term.B")),
    ("mainloop.smem_SFA", ("builder.stages", "builder.term.SFA")),
    ("mainloop.smem_SFB", ("builder.stages", "builder.term.SFB")),
    (
        "epilogue.collective.smem_C",
        ("epilogue.tile", "epilogue.stages_c", "epilogue.swizzle", "input.types"),
    ),
    (
        "epilogue.collective.smem_D",
        (
            "epilogue.tile",
            "epilogue.stages_d",
            "epilogue.stages_c",
            "epilogue.swizzle",
            "input.types",
        ),
    ),
    ("epilogue.thread", ("input.tile", "input.fusion", "input.swap_ab", "input.types")),
    ("pipelines.mainloop", ("builder.stages",)),
    ("pipelines.epi_load", ("epilogue.stages_c",)),
    ("(tail padding)", ("layout.align",)),
)

# The nodes a rule metric (engine/facts.py) names. Metrics not listed get a node of their own.
METRIC_NODES: dict[str, tuple[str, ...]] = {
    "smem.total": ("layout.total",),
    "smem.limit": ("limit",),
    "smem.slack": ("layout.total", "limit"),
    "smem.over": ("layout.total", "limit"),
    "stages": ("builder.stages",),
    "builder.capacity": ("builder.capacity",),
    "builder.stage_bytes": ("builder.stage_bytes",),
    "cluster.size": ("input.cluster",),
    "cluster.shape": ("input.cluster",),
    "cluster.dynamic": ("input.cluster",),
    "arch.sm": ("input.arch",),
    "arch.name": ("input.arch",),
    "arch.max_cluster_size": ("input.arch",),
    "tile": ("input.tile",),
    "swap_ab": ("input.swap_ab",),
    "fusion": ("input.fusion",),
    "cutlass.version": ("input.cutlass",),
    "dispatch.supported": ("dispatch",),
    "variant.fits": ("variants",),
    "variant.advice": ("variants",),
}

# Metrics that are arithmetic over other nodes: what engine/facts.py computes them from.
METRIC_INPUTS: dict[str, tuple[str, ...]] = {
    "builder.reduced_capacity": ("builder.capacity", "builder.reduction.*"),
    "builder.accounted": (
        "builder.reduction.*",
        "builder.carveout",
        "builder.stages",
        "builder.stage_bytes",
    ),
    "builder.undercount": ("layout.total", "metric.builder.accounted"),
    "smem.mainloop": ("layout.tensors",),
    "smem.epilogue": ("builder.carveout",),
}


def _add(
    g: nx.DiGraph[str],
    node: str,
    label: str,
    value: object,
    source: str,
    kind: str,
    derived_from: Iterable[str] = (),
    unit: str = "",
) -> None:
    g.add_node(node, label=label, value=value, source=source, kind=kind, unit=unit)
    for v in derived_from:
        g.add_edge(node, v)


def _expand(g: nx.DiGraph[str], names: Iterable[str]) -> list[str]:
    """Node names present in `g`, with `prefix.*` standing for every node under that prefix."""
    out: list[str] = []
    for name in names:
        if name.endswith(".*"):
            out += [str(n) for n in g if str(n).startswith(name[:-1])]
        elif name in g:
            out.append(name)
    return out


def _inputs(g: nx.DiGraph[str], r: InstantiationResult) -> None:
    inst, m = r.instantiation, r.instantiation.moe
    where = f"{inst.span.path}:{inst.span.line}" if inst.span.line else "the tactic as given"
    _add(g, "inputs", f"inputs ({inst.name})", where, "the instantiation's arguments, the "
         "CUTLASS version and the target arch", "input")  # fmt: skip
    if m is None:
        return
    names = [t.value if t else "?" for t in (m.act_type, m.weight_type, m.output_type)]
    types = f"{names[0]} x {names[1]} -> {names[2]}" + (", MXFPX" if m.mxfpx else "")
    arg = f"{inst.name} argument"
    fusion = m.fusion.value if m.fusion else "?"
    _add(
        g,
        "input.tile",
        "CTA tile",
        str(m.cta_tile),
        f"{arg}s CTA_M, CTA_N, CTA_K ({where})",
        "input",
    )
    _add(g, "input.cluster", "cluster", str(m.cluster), f"{arg}s CGA_M, CGA_N, CGA_K", "input")
    _add(
        g,
        "input.types",
        "A x B -> D",
        types,
        f"{arg}s DataType, WeightType, OutputType, MXFPX",
        "input",
    )
    _add(g, "input.fusion", "epilogue fusion", fusion, f"{arg} FUSION", "input")
    _add(g, "input.swap_ab", "SwapAB", "on" if m.swap_ab else "off", f"{arg} SWAP_AB", "input")
    for node in ("input.tile", "input.cluster", "input.types", "input.fusion", "input.swap_ab"):
        g.add_edge("inputs", node)


def _epilogue(g: nx.DiGraph[str], res: Resources) -> None:
    e = res.epilogue
    if e is None:
        return
    _add(g, "epilogue.tile", "epilogue subtile", f"{e.m}x{e.n}", e.source, "quantity",
         ["input.tile", "input.cutlass"])  # fmt: skip
    _add(g, "epilogue.stages_c", "StagesC", e.stages_c, e.source, "quantity",
         ["input.tile", "epilogue.tile", "input.fusion", "input.types"])  # fmt: skip
    reuse = " (ReuseSmemC: D reuses C's buffers)" if e.reuse_smem_c else ""
    _add(g, "epilogue.stages_d", "StagesD" + reuse, e.stages_d, e.source, "quantity",
         ["input.tile", "epilogue.tile"])  # fmt: skip
    _add(g, "epilogue.swizzle", "C/D swizzle alignment", e.swizzle_align,
         "cutlass/detail/layout.hpp: alignment_for_swizzle of the C/D smem layout atom",
         "quantity", ["input.swap_ab", "input.types", "epilogue.tile"], "B")  # fmt: skip


def _builder(g: nx.DiGraph[str], res: Resources) -> None:
    sc = res.stage_count
    _add(g, "builder.capacity", "capacity", sc.capacity, sc.capacity_source or sc.formula,
         "quantity", unit="B")  # fmt: skip
    for t in sc.reductions:
        _add(g, f"builder.reduction.{t.name}", f"less {t.name}", t.bytes, t.source, "quantity",
             ["input.cutlass"], "B")  # fmt: skip
    epilogue = ["epilogue.tile", "epilogue.stages_c", "epilogue.stages_d", "epilogue.swizzle"]
    _add(g, "builder.carveout", "carveout = sizeof(CollectiveEpilogue::SharedStorage)",
         sc.carveout,
         f"{LAUNCHER}: StageCountAutoCarveout<sizeof(typename CollectiveEpilogue::SharedStorage)>",
         "quantity",
         _expand(g, [*epilogue, "input.tile", "input.types", "input.fusion", "input.swap_ab"]),
         "B")  # fmt: skip
    _add(g, "builder.budget", "budget", sc.budget, "capacity, less the reductions and the carveout",
         "quantity", _expand(g, ["builder.capacity", "builder.reduction.*", "builder.carveout"]),
         "B")  # fmt: skip
    term_inputs = {
        "A": ["input.tile", "input.types"],
        "B": ["input.tile", "input.types"],
        "SFA": ["input.tile", "input.types"],
        "SFB": ["input.tile", "input.types", "input.cutlass"],
        "pipeline": ["input.cutlass"],
    }
    for t in sc.per_stage:
        _add(g, f"builder.term.{t.name}", f"{t.name} per stage", t.bytes, t.source, "quantity",
             term_inputs.get(t.name, []), "B")  # fmt: skip
    _add(g, "builder.stage_bytes", "stage bytes", sc.stage_bytes, "the sum of the per-stage terms",
         "quantity", _expand(g, ["builder.term.*"]), "B")  # fmt: skip
    _add(g, "builder.stages", "stages", sc.stages, sc.formula, "quantity",
         ["builder.budget", "builder.stage_bytes"])  # fmt: skip


def _region_inputs(name: str) -> tuple[str, ...]:
    dotted = f".{name}."
    for member, inputs in REGION_INPUTS:
        if f".{member}." in dotted or name.endswith(member):
            return inputs
    return ()


def _layout(g: nx.DiGraph[str], res: Resources) -> None:
    lay = res.layout
    _add(g, "layout.align", "alignof(SharedStorage)", lay.align,
         "the largest alignas of its members (smem_A, smem_B: alignas(1024))", "quantity",
         unit="B")  # fmt: skip
    groups: dict[str, list[Region]] = {}
    for reg in lay.regions:
        groups.setdefault(reg.name.split(".")[0], []).append(reg)
    members: list[str] = []
    for top, regions in groups.items():
        children = []
        for reg in regions:
            child = f"region.{reg.name}"
            value = f"{reg.size:,} B at offset {reg.offset:,}, align {reg.align}"
            _add(
                g,
                child,
                reg.name,
                value,
                reg.source,
                "region",
                _expand(g, _region_inputs(reg.name)),
            )
            children.append(child)
        if len(regions) == 1 and regions[0].name == top:
            members.append(children[0])
            continue
        start = min(x.offset for x in regions)
        end = max(x.offset + x.size for x in regions)
        _add(g, f"layout.{top}", top, f"{end - start:,} B, bytes [{start:,}, {end:,})",
             f"{KERNEL}: GemmKernel::SharedStorage::{top}", "region", children)  # fmt: skip
        members.append(f"layout.{top}")
    _add(g, "layout.total", "sizeof(GemmKernel::SharedStorage)", lay.size,
         f"{KERNEL}: SharedStorageSize = sizeof(SharedStorage)", "quantity", members,
         "B")  # fmt: skip


def _metric_node(g: nx.DiGraph[str], metric: str, facts: Facts) -> str:
    """A node for an engine metric that no record holds as such (builder.undercount, ...)."""
    node = f"metric.{metric}"
    if node not in g:
        for dep in METRIC_INPUTS.get(metric, ()):
            if dep.startswith("metric."):
                _metric_node(g, dep.removeprefix("metric."), facts)
        value = facts[metric]
        unit = "B" if isinstance(value, int) and not isinstance(value, bool) else ""
        _add(g, node, metric, value, f"engine/facts.py: {METRICS[metric]}", "quantity",
             _expand(g, METRIC_INPUTS.get(metric, ())), unit)  # fmt: skip
    return node


def _findings(g: nx.DiGraph[str], r: InstantiationResult, res: Resources) -> list[str]:
    """A node per finding, derived from the metrics its rule's `when` and templates name."""
    rules = rules_by_id()
    facts = facts_for(r.instantiation, res)
    out = []
    for d in r.diagnostics:
        rule = rules[d.rule]
        named = metrics_named(rule.when) if rule.when else []
        for template in (rule.message, rule.why or "", rule.fix or ""):
            named += [m[1] for m in TEMPLATE_FIELD.finditer(template)]
        deps: list[str] = []
        for metric in dict.fromkeys(named):
            nodes = METRIC_NODES.get(metric) or (_metric_node(g, metric, facts),)
            deps += [n for n in nodes if n in g and n not in deps]
        node = f"finding.{d.rule}"
        _add(g, node, f"{rule.id} {rule.name} ({d.severity.value})", d.message,
             rule.doc.references[0], "finding", deps)  # fmt: skip
        out.append(node)
    return out


def _limits(g: nx.DiGraph[str], res: Resources) -> None:
    _add(g, "limit", "opt-in shared memory per block", res.arch.smem_optin,
         res.arch.sources.get("smem_optin", "model/data/arches.toml"), "limit", ["input.arch"],
         "B")  # fmt: skip
    _add(g, "dispatch", "the launcher dispatches this tile", res.dispatch_supported,
         "moe_gemm_template_dispatch_tma_ws.h: are_tile_shapes_supported_sm120 "
         "(model/data/flashinfer.toml)", "quantity", ["input.tile", "input.cluster"])  # fmt: skip
    variants = []
    for v in res.variants:
        fits = "fits" if v.fits else "does not fit"
        _add(g, f"variant.{v.label}", v.label, f"{v.smem_bytes:,} B, {v.stages} stages: {fits}",
             "model/resources.py: the same recipe with this one change", "quantity")  # fmt: skip
        variants.append(f"variant.{v.label}")
    _add(g, "variants", "neighbouring variants", len(variants), "model/resources.py: _variants",
         "quantity", variants)  # fmt: skip


def derivation(r: InstantiationResult) -> nx.DiGraph[str]:
    """The derivation graph of one result; its root is the node "verdict"."""
    g: nx.DiGraph[str] = nx.DiGraph()
    _inputs(g, r)
    res = r.resources
    if res is None:
        reason = r.not_modeled.reason if r.not_modeled else "?"
        _add(g, "not_modeled", "not modeled", reason, "cutlint.model", "finding",
             ["inputs"])  # fmt: skip
        _add(g, "verdict", "verdict", r.verdict.value, "api.evaluate_instantiation", "verdict",
             ["inputs", "not_modeled"])  # fmt: skip
        return g
    _add(g, "input.cutlass", "CUTLASS version", res.cutlass_version, res.cutlass_version_origin,
         "input")  # fmt: skip
    _add(g, "input.arch", "target arch", res.arch.name, res.arch.parts, "input")
    g.add_edge("inputs", "input.cutlass")
    g.add_edge("inputs", "input.arch")
    _epilogue(g, res)
    _builder(g, res)
    _layout(g, res)
    _limits(g, res)
    findings = _findings(g, r, res)
    # The inputs come first, so that the tree shows what was given before what was derived.
    basis = ["inputs", *(findings or ["layout.total", "limit", "builder.stages", "dispatch"])]
    _add(g, "verdict", "verdict", r.verdict.value,
         "api.evaluate_instantiation: the worst verdict its findings imply", "verdict",
         basis)  # fmt: skip
    # A quantity no finding names (the dispatch check of a tactic that fails for its size) is
    # not part of this verdict's derivation.
    g.remove_nodes_from(set(g) - set(nx.single_source_shortest_path_length(g, "verdict")))
    return g
