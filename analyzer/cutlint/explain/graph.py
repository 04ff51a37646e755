"""How a verdict was derived, as a graph: from the instantiation's arguments to every byte.

Nodes are the inputs (tile, types, fusion, SwapAB, CUTLASS version, arch), the intermediate
quantities of the builder's arithmetic (carveout, per-stage terms, stage bytes, budget, stages),
the epilogue's choices (subtile, StagesC, StagesD), each region of the kernel's SharedStorage,
the total, the limit, the rules' findings and the verdict. An edge u -> v says "u is derived from
v". Each node carries `label`, `value`, `unit` and `source` (the CUTLASS header and symbol it
mirrors, or where an input came from).

Every value is read off the model's records (Resources: StageCount terms, SmemLayout regions,
ArchLimits sources, EpilogueTile) or the engine's facts over them; nothing is computed again.
Every edge is read off them too: each region, stage term and epilogue choice names the
quantities it is derived from (`derived_from`), the family names its inputs (`Family.inputs`) and
which input each of its metrics reads (`metric_inputs`), and the engine says which graph nodes
hold a core metric (engine/facts.py). This module only draws.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from cutlint.engine.evaluate import TEMPLATE_FIELD, metrics_named
from cutlint.engine.facts import CORE_METRIC_INPUTS, CORE_METRIC_NODES, CORE_METRICS
from cutlint.engine.judge import facts_for
from cutlint.engine.loader import rules_by_id
from cutlint.families.base import Facts
from cutlint.families.registry import family_of
from cutlint.records import InstantiationResult, Region, Resources

KERNEL_SHARED_STORAGE = "GemmKernel::SharedStorage"


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
    inst = r.instantiation
    where = f"{inst.span.path}:{inst.span.line}" if inst.span.line else "the tactic as given"
    _add(g, "inputs", f"inputs ({inst.name})", where, "the instantiation's arguments, the "
         "CUTLASS version and the target arch", "input")  # fmt: skip
    if r.recipe is None:
        return
    for field in family_of(r.recipe).inputs(r.recipe):
        _add(g, field.node, field.label, field.value, f"{field.source} ({where})", "input")
        g.add_edge("inputs", field.node)


def _epilogue(g: nx.DiGraph[str], res: Resources) -> None:
    e = res.epilogue
    if e is None:
        return
    deps = e.derived_from
    reuse = " (ReuseSmemC: D reuses C's buffers)" if e.reuse_smem_c else ""
    _add(g, "epilogue.tile", "epilogue subtile", f"{e.m}x{e.n}", e.source, "quantity",
         deps.get("tile", ()))  # fmt: skip
    _add(g, "epilogue.stages_c", "StagesC", e.stages_c, e.source, "quantity",
         deps.get("stages_c", ()))  # fmt: skip
    _add(g, "epilogue.stages_d", "StagesD" + reuse, e.stages_d, e.source, "quantity",
         deps.get("stages_d", ()))  # fmt: skip
    c_align = e.swizzle_align if e.swizzle_align_c is None else e.swizzle_align_c
    swizzle: object = (
        e.swizzle_align if c_align == e.swizzle_align else f"C {c_align}, D {e.swizzle_align}"
    )
    _add(g, "epilogue.swizzle", "C/D swizzle alignment", swizzle,
         "cutlass/detail/layout.hpp: alignment_for_swizzle of the C/D smem layout atom",
         "quantity", deps.get("swizzle", ()), "B")  # fmt: skip


def _builder(g: nx.DiGraph[str], res: Resources) -> None:
    sc = res.stage_count
    _add(g, "builder.capacity", "capacity", sc.capacity, sc.capacity_source or sc.formula,
         "quantity", unit="B")  # fmt: skip
    for t in sc.reductions:
        _add(g, f"builder.reduction.{t.name}", f"less {t.name}", t.bytes, t.source, "quantity",
             _expand(g, t.derived_from), "B")  # fmt: skip
    _add(g, "builder.carveout", "carveout = sizeof(CollectiveEpilogue::SharedStorage)",
         sc.carveout, "StageCountAutoCarveout<sizeof(typename CollectiveEpilogue::SharedStorage)>",
         "quantity", _expand(g, sc.carveout_derived_from), "B")  # fmt: skip
    _add(g, "builder.stage_budget", "stage budget", sc.stage_budget, "capacity, less the reductions and the carveout",
         "quantity", _expand(g, ["builder.capacity", "builder.reduction.*", "builder.carveout"]),
         "B")  # fmt: skip
    for t in sc.per_stage:
        _add(g, f"builder.term.{t.name}", f"{t.name} per stage", t.bytes, t.source, "quantity",
             _expand(g, t.derived_from), "B")  # fmt: skip
    _add(g, "builder.stage_bytes", "stage bytes", sc.stage_bytes, "the sum of the per-stage terms",
         "quantity", _expand(g, ["builder.term.*"]), "B")  # fmt: skip
    _add(g, "builder.stages", "stages", sc.stages, sc.formula, "quantity",
         ["builder.stage_budget", "builder.stage_bytes"])  # fmt: skip


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
                _expand(g, reg.derived_from),
            )
            children.append(child)
        if len(regions) == 1 and regions[0].name == top:
            members.append(children[0])
            continue
        start = min(x.offset for x in regions)
        end = max(x.offset + x.size for x in regions)
        _add(g, f"layout.{top}", top, f"{end - start:,} B, bytes [{start:,}, {end:,})",
             f"{KERNEL_SHARED_STORAGE}::{top}", "region", children)  # fmt: skip
        members.append(f"layout.{top}")
    _add(g, "layout.total", "sizeof(GemmKernel::SharedStorage)", lay.size,
         "SharedStorageSize = sizeof(SharedStorage)", "quantity", members,
         "B")  # fmt: skip


def _metric_node(g: nx.DiGraph[str], metric: str, facts: Facts) -> str:
    """A node for an engine metric that no record holds as such (builder.undercount, ...)."""
    node = f"metric.{metric}"
    if node not in g:
        for dep in CORE_METRIC_INPUTS.get(metric, ()):
            if dep.startswith("metric."):
                _metric_node(g, dep.removeprefix("metric."), facts)
        value = facts[metric]
        unit = "B" if isinstance(value, int) and not isinstance(value, bool) else ""
        _add(g, node, metric, value, f"engine/facts.py: {CORE_METRICS.get(metric, metric)}", "quantity",
             _expand(g, CORE_METRIC_INPUTS.get(metric, ())), unit)  # fmt: skip
    return node


def _findings(g: nx.DiGraph[str], r: InstantiationResult, res: Resources) -> list[str]:
    """A node per finding, derived from the metrics its rule's `when` and templates name."""
    rules = rules_by_id()
    assert r.recipe is not None
    family = family_of(r.recipe)
    facts = facts_for(family, r.recipe, res)
    nodes_of = {**CORE_METRIC_NODES, **family.metric_inputs}
    out = []
    for d in r.diagnostics:
        rule = rules[d.rule]
        named = metrics_named(rule.when) if rule.when else []
        for template in (rule.message, rule.why or "", rule.fix or ""):
            named += [m[1] for m in TEMPLATE_FIELD.finditer(template)]
        deps: list[str] = []
        for metric in dict.fromkeys(named):
            nodes = nodes_of.get(metric) or (_metric_node(g, metric, facts),)
            deps += [n for n in nodes if n in g and n not in deps]
        node = f"finding.{d.rule}"
        _add(g, node, f"{rule.id} {rule.name} ({d.severity.value})", d.message,
             rule.doc.references[0], "finding", deps)  # fmt: skip
        out.append(node)
    return out


def _limits(g: nx.DiGraph[str], res: Resources) -> None:
    _add(g, "limit", "opt-in shared memory per block", res.arch.smem_optin,
         res.arch.sources.get("smem_optin", "CUDA C++ Programming Guide"), "limit", ["input.arch"],
         "B")  # fmt: skip
    dispatch = "unknown" if res.dispatch_supported is None else res.dispatch_supported
    _add(g, "dispatch", "the launcher dispatches this tile", dispatch,
         res.dispatch_source or "the launcher has no dispatch list", "quantity",
         _expand(g, ["input.tile", "input.cluster"]))  # fmt: skip
    variants = []
    for v in res.variants:
        fits = "fits" if v.fits else "does not fit"
        _add(g, f"variant.{v.label}", v.label, f"{v.smem_bytes:,} B, {v.stages} stages: {fits}",
             "families/registry.py: the claiming family's model of the same recipe with this one change", "quantity")  # fmt: skip
        variants.append(f"variant.{v.label}")
    _add(g, "variants", "neighbouring variants", len(variants),
         "families/registry.py: the variants the claiming family tries (what would fit instead)", "quantity",
         variants)  # fmt: skip


def _occupancy(g: nx.DiGraph[str], res: Resources) -> None:
    """Registers per thread and blocks per SM, each with its derivation (model/occupancy.py):
    the cap the launch bounds put on ptxas, the measured count where a kernel was matched
    (cutlint.binaries.measured), the block's allocation, and the limit that decides."""
    use, occ = res.register_use, res.occupancy
    if occ is None:
        return
    regs = []
    if use is not None:
        _add(g, "registers.cap", "per-thread register cap", use.cap,
             f"{use.cap_derivation}; {use.source}", "quantity", ["input.arch"])  # fmt: skip
        if use.per_thread is None:
            value: object = f"not decided (ptxas's, at most {use.cap})"
        elif use.origin == "model":
            value = use.per_thread
        else:
            value = f"{use.per_thread} (measured: {use.origin})"
        how = use.measured or (
            "the cap: the kernel reconfigures its warp groups (setmaxnreg) and is compiled to it"
            if use.per_thread is not None
            else "ptxas allocates at most the cap; the source does not say how many"
        )
        _add(g, "registers", "registers per thread", value, how, "quantity",
             ["registers.cap"])  # fmt: skip
        regs = ["registers"]
        if use.spill_stores is not None:
            _add(g, "registers.spills", "spill stores / loads",
                 f"{use.spill_stores:,} B / {use.spill_loads or 0:,} B, "
                 f"{use.stack_frame or 0:,} B stack frame",
                 "ptxas -v: bytes spill stores, bytes spill loads", "quantity",
                 ["registers"])  # fmt: skip
            regs.append("registers.spills")
        if use.block is not None:
            _add(g, "registers.block", "registers per block", f"{use.block:,}",
                 f"{use.per_thread} x 32 threads, rounded up to {res.arch.register_allocation_unit} "
                 f"a warp, x {-(-res.max_threads_per_block // res.arch.warp_size)} warps; "
                 f"{res.arch.name} allows {res.arch.registers_per_block:,} per block",
                 "quantity", ["registers"])  # fmt: skip
            regs = ["registers.block", *regs[1:]]
    limited = ", ".join(occ.limited_by)
    _add(g, "occupancy", "active blocks per SM", f"{occ.derivation}; limited by {limited}",
         "CUDA include/cuda_occupancy.h: cudaOccMaxActiveBlocksPerMultiprocessor", "quantity",
         [*regs, "layout.total", "input.arch"])  # fmt: skip


def _tma(g: nx.DiGraph[str], res: Resources) -> list[str]:
    """The mainloop's tensor maps (cutlint.cutlass.tma): element, the alignment the kernel
    promises against TMA's, the swizzle and the box's inner extent; and where they live."""
    plan = res.tma
    if plan is None:
        return []
    names = []
    for d in plan.descriptors:
        swizzle = (
            "not modeled"
            if d.swizzle_bytes is None
            else (
                f"{d.swizzle_bytes} B swizzle, inner box {d.inner_box} elements "
                f"({(d.inner_box or 0) * d.element_bits // 8} B)"
                if d.swizzle_bytes
                else f"interleaved, inner box {d.inner_box} elements"
            )
        )
        promised = "?" if d.alignment_bytes is None else f"{d.alignment_bytes} B"
        value = (
            f"{d.element} ({d.element_bits} bits); global strides aligned to {promised} "
            f"(TMA needs {d.required_bytes} B); {swizzle}"
        )
        _add(g, f"tma.{d.operand}", f"TMA descriptor of {d.operand}", value, d.source, "quantity",
             ["input.arch"])  # fmt: skip
        names.append(f"tma.{d.operand}")
    _add(g, "tma", "TMA descriptors", f"{plan.placement}; {plan.derivation}",
         "cute/atom/copy_traits_sm90_tma.hpp: make_tma_copy; CUDA C++ Programming Guide: "
         "Function Parameters", "quantity", names)  # fmt: skip
    return ["tma"]


def derivation(r: InstantiationResult) -> nx.DiGraph[str]:
    """The derivation graph of one result; its root is the node "verdict"."""
    g: nx.DiGraph[str] = nx.DiGraph()
    _inputs(g, r)
    res = r.resources
    if res is None:
        reason = r.not_modeled.reason if r.not_modeled else "?"
        _add(g, "not_modeled", "not modeled", reason, "CUT010: outside what cutlint models",
             "finding", ["inputs"])  # fmt: skip
        _add(g, "verdict", "verdict", r.verdict.value, "engine/judge.py: no model, so no verdict is guessed",
             "verdict", ["inputs", "not_modeled"])  # fmt: skip
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
    _occupancy(g, res)
    tma = _tma(g, res)
    findings = _findings(g, r, res)
    # The inputs come first, so that the tree shows what was given before what was derived.
    basis = ["inputs", *(findings or ["layout.total", "limit", "builder.stages", "dispatch"])]
    basis += ["occupancy"] if "occupancy" in g else []
    basis += tma
    _add(g, "verdict", "verdict", r.verdict.value,
         "engine/judge.py: the worst outcome its findings imply", "verdict",
         basis)  # fmt: skip
    # A quantity no finding names (the dispatch check of a tactic that fails for its size) is
    # not part of this verdict's derivation.
    g.remove_nodes_from(set(g) - set(nx.single_source_shortest_path_length(g, "verdict")))
    return g
