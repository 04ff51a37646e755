"""A hand-written caller's line (vLLM's `cutlass_gemm_caller.cuh:61, Error Internal`) mapped to
the kernels that caller can launch, read from the translation units `cutlint tu` found.

A kernel is a candidate when one of its dispatch paths goes through the caller's file: a call
written in that file, or a call of the function template the file is named for (vLLM's c3x
`cutlass_gemm_caller.cuh` defines `cutlass_gemm_caller<Gemm>`, which every c3x scaled_mm kernel
is handed to, so the path's last call names it). Candidates are judged for the log's GPU: a
target the GPU does not run (`sm_120a` on a 12.1 GPU) is no kernel for it, and a measured
SharedStorage above the GPU's opt-in limit is the likely culprit of an `Error Internal` from
initialize(). The line never says which candidate ran; neither does this.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

from cutlint.context.targets import target
from cutlint.engine.tu_judge import FAILS, UNDECIDED, judge_kernel
from cutlint.explain.lines import Assumed
from cutlint.explain.records import (
    Agreement,
    CallerKernel,
    CallerReading,
    Failure,
    FailureClass,
)
from cutlint.logs.events import LogEvent
from cutlint.model.arch import arch_for
from cutlint.tu_records import CallSite, TuKernel, TuRead

NOT_LOADED = "not loaded on this GPU"
_CALLEE = re.compile(r"\s*(?:return\s+)?(?:[A-Za-z_][\w:]*::)?([A-Za-z_]\w*)\s*[<(]")


def _callee(call: str) -> str | None:
    """`return vllm::cutlass_gemm_caller<Gemm>(out, a, b)` -> `cutlass_gemm_caller`."""
    m = _CALLEE.match(call)
    return m[1] if m else None


def _through(site: CallSite, name: str) -> bool:
    """Whether a call on a path goes through the caller's file `name`: written in it, or a call
    of the function the file is named for."""
    if PurePath(site.path).name == name:
        return True
    callee = _callee(site.call)
    return callee is not None and callee == PurePath(name).stem


def _device(e: LogEvent, assumed: Assumed) -> tuple[int | None, str, str]:
    """The GPU's SM, its arch name and where it came from."""
    sm = e.capability or e.arch_sm
    if sm is not None:
        return sm, f"sm_{sm}", "the log line"
    try:
        limits = arch_for(assumed.name)
    except KeyError:
        return None, assumed.name, assumed.why
    return limits.sm, limits.name, assumed.why


def _candidate(
    read: TuRead, k: TuKernel, name: str, sm: int | None, device: str
) -> CallerKernel | None:
    paths = [p for p in k.paths if any(_through(s, name) for s in p)]
    if not paths:
        return None
    through = next(s for s in paths[0] if _through(s, name))
    built = target(read.arch)
    loads = built is None or sm is None or built.loads_on(sm)
    try:
        verdict = judge_kernel(k, device if sm is not None else read.arch)
        smem_optin, text = verdict.smem_optin, verdict.verdict
    except KeyError:  # a GPU cutlint's arch table does not hold
        smem_optin, text = 0, UNDECIDED
    return CallerKernel(
        tu=read.command.file,
        target=read.arch,
        loads=loads,
        chosen_by=f"{k.chosen_by.path}:{k.chosen_by.line}",
        through=f"{PurePath(through.path).name}:{through.line} {through.call}",
        conditions=tuple(k.conditions(p) for p in paths),
        paths_omitted=k.paths_omitted,
        type_expr=k.type_expr,
        tile=k.tile,
        cluster=k.cluster,
        stages=k.stages,
        elements=k.elements,
        shared_storage=k.shared_storage,
        smem_optin=smem_optin,
        verdict=text if loads else NOT_LOADED,
    )


def read_caller(e: LogEvent, reads: Sequence[TuRead], assumed: Assumed) -> CallerReading | None:
    """Every kernel of `reads` whose path goes through the caller's file; None when the line
    names no file."""
    if e.site is None:
        return None
    sm, device, origin = _device(e, assumed)
    kernels = [
        c
        for read in reads
        for k in read.kernels
        if (c := _candidate(read, k, e.site.name, sm, device)) is not None
    ]
    return CallerReading(
        caller=f"{e.site.name}:{e.site.line}",
        device=device,
        device_origin=origin,
        tus=tuple(f"{r.command.file} [{r.arch}]" for r in reads),
        kernels=tuple(kernels),
    )


def with_caller(f: Failure, reads: Sequence[TuRead], assumed: Assumed) -> Failure:
    """The failure with the kernels its caller can launch, and its class and explanation read
    again from their verdicts (an initialize() failure's only; a can_implement() or run
    failure keeps its class, with the candidates listed)."""
    reading = read_caller(f.event, reads, assumed)
    if reading is None:
        return f
    c = reading
    update: dict[str, object] = {"caller": c}
    if not c.kernels:
        update["match_note"] = (
            f"no kernel of the {len(reads)} translation unit(s) given goes through {c.caller}"
        )
        update["explanation"] = (
            f.explanation.split(" The caller is ")[0]
            + f" None of the translation units given ({', '.join(c.tus)}) instantiates a kernel "
            f"on a path through {c.caller}: give the TU that builds this caller."
        )
        return f.model_copy(update=update)
    runs = [k for k in c.kernels if k.loads]
    update["match_note"] = (
        f"{len(c.kernels)} kernel(s) of the translation unit(s) given go through {c.caller}, "
        f"{len(runs)} of them built for a target that {c.device} runs ({c.device_origin})"
    )
    built = sorted({a for r in reads if r.command.file in {k.tu for k in c.kernels}
                    for a in r.command.arches})  # fmt: skip
    sentence, cls, agreement = _judged(c, runs, built, _device(f.event, assumed)[0])
    text = (
        f"The caller is {c.caller}: {len(c.kernels)} kernel(s) of the translation unit(s) "
        "given can be launched there (listed under `kernels`, each with its dispatch "
        f"conditions); candidates, the line does not say which one ran. {sentence}"
    )
    if f.failure_class is FailureClass.A:  # initialize() failed: the candidates decide
        if cls is not None and agreement is not None:
            update |= {"failure_class": cls, "agreement": agreement}
    else:  # can_implement() or run: its class stands
        text = f.explanation.split(" The caller is ")[0] + " " + text
    update["explanation"] = text
    return f.model_copy(update=update)


def _judged(
    c: CallerReading, runs: Sequence[CallerKernel], built: Sequence[str], sm: int | None
) -> tuple[str, FailureClass | None, Agreement | None]:
    """What the candidates the GPU runs say of an initialize() failure: a sentence, and the
    class and agreement it decides (None: the line's own stand)."""
    if not runs:
        other = [a for a in built if sm is not None and (t := target(a)) and t.loads_on(sm)]
        if other:
            return (
                f"None of the reads given is for a target {c.device} runs, but the build also "
                f"targets {', '.join(other)}, which it does: read the TU for it (`cutlint tu "
                f"... --arch {other[0]}`) to judge those kernels.",
                None,
                None,
            )
        targets = ", ".join(built) or ", ".join(sorted({k.target for k in c.kernels}))
        return (
            f"None of them is built for {c.device}: the build's targets ({targets}) do not run "
            "on it, so the launch has no kernel image for this capability (class B, a dispatch "
            "gap of the build): a build for this arch (its -gencode / CMake arch list) is the fix.",
            FailureClass.B,
            Agreement.EXPLAINED,
        )
    over = [k for k in runs if k.verdict == FAILS]
    if over:
        worst = max(over, key=lambda k: k.shared_storage or 0)
        return (
            f"{len(over)} of those {c.device} runs need more shared memory than it allows per "
            f"block ({worst.smem_optin:,} B; the largest, chosen at "
            f"{PurePath(worst.chosen_by).name}, needs {worst.shared_storage:,} B, measured): "
            "the likely culprit of an initialize() failure (class A), when the problem that "
            "failed meets its dispatch conditions.",
            FailureClass.A,
            Agreement.EXPLAINED,
        )
    others = (
        "D (can_implement() rejects the problem shape, alignment or workspace: the arguments, "
        "not the instantiation) and G (a sticky error of an earlier kernel)"
    )
    undecided = sum(1 for k in runs if k.verdict == UNDECIDED)
    if undecided:
        return (
            f"None of the {len(runs) - undecided} measured candidate(s) fails for shared memory "
            f"on {c.device}, but {undecided} could not be measured in this reading (CUT212), so "
            f"class A is not ruled out; else the classes still possible are {others}.",
            None,
            None,
        )
    return (
        f"None of the candidates fails for shared memory on {c.device}: the classes still "
        f"possible are {others}.",
        FailureClass.D,
        Agreement.NOT_DECIDABLE,
    )


__all__ = ["NOT_LOADED", "read_caller", "with_caller"]
