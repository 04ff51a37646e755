"""Judge one distinct failure: its class (docs/failures.md), whether cutlint's prediction
agrees with the log, and the explanation in words.

The explanation of a predicted failure is the rules' own text (their message, why and fix lines
are templates over the model's records), so `explain` and `check` cannot tell two stories.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from cutlint.engine.loader import rules_by_id
from cutlint.explain.cache import CacheIndex
from cutlint.explain.gemm_runner import judge_gemm_runner
from cutlint.explain.lines import JUDGES, Assumed, judge_line, unsupported_tile_sm100, verdicts
from cutlint.explain.logmap import Mapped
from cutlint.explain.records import Agreement, Failure, FailureClass
from cutlint.explain.runner import judge_runner
from cutlint.families.base import moe_args, runner_kernel
from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.model.arch import arch_for
from cutlint.producers.flashinfer.releases import FlashInferRelease
from cutlint.records import InstantiationResult, TacticFinding, Verdict

# CUDA driver API, cuda.h `enum cudaError_enum` (CUresult): the codes cuTensorMapEncodeTiled
# returns that mean the context already holds a sticky error from an earlier kernel.
STICKY_CU_RESULTS = {
    700: "CUDA_ERROR_ILLEGAL_ADDRESS",
    702: "CUDA_ERROR_LAUNCH_TIMEOUT",
    714: "CUDA_ERROR_HARDWARE_STACK_ERROR",
    715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    716: "CUDA_ERROR_MISALIGNED_ADDRESS",
    717: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    718: "CUDA_ERROR_INVALID_PC",
    719: "CUDA_ERROR_LAUNCH_FAILED",
}
INVALID_VALUE = 1  # CUDA_ERROR_INVALID_VALUE: the descriptor's parameters are rejected


def _rule_text(r: InstantiationResult) -> str:
    """The rendered message and why-line of the findings that say `initialize()` fails (the
    rules whose file names that verdict), as `check` prints them."""
    rules = rules_by_id()
    parts: list[str] = []
    for d in r.diagnostics:
        if rules[d.rule].verdict is Verdict.FAILS_INITIALIZE:
            parts.append(d.message + (f" ({d.why})" if d.why else ""))
    return "; ".join(parts)


def _fits_text(r: InstantiationResult) -> str:
    res = r.resources
    assert res is not None
    return (
        f"cutlint predicts {res.layout.size:,} B against {res.arch.smem_optin:,} B "
        f"({res.slack:,} B to spare) with {res.stage_count.stages} stages"
    )


def _failing(r: InstantiationResult) -> bool:
    return r.verdict is Verdict.FAILS_INITIALIZE


def _init_failed(m: Mapped) -> tuple[FailureClass | None, Agreement, str]:
    status = m.first.status or "no status printed"
    if m.first.status is not None and status != "Error Internal":
        return (
            FailureClass.D,
            Agreement.NOT_DECIDABLE,
            (
                f"initialize() returned {status}, not the Error Internal of a refused shared-memory "
                "attribute: it depends on the arguments (workspace, problem shape), not on the source."
            ),
        )
    if not m.matches:
        return (
            FailureClass.A,
            Agreement.UNMAPPED,
            (
                f"initialize() failed ({status}); Error Internal is how CUTLASS reports a refused "
                "cudaFuncSetAttribute(MaxDynamicSharedMemorySize): most likely class A, but the "
                f"instantiation is not in this cache ({m.note}); point --cache at the cache the "
                "logging process used."
            ),
        )
    modeled = [r for r in m.matches if r.resources is not None]
    if not modeled:
        reason = m.matches[0].not_modeled.reason if m.matches[0].not_modeled else "?"
        return (
            FailureClass.A,
            Agreement.NOT_MODELED,
            (
                f"initialize() failed with Error Internal (most likely class A); cutlint does not "
                f"model this instantiation: {reason}."
            ),
        )
    failing = [r for r in modeled if _failing(r)]
    if failing:
        why = _rule_text(failing[0])
        extra = (
            ""
            if len(failing) == len(modeled)
            else (
                f" ({len(failing)} of the {len(modeled)} matching instantiations are predicted to fail)"
            )
        )
        return (
            FailureClass.A,
            Agreement.EXPLAINED,
            (
                "initialize() asks cudaFuncSetAttribute(MaxDynamicSharedMemorySize) for "
                f"sizeof(GemmKernel::SharedStorage) and the device refuses: {why}{extra}."
            ),
        )
    r = modeled[0]
    return (
        FailureClass.A,
        Agreement.CONTRADICTS,
        (
            f"The log says initialize() failed (Error Internal), but {_fits_text(r)} "
            f"(verdict: {r.verdict.value}). Either the model is wrong for this instantiation "
            "(`cutlint verify` asks the compiler for its numbers), or initialize() failed for a "
            "reason that is not this kernel's: cudaFuncSetAttribute also fails on a sticky error "
            "left by an earlier kernel (class G), and CUTLASS reports any such failure as Error "
            "Internal."
        ),
    )


def _smem_exceeds(m: Mapped) -> tuple[FailureClass | None, Agreement, str]:
    e = m.first
    said = (
        f"The launcher measured {e.smem_required:,} B against the device's {e.smem_available:,} B"
    )
    modeled = [r for r in m.matches if r.resources is not None]
    if not modeled:
        agreement = Agreement.UNMAPPED if not m.matches else Agreement.NOT_MODELED
        return (
            FailureClass.A,
            agreement,
            (
                f"{said}: class A, decidable from the source; cutlint could not judge "
                f"the instantiation ({m.note})."
            ),
        )
    r = modeled[0]
    res = r.resources
    assert res is not None
    if res.layout.size != e.smem_required:
        return (
            FailureClass.A,
            Agreement.CONTRADICTS,
            (
                f"{said}, but cutlint's layout of sizeof(GemmKernel::SharedStorage) "
                f"gives {res.layout.size:,} B ({r.verdict.value}): the model disagrees with the "
                "compiler here; `cutlint verify` on this file says which is right."
            ),
        )
    if not _failing(r):
        return (
            FailureClass.A,
            Agreement.CONTRADICTS,
            (
                f"{said}; cutlint computes the same {res.layout.size:,} B but judges it "
                f"against {res.arch.name}'s {res.arch.smem_optin:,} B ({r.verdict.value})."
            ),
        )
    return (
        FailureClass.A,
        Agreement.EXPLAINED,
        (f"{said}, and cutlint's layout gives the same {res.layout.size:,} B: {_rule_text(r)}."),
    )


def _earliest_before(e: LogEvent, events: Sequence[LogEvent]) -> LogEvent | None:
    # The events are in line order: the first failure of the log, if it comes before `e`
    # (a generator, not a list: a log of 50,000 distinct failures must not cost 50,000 squared).
    first = next((x for x in events if x.kind is not LogEventKind.SKIPPED_SUMMARY), None)
    return first if first is not None and first.line_no < e.line_no else None


def _tma_descriptor(
    m: Mapped, events: Sequence[LogEvent]
) -> tuple[FailureClass | None, Agreement, str]:
    code = m.first.cu_result
    if code in STICKY_CU_RESULTS:
        first = _earliest_before(m.first, events)
        where = (
            f"the earliest failure the log shows before it is at line {first.line_no} "
            f"({first.kind.value})"
            if first
            else "no failure cutlint reads comes before it: look for the first CUDA error "
            f"before line {m.first.line_no}"
        )
        return (
            FailureClass.G,
            Agreement.NOT_DECIDABLE,
            (
                f"cuTensorMapEncodeTiled returned {code} ({STICKY_CU_RESULTS[code]}): a sticky error "
                "left in the context by an earlier kernel, so every CUDA call after it fails and the "
                f"tactic named here is not the one that faulted; {where}. Not decidable from the "
                "source."
            ),
        )
    if code == INVALID_VALUE:
        return (
            FailureClass.D,
            Agreement.NOT_DECIDABLE,
            (
                "cuTensorMapEncodeTiled returned 1 (CUDA_ERROR_INVALID_VALUE): the descriptor's "
                "address, strides or box do not suit TMA for the tensors it was given (the problem "
                "shape, or the autotuner's dummy inputs); decided by the run, not by the source."
            ),
        )
    return (
        None,
        Agreement.NOT_DECIDABLE,
        (
            f"cuTensorMapEncodeTiled returned CUresult {code}; cutlint cannot tell from the source "
            "why."
        ),
    )


def _unsupported_tile(
    m: Mapped, release: FlashInferRelease | None, runner_release: str | None
) -> tuple[FailureClass | None, Agreement, str]:
    e = m.first
    assert e.tile is not None and e.cluster is not None
    if e.arch_sm in (100, 103, 110):
        # each line by its own arch's dispatch: SM100's rules, never SM120's tile list
        return unsupported_tile_sm100(m, release.version if release else runner_release)
    if e.arch_sm != 120:
        return (
            FailureClass.B,
            Agreement.NOT_MODELED,
            f"The launcher refused tile {e.tile} with cluster {e.cluster} on arch {e.arch_sm}: "
            "class B, stated by the line; cutlint holds no dispatch list for that arch."
            + verdicts(m.matches),
        )
    compiled = verdicts(m.matches)
    if release is None:
        return (
            FailureClass.B,
            Agreement.NOT_MODELED,
            (
                "The launcher's dispatch (are_tile_shapes_supported_sm120) refused the tile; "
                "cutlint's table holds no dispatch list for this cache's FlashInfer release."
                + compiled
            ),
        )
    tile = (e.tile.m, e.tile.n, e.tile.k)
    single = e.cluster.m * e.cluster.n * e.cluster.k == 1
    if tile in release.sm120_tiles and single:
        return (
            FailureClass.B,
            Agreement.CONTRADICTS,
            (
                f"The launcher refused tile {e.tile} with cluster {e.cluster}, but cutlint's dispatch "
                f"table for FlashInfer {release.version} ({release.sm120_tiles_source}) accepts it."
                + compiled
            ),
        )
    accepted = ", ".join("x".join(map(str, t)) for t in sorted(release.sm120_tiles))
    return (
        FailureClass.B,
        Agreement.EXPLAINED,
        (
            f"FlashInfer {release.version}'s are_tile_shapes_supported_sm120 accepts {accepted} with "
            f"a 1x1x1 cluster; tile {e.tile} with cluster {e.cluster} is not among them, so the "
            "config throws before any kernel runs: a config the heuristic offers but the launcher "
            "cannot dispatch." + compiled
        ),
    )


def _sticky(m: Mapped, events: Sequence[LogEvent]) -> tuple[FailureClass | None, Agreement, str]:
    code = m.first.cu_result
    name = STICKY_CU_RESULTS.get(code, "a sticky error") if code is not None else "a sticky error"
    first = _earliest_before(m.first, events)
    where = (
        f"the earliest failure the log shows before it is at line {first.line_no} "
        f"({first.kind.value}): look there, and at the kernel that ran just before it"
        if first
        else "no failure cutlint reads comes before it: the faulting kernel is the last one "
        "launched before this line (run with CUDA_LAUNCH_BLOCKING=1 to name it)"
    )
    return (
        FailureClass.G,
        Agreement.NOT_DECIDABLE,
        f"{m.first.text.strip()[:80]!r} is CUDA error {code} ({name}): a kernel faulted, and "
        "the error stays in the context, so every CUDA call after it fails with it and the tactic "
        f"this line blames is not the one that faulted; {where}. Not decidable from the source.",
    )


def _no_kernel_image(m: Mapped, cache: CacheIndex) -> tuple[FailureClass | None, Agreement, str]:
    arch = cache.arch()
    built = f" The cache given was judged for {arch.name}." if arch is not None else ""
    return (
        FailureClass.E,
        Agreement.NOT_MODELED,
        "cudaErrorNoKernelImageForDevice (209): the module holds no code this GPU can run: "
        "its cubins are for another arch and it has no PTX the driver could compile (an "
        "`sm_120a` cubin loads only on 12.0, not on a 12.1 part, nor an `sm_121a` one on 12.0; "
        "FlashInfer's JIT names the arch in the cache directory, `~/.cache/flashinfer/<version>/"
        "<arch>/`). Decided by the build's -gencode flags against the device, which this line "
        f"names neither of; cutlint does not judge it from a log line.{built}",
    )


def _epilogues(cache: CacheIndex) -> list[str]:
    """The epilogues the cache's instantiations compile, per family, in words."""
    fused: dict[str, None] = {}
    elements: dict[str, None] = {}
    macro: dict[str, set[str]] = {}
    for r in cache.all_instantiations():
        if (k := runner_kernel(r)) is not None:
            tag = k.epilogue_tag.rsplit("::", 1)[-1]
            fused[f"{k.activation} ({tag})"] = None
            elements[k.element.rsplit("::", 1)[-1]] = None
        elif (a := moe_args(r)) is not None:
            macro.setdefault(a.epilogue_tag, set()).add(a.fusion.value if a.fusion else "?")
    out = []
    if fused:
        out.append(
            f"SM80 fused MoE (GEMM 1 with the gated activation): {', '.join(fused)} for "
            f"{', '.join(elements)}"
        )
    out += [
        f"TMA warp-specialized grouped GEMM: {k} with fusion {', '.join(sorted(v))} (the "
        "activation runs as a kernel of its own)"
        for k, v in sorted(macro.items())
    ]
    return out


@cache
def _activation_switch() -> dict[str, dict[str, Any]]:
    """explain/data/activation_switch.toml: per release, moeGemmBiasAct's cases and the enum."""
    with (
        resources.files("cutlint.explain")
        .joinpath("data", "activation_switch.toml")
        .open("rb") as f
    ):
        release: dict[str, dict[str, Any]] = tomllib.load(f)["release"]
    return release


def _invalid_activation(
    cache: CacheIndex, e: LogEvent, version: str | None
) -> tuple[FailureClass | None, Agreement, str]:
    found = _epilogues(cache)
    have = "; ".join(found) if found else "none (no instantiation of a known family)"
    compiled = f" The epilogues this cache compiles: {have}."
    if e.activation is not None:
        return (
            None,
            Agreement.NOT_DECIDABLE,
            f"The TRT-LLM-gen fused-MoE launcher (trtllm_fused_moe_kernel_launcher.cu, "
            f"validateAndCastActivationType) takes 0 <= act_type < ActivationType::InvalidType; "
            f"it was handed {e.activation}: the caller's argument, not a kernel of the source."
            + compiled,
        )
    switch = _activation_switch().get(version or "")
    if switch is None:
        return (
            None,
            Agreement.NOT_DECIDABLE,
            "The runner was asked for an activation it has no epilogue for: "
            "MoeGemmRunner::moeGemmBiasAct (moe_gemm_template_dispatch.h) switches on the "
            "activation type and throws `Invalid activation type` for any other, as "
            "doGatedActivation (cutlass_fused_moe_kernels.cuh) does for a gated one it has no "
            "kernel for. Which activation was asked for is the caller's, and cutlint holds no "
            f"switch for FlashInfer {version or '(release unknown)'}: not decidable." + compiled,
        )
    taken = switch["switch"]
    refused = [a for a in switch["enum"] if a not in taken and a != "InvalidType"]
    return (
        None,
        Agreement.NOT_DECIDABLE,
        f"FlashInfer {version}'s MoeGemmRunner::moeGemmBiasAct ({switch['source']}) has cases "
        f"for {', '.join(taken)} only; the enum's {', '.join(refused) or 'other members'} reach "
        "its default case and throw this line (a gated activation doGatedActivation has no "
        "kernel for throws `Invalid activation type` too). So the caller asked for one of "
        "these; which one the line does not say, so the tactic is not decided." + compiled,
    )


DEFAULT_ASSUMED = Assumed("sm_120", "the default")
"""A line that names no arch, with none given: judged on sm_120."""


def judge(
    m: Mapped,
    events: Sequence[LogEvent],
    release: FlashInferRelease | None,
    tactic_reading: str | None,
    cache: CacheIndex,
    runner_release: str | None = None,
    cache_given: bool = True,
    assumed: Assumed = DEFAULT_ASSUMED,
) -> Failure:
    """`runner_release` and `assumed.name`: what a dense GEMM runner's tactics are read against
    (the given or the cache's FlashInfer version, and the target)."""
    arch = assumed.name
    kind = m.first.kind
    version = release.version if release else None
    matches = m.matches
    note = m.note
    gemm_runner = None
    findings: tuple[TacticFinding, ...] = ()
    if kind is LogEventKind.GEMM_RUNNER_FAILED:
        cls, agreement, text, tactic_reading, gemm_runner, matches, findings = judge_gemm_runner(
            m, runner_release, arch, cache if cache_given else None
        )
        note = (
            "the cache's instantiations of the tactic(s) the line can be (it names the runner, "
            "not the tactic)"
            if matches
            else "a dense GEMM runner's tactic: the line names the runner, not the tactic; its "
            "tactics are the release's getConfigs() list"
        )
    elif kind is LogEventKind.INIT_FAILED:
        cls, agreement, text = _init_failed(m)
    elif kind is LogEventKind.SMEM_EXCEEDS_DEVICE:
        cls, agreement, text = _smem_exceeds(m)
    elif kind is LogEventKind.TMA_DESCRIPTOR:
        cls, agreement, text = _tma_descriptor(m, events)
    elif kind is LogEventKind.UNSUPPORTED_TILE:
        cls, agreement, text = _unsupported_tile(m, release, runner_release)
    elif kind in JUDGES:
        cls, agreement, text = judge_line(m, version or runner_release, assumed)
    elif kind in (LogEventKind.ZERO_OCCUPANCY, LogEventKind.ZERO_OCCUPANCY_FUSED):
        target = None if cache_given else arch_for(arch)
        cls, agreement, text, tactic_reading, matches = judge_runner(m, cache, version, target)
        note = (
            "the cache's SM80 fused-MoE instantiations of that config"
            if matches
            else "a MoeGemmRunner tactic: the runner builds this kernel from its own lists, "
            "no generated file holds it"
        )
    elif kind is LogEventKind.INVALID_ACTIVATION:
        cls, agreement, text = _invalid_activation(cache, m.first, version or runner_release)
    elif kind is LogEventKind.NO_KERNEL_IMAGE:
        cls, agreement, text = _no_kernel_image(m, cache)
    elif kind is LogEventKind.STICKY_CUDA_ERROR:
        cls, agreement, text = _sticky(m, events)
    elif kind is LogEventKind.UNRECOGNIZED:
        cls, agreement, text = (
            None,
            Agreement.UNRECOGNIZED,
            "The line says a tactic or kernel failed, in a message cutlint has no pattern for: "
            "it is counted so that the log is not reported clean, and shown as it is. Its cause "
            "is not judged.",
        )
    elif kind is LogEventKind.CAN_IMPLEMENT_FAILED:
        cls, agreement, text = (
            FailureClass.D,
            Agreement.NOT_DECIDABLE,
            (
                f"can_implement() rejected the arguments ({m.first.status}): alignment, a K = 0 "
                "group or the problem shape the autotuner profiled; it depends on the shape, not on "
                "the instantiation."
            ),
        )
    else:  # RUN_FAILED
        cls, agreement, text = (
            FailureClass.G,
            Agreement.NOT_DECIDABLE,
            (
                f"The kernel initialized, then its launch or run failed ({m.first.status}): a fault "
                "during the run, or a sticky error from an earlier one; not decidable from the source."
            ),
        )
    return Failure(
        kind=kind,
        event=m.first,
        log_lines=tuple(sorted(n for e in m.events for n in e.line_nos)),
        matches=matches,
        match_note=note,
        failure_class=cls,
        agreement=agreement,
        explanation=text,
        tactic_reading=tactic_reading,
        gemm_runner=gemm_runner,
        findings=findings,
    )
