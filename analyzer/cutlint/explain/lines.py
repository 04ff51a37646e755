"""Judge the lines every framework prints, beyond FlashInfer's runner and autotuner lines: lines
that state bytes (class A from the line and the arch's limit, no cache needed), dispatch gaps,
hand-written callers' CUTLASS checks, static_asserts, CUDA errors by name or text.

Each line is judged on its own arch: the one it names (`arch 100`, `capability: 120`, `Sm86`),
else the one assumed (given, else the cache's, else the default), and the explanation says which
was assumed. Where the line does not decide, the verdict says so (not decidable, with why); it
is never a failure the line does not state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cutlint.explain.logmap import Mapped
from cutlint.explain.records import Agreement, FailureClass
from cutlint.families.base import moe_args
from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.logs.grammar import by_id, cuda_error_by_key
from cutlint.model.arch import arch_for, arches
from cutlint.producers.flashinfer import sm100_dispatch
from cutlint.records import ArchLimits, InstantiationResult

Judged = tuple[FailureClass | None, Agreement, str]


@dataclass(frozen=True)
class Assumed:
    """The arch a line that names none is judged on, and where it comes from."""

    name: str
    why: str
    """`--arch`, `the cache's arch`, or `the default`."""


def _arch(e: LogEvent, assumed: Assumed) -> tuple[ArchLimits | None, str]:
    """The arch the line names, else the assumed one with a sentence saying so."""
    sm = e.arch_sm or e.capability
    if sm is not None:
        try:
            return arch_for(sm), ""
        except KeyError:
            return None, f" The line names sm_{sm}, which cutlint's arch table does not hold."
    try:
        limits = arch_for(assumed.name)
    except KeyError:
        return None, f" The line names no arch; {assumed.name} ({assumed.why}) is not known."
    return limits, (
        f" The line names no arch: judged on {limits.name} ({assumed.why}); pass --arch for "
        "another."
    )


def _class(e: LogEvent) -> FailureClass | None:
    """The class the grammar's message gives the line, if any."""
    message = by_id().get(e.grammar or "")
    return FailureClass(message.failure_class) if message and message.failure_class else None


def verdicts(matches: tuple[InstantiationResult, ...]) -> str:
    """What `check` says of the instantiations, counted: `check of the cache: 12 fits, 4 fails
    initialize()` (the same records check reports, so the two cannot disagree)."""
    if not matches:
        return ""
    counts = Counter(r.verdict.value for r in matches)
    said = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return f" check of the cache judges the {len(matches)} instantiation(s): {said}."


def smem_stated(m: Mapped, assumed: Assumed) -> Judged:
    """Bytes (and often the limit) stated by the line: class A from them and the arch's
    opt-in limit, with no cache."""
    e = m.first
    said = e.smem_required
    if said is None:
        if e.arch_sm is not None:  # xformers names the arch and no bytes
            return (
                FailureClass.A,
                Agreement.STATED,
                f"xformers' own check says the kernel needs more shared memory than sm_{e.arch_sm} "
                "allows per block (its CUTLASS backward kernel for head dim > 64 in float32 is "
                "sized for sm_80's 166,912 B), so it refuses the op: class A, decided by the "
                "line.",
            )
        return (
            FailureClass.A,
            Agreement.NOT_DECIDABLE,
            "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) was refused, which is how a "
            "kernel asking for more shared memory than the device allows fails (class A), but "
            "no `Setting smem size to N` line above says how many bytes: not decidable from "
            "this line alone.",
        )
    where = _where(m)
    if e.smem_available is not None:
        limit, named = e.smem_available, "the limit the line states"
        note = ""
    else:
        arch, note = _arch(e, assumed)
        if arch is None:
            return None, Agreement.NOT_DECIDABLE, f"{said:,} B asked for;{note}"
        limit, named = arch.smem_optin, f"{arch.name}'s opt-in limit per block"
    largest = max(a.smem_optin for a in arches().values())
    if said > limit:
        anywhere = (
            f" (more than any arch allows: the largest opt-in limit is {largest:,} B)"
            if said > largest and e.smem_available is None
            else ""
        )
        return (
            FailureClass.A,
            Agreement.STATED,
            f"{said:,} B of shared memory asked for, {limit:,} B allowed ({named}): "
            f"{said - limit:,} B over{anywhere}, so cudaFuncSetAttribute refuses it and the "
            f"kernel never launches: class A, decided by the line.{note}{where}",
        )
    return (
        None,
        Agreement.NOT_DECIDABLE,
        f"{said:,} B fits {limit:,} B ({named}), so the refusal is not this kernel's size on "
        "that arch: a sticky error from an earlier kernel (class G), or a device other than "
        f"the one assumed.{note}{where}",
    )


def _where(m: Mapped) -> str:
    if not m.matches:
        return ""
    return (
        f" The cache holds {len(m.matches)} instantiation(s) whose SharedStorage is exactly "
        f"these bytes (listed under `maps to`).{verdicts(m.matches)}"
    )


def smem_matches(e: LogEvent, all_results: list[InstantiationResult]) -> list[InstantiationResult]:
    """The cache's instantiations that need exactly the bytes the line states."""
    if e.smem_required is None:
        return []
    return [r for r in all_results if r.resources and r.resources.layout.size == e.smem_required]


def dispatch_gap(m: Mapped) -> Judged:
    e = m.first
    cls = _class(e)
    if e.grammar == "vllm.no-compiled-scaled-mm":
        return (
            FailureClass.B,
            Agreement.STATED,
            f"vLLM's {e.detail} entry point has no kernel compiled for capability "
            f"{e.capability}: its version_num chain (scaled_mm_entry.cu) reaches "
            "TORCH_CHECK_NOT_IMPLEMENTED, so nothing runs, whatever the kernels' resources: a "
            "dispatch gap (class B), decided by the line. A build for this arch (its "
            "-gencode and the #if ENABLE_SCALED_MM_SM* guards) or a kernel written for it is "
            "the fix; mapping the caller to the kernels it can launch reads its translation "
            "unit, which this reading does not do yet.",
        )
    if cls is FailureClass.B:
        return (
            FailureClass.B,
            Agreement.STATED,
            f"{e.detail or 'the dispatch'}: no kernel compiled for this device's arch and these "
            "inputs, so the op cannot run: a dispatch gap (class B), decided by the line.",
        )
    return (
        None,
        Agreement.NOT_DECIDABLE,
        "No backend accepted the inputs; the lines under this one give each backend's reason "
        "(read as failures of their own where they state one). Which inputs were given is the "
        "caller's, not in the source.",
    )


def caller_failed(m: Mapped) -> Judged:
    """A hand-written caller's CUTLASS check (vLLM, SGLang, PyTorch, FlashInfer's grouped SM120
    GEMMs): the caller's file and line, not the kernel's."""
    e = m.first
    caller = (
        f"{e.site.name}:{e.site.line}" if e.site else (e.frame or "a caller the log does not name")
    )
    pending = (
        f" The caller is {caller}; which kernels it can launch, with their dispatch conditions, "
        "is read from its translation unit (the event carries the caller's file, line and "
        "capability for that mapping, which this reading does not make yet)."
    )
    status, step = e.status, (e.step or "").lower()
    if status not in (None, "Error Internal") or step.startswith("implement"):
        return (
            FailureClass.D,
            Agreement.NOT_DECIDABLE,
            f"The caller's CUTLASS {step or 'call'} returned {status or 'a rejection'}: "
            "can_implement() rejects the problem (shape, alignment, workspace), which depends "
            f"on the arguments, not the instantiation.{pending}",
        )
    if step in ("run", "execute", "execution"):
        return (
            FailureClass.G,
            Agreement.NOT_DECIDABLE,
            "The caller's kernel initialized, then its run failed: a fault during the run or a "
            f"sticky error from an earlier kernel; not decidable from the source.{pending}",
        )
    return (
        FailureClass.A,
        Agreement.NOT_MODELED,
        f"The caller's CUTLASS initialize() failed ({status or 'no status printed'}): "
        "GemmUniversalAdapter::initialize() returns Error Internal when "
        "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) refuses the kernel's shared storage, "
        "so most likely class A; not decided until the kernel is known." + pending,
    )


def host_validation(m: Mapped) -> Judged:
    return (
        FailureClass.D,
        Agreement.NOT_DECIDABLE,
        f"The launcher checked the tensors it was handed before any kernel ran ({m.first.detail}): "
        "their shapes against the quantization mode are the caller's (the model's weights and "
        "block scales), which no generated file holds; not decidable from the cache. The "
        "message says which shape the launcher expects.",
    )


def static_assert(m: Mapped) -> Judged:
    e = m.first
    where = f" in {e.site.name}:{e.site.line}" if e.site else ""
    text = f" ({e.detail!r})" if e.detail else ""
    return (
        FailureClass.C,
        Agreement.STATED,
        f"A static_assert{where} refused the instantiation at compile time{text}: the build "
        "stops, no kernel exists for these template arguments (class C), decided by the line.",
    )


def arch_unsupported(m: Mapped) -> Judged:
    e = m.first
    which = f"sm_{e.capability}" if e.capability else "this device's arch"
    return (
        FailureClass.E,
        Agreement.STATED,
        f"The op or build admits other arches only ({e.detail or 'its arch list'}), not {which}: "
        "code for another arch (class E), decided by the line; rebuild or pick a kernel for "
        "this arch.",
    )


def cuda_error(m: Mapped) -> Judged:
    e = m.first
    error = cuda_error_by_key().get(e.detail or "")
    if error is None:
        return None, Agreement.NOT_DECIDABLE, "A CUDA error cutlint's table does not hold."
    cls = FailureClass(error.failure_class) if error.failure_class else None
    return (
        cls,
        Agreement.NOT_DECIDABLE,
        f"CUDA error {error.number} ({error.name}, `{error.text}`): {error.means}. The line "
        "alone does not say which kernel or call, so it is not decidable from the source.",
    )


def library_error(m: Mapped) -> Judged:
    return (
        None,
        Agreement.NOT_DECIDABLE,
        f"A vendor library refused the call ({m.first.detail}): cuBLAS or cuDNN chose no "
        "algorithm for these arguments on this device. No CUTLASS instantiation is involved; "
        "cutlint does not judge vendor libraries.",
    )


def unsupported_tile_config(m: Mapped, release: str | None, assumed: Assumed) -> Judged:
    """`Unsupported tile shape config 256256128`: the tile switch's default case, on the arch
    assumed (the line names none)."""
    e = m.first
    arch, note = _arch(e, assumed)
    if e.tile is None:
        return (
            FailureClass.B,
            Agreement.NOT_DECIDABLE,
            f"The tile-config switch has no case for config {e.detail}, whose digits do not "
            f"split into one CtaShape: class B, the tile not decided.{note}",
        )
    shape = f"CtaShape{e.tile.m}x{e.tile.n}x{e.tile.k}B"
    rules = sm100_dispatch.sm100_dispatch_rules().get(release or "")
    if arch is None or arch.sm not in (100, 103, 110) or rules is None:
        return (
            FailureClass.B,
            Agreement.NOT_MODELED,
            f"The tile-config switch has no case for {shape} (config {e.detail}): class B. "
            "cutlint reads the SM100/SM103/SM110 switches by config; for this arch or release "
            f"it holds no list to check it against.{note}",
        )
    tile = (e.tile.m, e.tile.n, e.tile.k)
    listed = rules.sm103_tiles_k_bytes if arch.sm == 103 else rules.sm100_tiles_k_bytes
    source = sm100_dispatch.source(release, arch.sm)
    if tile in listed:
        return (
            FailureClass.B,
            Agreement.NOT_DECIDABLE,
            f"{shape} is a case of the {arch.name} switch in FlashInfer {release} ({source}), so "
            "this line came from another arch's switch (the line does not name it): class B "
            f"there, not decidable here.{note}",
        )
    return (
        FailureClass.B,
        Agreement.EXPLAINED,
        f"{shape} (config {e.detail}) is not a case of FlashInfer {release}'s tile-config "
        f"switch for {arch.name} ({source}): the default case throws before any kernel runs, "
        f"a config the heuristic offers but the dispatch cannot take (class B).{note}",
    )


def unsupported_tile_sm100(m: Mapped, release: str | None) -> Judged:
    """`Unsupported tile (M, N, K) and cluster (a, b, c) ... for arch 100|103|110`, by the
    SM100 dispatch rules (are_tile_shapes_supported_sm100), never the SM120 list."""
    e = m.first
    assert e.tile is not None and e.cluster is not None and e.arch_sm is not None
    table = sm100_dispatch.sm100_dispatch_rules()
    rules = table.get(release or "")
    said = f"tile {e.tile} with cluster {e.cluster} on arch {e.arch_sm}"
    c = e.cluster
    limits = {r.cluster_m_max for r in table.values()}
    if rules is None and len(limits) == 1 and (c.m > min(limits) or c.n != 1 or c.k != 1):
        # the cluster rule is the same in every release cutlint holds: no release needed
        return (
            FailureClass.B,
            Agreement.EXPLAINED,
            f"are_tile_shapes_supported_sm100 takes clusters 1x1x1 and 2x1x1 only (size<0> <= "
            f"{min(limits)}, size<1> == size<2> == 1) in every FlashInfer release cutlint holds "
            f"({', '.join(sorted(table))}): {said} has no kernel whatever the element types, so "
            f"the config throws before any kernel runs (class B).{verdicts(m.matches)}",
        )
    if rules is None:
        return (
            FailureClass.B,
            Agreement.NOT_MODELED,
            f"The launcher refused {said}: class B, stated by the line. cutlint holds no SM100 "
            f"dispatch rules for FlashInfer {release or '(release unknown)'}.{verdicts(m.matches)}",
        )
    source = sm100_dispatch.source(release, e.arch_sm)
    if c.m > rules.cluster_m_max or c.n != 1 or c.k != 1:
        return (
            FailureClass.B,
            Agreement.EXPLAINED,
            f"FlashInfer {release}'s are_tile_shapes_supported_sm100 takes clusters 1x1x1 and "
            f"2x1x1 only (size<0> <= {rules.cluster_m_max}, size<1> == size<2> == 1; {source}): "
            f"{said} has no kernel whatever the element types, so the config throws before "
            f"any kernel runs (class B).{verdicts(m.matches)}",
        )
    typed = [
        (r, sm100_dispatch.tile_shapes_supported(rules, a.model_copy(update={"cluster": c})))
        for r in m.matches
        if (a := moe_args(r)) is not None
    ]
    if not typed:
        return (
            FailureClass.B,
            Agreement.NOT_DECIDABLE,
            f"The launcher refused {said}: class B, stated by the line. Whether the SM100 "
            "dispatch takes this tile depends on the element types (FP4 and MXFP8 have tile "
            "lists of their own), which the line does not print and no instantiation of the "
            "cache gives: give --cache with the module's files.",
        )
    refused = [why for _, (ok, why) in typed if not ok]
    if len(refused) == len(typed):
        return (
            FailureClass.B,
            Agreement.EXPLAINED,
            f"FlashInfer {release}'s SM100 dispatch ({source}) refuses {said} for the cache's "
            f"instantiations of that tile: {refused[0]} (class B).{verdicts(m.matches)}",
        )
    unlisted = [
        why
        for r in m.matches
        if (a := moe_args(r)) is not None
        for ok, why in [sm100_dispatch.tile_config_listed(rules, a)]
        if not ok
    ]
    other = (
        f" The tile is not one of the dispatch's tile configs, though ({unlisted[0]}): such a "
        "config reaches the switch's default case (`Unsupported tile shape config`), not this "
        "message, which is why check finds these never dispatched while this line is not what "
        "that launcher prints for them."
        if unlisted
        else ""
    )
    return (
        FailureClass.B,
        Agreement.CONTRADICTS,
        f"The launcher refused {said}, but FlashInfer {release}'s SM100 dispatch rules ({source}) "
        f"accept it for {len(typed) - len(refused)} of the cache's {len(typed)} instantiations "
        f"of that tile.{other}{verdicts(m.matches)}",
    )


JUDGES = {
    LogEventKind.SMEM_STATED,
    LogEventKind.DISPATCH_GAP,
    LogEventKind.CALLER_FAILED,
    LogEventKind.HOST_VALIDATION,
    LogEventKind.STATIC_ASSERT,
    LogEventKind.ARCH_UNSUPPORTED,
    LogEventKind.CUDA_ERROR,
    LogEventKind.LIBRARY_ERROR,
    LogEventKind.UNSUPPORTED_TILE_CONFIG,
}
"""The kinds this module judges (classify.judge hands them here)."""


def judge_line(m: Mapped, release: str | None, assumed: Assumed) -> Judged:
    kind = m.first.kind
    if kind is LogEventKind.SMEM_STATED:
        return smem_stated(m, assumed)
    if kind is LogEventKind.DISPATCH_GAP:
        return dispatch_gap(m)
    if kind is LogEventKind.CALLER_FAILED:
        return caller_failed(m)
    if kind is LogEventKind.HOST_VALIDATION:
        return host_validation(m)
    if kind is LogEventKind.STATIC_ASSERT:
        return static_assert(m)
    if kind is LogEventKind.ARCH_UNSUPPORTED:
        return arch_unsupported(m)
    if kind is LogEventKind.CUDA_ERROR:
        return cuda_error(m)
    if kind is LogEventKind.LIBRARY_ERROR:
        return library_error(m)
    return unsupported_tile_config(m, release, assumed)
