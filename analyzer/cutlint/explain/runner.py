"""Zero-occupancy failures of MoeGemmRunner's CUTLASS 2.x kernels, read against the release.

"GPU lacks the shared memory resources to run GroupedGEMM kernel" (genericMoeGemmKernelLauncher
::call) and "... to run fused_moe kernel" (the SM80 fused-MoE launcher) name no file: the kernel
is one of the runner's own tactics (runners/sm8x_grouped), which the autotuner's tactic id
names in the release's order. So the id is read as a config of each runner kind the cache's arch
uses these kernels for, and the model's verdict for that config is the explanation.
"""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.explain.cache import CacheIndex
from cutlint.explain.logmap import Mapped
from cutlint.explain.records import Agreement, FailureClass
from cutlint.families.base import runner_kernel
from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.records import ArchLimits, InstantiationResult
from cutlint.runners.sm8x_grouped import report
from cutlint.runners.sm8x_grouped.tactics import RunnerKind, table

Judged = tuple[FailureClass | None, Agreement, str, str | None, tuple[InstantiationResult, ...]]
"""(class, agreement, explanation, tactic reading, the cache's instantiations it maps to)."""

_ELEMENT = {RunnerKind.F16: "cutlass::half_t", RunnerKind.BF16: "cutlass::bfloat16_t"}


def _fused(e: LogEvent) -> bool:
    return e.kind is LogEventKind.ZERO_OCCUPANCY_FUSED


def _gemm(e: LogEvent) -> int | None:
    ops = table()["profiles"]["custom_ops"]
    return ops.index(e.custom_op) + 1 if e.custom_op in ops else None


def _candidates(e: LogEvent, version: str, arch: ArchLimits) -> list[report.TacticReport]:
    """The configs the event can be: its id in each runner kind (or, without an id, every id),
    on the GEMM its op names, and for the fused kernel only 16-bit GEMM 1."""
    if e.tactic is not None:
        found = report.by_id(version, arch, e.tactic)
    else:
        found = [r for k in report.kinds_on(arch.sm) for r in report.reports(version, arch, k)]
    gemm = _gemm(e)
    return [
        r
        for r in found
        if (gemm is None or r.tactic.gemm == gemm) and (not _fused(e) or r.fused is not None)
    ]


def _fails(r: report.TacticReport, fused: bool) -> bool:
    v = r.fused if fused else r.unfused
    return v is not None and not v.fits


def _name(r: report.TacticReport) -> str:
    return f"{r.tactic.describe()} for the {report.KIND_LABELS[r.kind]} runner"


def _grouped(found: Sequence[report.TacticReport]) -> list[list[report.TacticReport]]:
    """Reports of the same config and verdicts (f16 and bf16 share both) together."""
    groups: dict[tuple[object, ...], list[report.TacticReport]] = {}
    for r in found:
        key = (r.tactic.describe(), r.unfused.smem, r.fused.smem if r.fused else None)
        groups.setdefault(key, []).append(r)
    return list(groups.values())


def _names(rs: Sequence[report.TacticReport]) -> str:
    kinds = " and ".join(report.KIND_LABELS[r.kind] for r in rs)
    return f"{rs[0].tactic.describe()} for the {kinds} runner{'s' if len(rs) > 1 else ''}"


def reading(e: LogEvent, version: str, arch: ArchLimits) -> str | None:
    """What the event's tactic id names in the release's order, for each runner kind."""
    if e.tactic is None:
        return None
    found = _candidates(e, version, arch)
    if not found:
        return None
    names = "; ".join(_names(g) for g in _grouped(found))
    return f"tactic {e.tactic} in FlashInfer {version}'s order on {arch.name}: {names}"


def _prefilter(version: str, r: report.TacticReport, fused: bool) -> str:
    if r.prefilter is None:
        return (
            f"FlashInfer {version} has no occupancy pre-filter, so every failing tactic is "
            "profiled (flashinfer#3031); `cutlint pregen flashinfer --emit-blocklist` lists it"
        )
    if r.kind is RunnerKind.FP8:
        return (
            f"FlashInfer {version}'s occupancy pre-filter keeps it: its query throws on the FP8 "
            "alpha_scales check for every id, and the all-zero fallback keeps them all"
        )
    if fused:
        return (
            f"FlashInfer {version}'s pre-filter asks about the unfused kernel "
            f"({r.unfused.smem:,} B, which fits) and keeps it"
        )
    return (
        f"FlashInfer {version}'s pre-filter drops it unless every id of its GEMM reports 0: a log "
        "that shows it profiled may not be this release's"
    )


def _why(rs: Sequence[report.TacticReport], version: str, fused: bool) -> str:
    r = rs[0]
    v = r.fused if fused and r.fused else r.unfused
    if fused:
        kernel = (
            "GEMM 1 with a gated activation (Swiglu, Geglu) runs Fused_Moe_Kernel_sm80, whose "
            f"SharedStorage is {v.smem:,} B against {v.limit:,} B on {v.arch}: "
            "fused_gemm_maximum_active_blocks() gets no cudaFuncSetAttribute and returns -1"
        )
    else:
        kernel = (
            f"MoeFCGemm's SharedStorage (the mainloop's A/B stages) is {v.smem:,} B against "
            f"{v.limit:,} B on {v.arch}: GemmGrouped::maximum_active_blocks() gets no "
            "cudaFuncSetAttribute and returns -1"
        )
    return f"{_names(rs)}: {kernel}, and the runner throws. {_prefilter(version, r, fused)}."


def _fused_instantiations(
    found: Sequence[report.TacticReport], cache: CacheIndex
) -> tuple[InstantiationResult, ...]:
    """The cache's SM80 fused-MoE instantiations of the configs (the kernel that failed)."""
    out: list[InstantiationResult] = []
    for r in cache.all_instantiations():
        k = runner_kernel(r)
        if k is None:
            continue
        for t in found:
            c = t.tactic.config
            if (
                _ELEMENT.get(t.kind) == k.element
                and k.tile == c.tile.threadblock
                and k.stages == c.stages
            ):
                out.append(r)
                break
    return tuple(out)


def judge_runner(
    m: Mapped, cache: CacheIndex, version: str | None, target: ArchLimits | None = None
) -> Judged:
    """`target`: the arch when the cache gives none (explain --log without --cache)."""
    e = m.first
    fused = _fused(e)
    arch = cache.arch() or target
    what = "fused_moe" if fused else "GroupedGEMM"
    if version is None or not report.known(version) or arch is None:
        why = (
            "no FlashInfer version or target arch can be read off the cache"
            if version is None or arch is None
            else f"FlashInfer {version} is not in the grouped runner's table"
        )
        return (
            FailureClass.F,
            Agreement.NOT_MODELED,
            f"The CUTLASS 2.x {what} kernel has zero occupancy: its shared storage does not fit "
            f"one block (class F, decidable from the runner's tactic lists), but {why}.",
            None,
            (),
        )
    if not report.kinds_on(arch.sm):
        return (
            FailureClass.F,
            Agreement.NOT_MODELED,
            f"The CUTLASS 2.x {what} kernel has zero occupancy; cutlint models MoeGemmRunner's "
            f"grouped tactics on sm 80-89 and 120/121, not on {arch.name}.",
            None,
            (),
        )
    found = _candidates(e, version, arch)
    reading_text = reading(e, version, arch)
    if not found:
        return (
            FailureClass.F,
            Agreement.UNMAPPED,
            f"The CUTLASS 2.x {what} kernel has zero occupancy, but tactic {e.tactic} is in no "
            f"list of FlashInfer {version}'s grouped runners on {arch.name}"
            + (f" for {e.custom_op}" if e.custom_op else "")
            + ": the log may come from another release or arch.",
            None,
            (),
        )
    failing = [r for r in found if _fails(r, fused)]
    matches = _fused_instantiations(failing or found, cache) if fused else ()
    if not failing:
        return (
            FailureClass.F,
            Agreement.CONTRADICTS,
            f"The runner says its {what} kernel has zero occupancy, but cutlint computes that "
            + "; ".join(
                f"{_names(g)} needs {(g[0].fused if fused and g[0].fused else g[0].unfused).smem:,}"
                f" B, which fits {arch.name}'s {arch.smem_optin:,} B"
                for g in _grouped(found)
            )
            + ". The model or the tactic order is wrong here, or the log is another release's.",
            reading_text,
            matches,
        )
    if e.tactic is None:
        ids = ", ".join(f"{r.tactic.tactic} ({report.KIND_LABELS[r.kind]})" for r in failing)
        text = (
            f"A CUTLASS 2.x {what} kernel has zero occupancy on {arch.name}; the line names no "
            f"tactic, and the tactics cutlint predicts to fail so are: {ids}. "
            + _why([failing[0]], version, fused)
        )
    else:
        text = " ".join(_why(g, version, fused) for g in _grouped(failing))
        if len(failing) < len(found):
            runs = "; ".join(_name(r) for r in found if r not in failing)
            text += f" (The same id runs for {runs}.)"
    return FailureClass.F, Agreement.EXPLAINED, text, reading_text, matches
