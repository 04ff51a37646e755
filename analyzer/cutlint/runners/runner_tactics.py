"""FlashInfer's SM120 GEMM runners: their tactics, release by release, and what a runner's log line
means for them.

A runner (`CutlassMxfp8GemmRunnerSm120`, `CutlassFp4GemmRunner` for SM120, ...) numbers its
candidate configurations by their index in `getConfigs()`; the autotuner tries each. When one
cannot initialize, the runner throws a message that names no tactic:

    [MXFP8 SM120 gemm Runner] Failed to initialize cutlass MXFP8 gemm on sm120. Error: Error Internal

So the line alone says only which runner failed and at which step. Given the release, this module
lists the runner's tactics (data/sm120_runner_tactics.toml, each list with its source), builds
the instantiation each tactic dispatches to, and asks the family's model (cutlint.families.*)
for the kernel's SharedStorage: the tactics that cannot initialize on the target, and why, and
the ones that fit. Pure functions of the line, the release and the arch; the module's
instantiations may be passed to also flag tactics whose kernel the module never instantiates.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from cutlint.cutlass.layout import Block
from cutlint.families.kernel_numbers import MIN_STAGES, KernelNumbers
from cutlint.model.arch import arch_for
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.records import Shape3


@dataclass(frozen=True)
class RunnerTactic:
    id: int
    config: str
    """The runner's tile enum, e.g. `CtaShape256x128x128B`."""
    tile: Shape3
    """The CTA tile in elements, as the dispatch passes it to the launcher."""
    swap_ab: bool
    kernel: str
    """Which kernel of the instantiation: `default`, `streamk`."""
    schedule: str = ""
    """Scheduler parameters the tactic sets on the same kernel (SVDQuant's `Split-K 2`,
    `raster AlongM`, `swizzle 4`); empty for the scheduler's defaults."""
    macro: str | None = None
    """The macro the module instantiates this tactic's kernel with, when not the runner's."""


@dataclass(frozen=True)
class ProducerPacking:
    """How a runner packs a second, non-CUTLASS axis into its tactic ids (SVDQuant's
    `Sm120FusedLinearRunner`: `row | variant << shift`, svdquant_sm120_routes.py
    sm120_pack_tactic)."""

    shift: int
    variants: int
    """The most producer variants any shape offers (ids past a shape's count never occur)."""
    source: str

    def ids(self, row: int) -> tuple[int, ...]:
        """Every tactic id whose consumer half is `row`."""
        return tuple(row | v << self.shift for v in range(self.variants))

    def unpack(self, tactic: int) -> tuple[int, int]:
        """(consumer row, producer variant) of a packed id."""
        return tactic & ((1 << self.shift) - 1), tactic >> self.shift


@dataclass(frozen=True)
class RunnerRelease:
    version: str
    source: str
    tactics: tuple[RunnerTactic, ...]
    custom_ops: tuple[str, ...]
    """The autotuner ops whose runner lists hold this runner (`mxfp8_gemm`)."""
    args: tuple[str, ...]
    """The macro's arguments for one tactic in this release: `{output}`, `{m}`, `{n}`, `{k}`,
    `{swap_ab}` (the macro took no SWAP_AB before 0.6.11)."""
    producer: ProducerPacking | None = None
    """Set when the runner's ids pack a producer variant beside the tactic (the row)."""

    def ids(self, row: int) -> tuple[int, ...]:
        """The runner's tactic ids that run tactic `row`'s kernel."""
        return self.producer.ids(row) if self.producer else (row,)

    def row_of(self, tactic: int) -> int:
        """The tactic (row of `tactics`) a logged id runs."""
        return self.producer.unpack(tactic)[0] if self.producer else tactic


@dataclass(frozen=True)
class Runner:
    key: str
    family: str
    """The package under cutlint.families that models the runner's kernels."""
    module: str
    macro: str
    prefix: str
    numbering: str
    outputs: tuple[str, ...]
    kernel_by_prefix: dict[str, str]
    releases: dict[str, RunnerRelease]
    runner_class: str
    """The Python TunableRunner's class name (`CutlassMxfp8GemmRunner`): the autotuner's logs
    and the blocklist key name it."""
    status_in_message: bool = True
    """Whether the runner's messages end in the cutlass::Status (`Error: Error Internal`);
    SVDQuant's `initialize failed` prints none."""
    tactics_of: str | None = None
    """The runner whose tactic list (same release, same module) this one numbers: SVDQuant's
    svdquant_linear runners run the SVDQuant runner's kernels."""
    producer_note: str = ""
    """What the packed producer half of an id is, and that cutlint does not model it."""
    inputs: tuple[str, ...] = ("",)
    """The input types the macro's `{input}` takes (the groupwise launcher's DTypeIn); one empty
    entry for a runner whose macro names no input type."""

    @property
    def label(self) -> str:
        """The prefix as printed with the default kernel: `[FP4 gemm Runner]`; for a runner that
        prints no line of its own (empty prefix), its class and module."""
        if not self.prefix:
            return f"{self.runner_class} ({self.module})"
        if not self.prefix.startswith("[") or self.prefix.endswith("]"):
            return self.prefix
        return self.prefix + "]"

    def blocklist_keys(self, release: str) -> tuple[str, ...]:
        """`<custom_op>::<runner class>` for each op that holds the runner in the release."""
        rel = self.releases.get(release)
        return tuple(f"{op}::{self.runner_class}" for op in (rel.custom_ops if rel else ()))

    def macros(self, release: str) -> frozenset[str]:
        """The macros the runner's tactics in a release are instantiated with."""
        rel = self.releases.get(release)
        return frozenset({self.macro, *(t.macro for t in (rel.tactics if rel else ()) if t.macro)})

    def instantiation(
        self, t: RunnerTactic, output: str, release: str, input: str = ""
    ) -> tuple[str, tuple[str, ...]]:
        """(macro, args) of the instantiation the tactic dispatches to in a release, for one
        output (and input) type."""
        values = {
            "config": t.config,
            "output": output,
            "input": input,
            "m": str(t.tile.m),
            "n": str(t.tile.n),
            "k": str(t.tile.k),
            "swap_ab": "true" if t.swap_ab else "false",
        }
        args = self.releases[release].args
        return t.macro or self.macro, tuple(a.format(**values) for a in args)

    def instantiations(self, t: RunnerTactic, release: str) -> list[tuple[str, tuple[str, ...]]]:
        """Every instantiation the tactic may dispatch to: one per output (and input) type."""
        return [self.instantiation(t, o, release, i) for o in self.outputs for i in self.inputs]


@cache
def runners() -> dict[str, Runner]:
    with (
        resources.files("cutlint.producers.flashinfer")
        .joinpath("data", "sm120_runner_tactics.toml")
        .open("rb") as f
    ):
        data = tomllib.load(f)
    out: dict[str, Runner] = {}
    table: dict[str, Any] = data["runners"]
    for key, r in table.items():
        rels: dict[str, Any] = r["releases"]
        # A runner that numbers another's tactics takes that runner's list and macro arguments.
        lists = table[r.get("tactics_of", key)]["releases"]
        releases = {
            v: RunnerRelease(
                v,
                d["source"],
                tuple(_tactic(t) for t in lists[lists[v].get("tactics_from", v)]["tactics"]),
                tuple(d["custom_ops"]),
                tuple(lists[v]["args"]),
                ProducerPacking(d["producer_shift"], d["producer_variants"], d["producer_source"])
                if "producer_shift" in d
                else None,
            )
            for v, d in rels.items()
        }
        out[key] = Runner(
            key=key,
            family=r["family"],
            module=r["module"],
            macro=r["macro"],
            prefix=r["prefix"],
            numbering=r["numbering"],
            outputs=tuple(r["outputs"]),
            kernel_by_prefix=dict(r.get("kernel_by_prefix", {})),
            releases=releases,
            runner_class=r["runner_class"],
            status_in_message=r.get("status_in_message", True),
            tactics_of=r.get("tactics_of"),
            producer_note=r.get("producer_note", ""),
            inputs=tuple(r.get("inputs", ("",))),
        )
    return out


def _tactic(d: dict[str, Any]) -> RunnerTactic:
    m, n, k = d["tile"]
    return RunnerTactic(
        d["id"], d["config"], Shape3(m=m, n=n, k=k), d["swap_ab"], d["kernel"],
        d.get("schedule", ""), d.get("macro"),
    )  # fmt: skip


# --- the log line --------------------------------------------------------------------------------


class Step(StrEnum):
    """Where the runner's launcher stopped (the order of its checks)."""

    WORKSPACE = "workspace"
    CAN_IMPLEMENT = "can_implement()"
    INITIALIZE = "initialize()"
    RUN = "run()"


# The launchers' messages (mxfp8_gemm_template_sm120.h, fp4_gemm_template_sm120.h), after the
# runner's prefix. 0.7.x's MXFP8 launcher appends the size it asked for when it exceeds the limit.
# SVDQuant's (nvfp4_svdquant_gemm_template_sm120.h, run_tactic): "insufficient workspace",
# "tactic infeasible for this shape", "can_implement failed", "initialize failed", "run failed".
_STEPS: tuple[tuple[Step, re.Pattern[str]], ...] = (
    (Step.WORKSPACE, re.compile(r"Requested workspace size insufficient|insufficient workspace")),
    (
        Step.CAN_IMPLEMENT,
        re.compile(r"kernel will fail for params|can_implement failed|tactic infeasible"),
    ),
    (Step.INITIALIZE, re.compile(r"Failed to initialize cutlass|\binitialize failed")),
    (Step.RUN, re.compile(r"Failed to run cutlass|\brun failed")),
)
_STATUS = re.compile(r"Error: (?P<status>Error(?: [A-Z][a-z]+)+|Success)")
_NEEDS = re.compile(
    r"kernel needs (?P<needs>\d+) bytes of shared memory, device per-block limit is "
    r"(?P<limit>\d+) bytes"
)
_ON_ARCH = re.compile(r" on (?P<arch>sm\d+(?:/sm\d+)?)\b")


@dataclass(frozen=True)
class RunnerLine:
    """What one runner log line says."""

    runner: str
    prefix: str
    kernel: str | None
    """The kernel the prefix names (`[FP4 gemm Runner StreamK]`), or None when it names none."""
    step: Step | None
    status: str | None
    arch_text: str | None
    """`sm120`, `sm120/sm121`: the arch the message names (its own text, not the device)."""
    needs: int | None
    limit: int | None


def step_of(message: str) -> Step | None:
    """The step a runner message names, whichever runner printed it."""
    return next((s for s, p in _STEPS if p.search(message)), None)


def read_line(line: str) -> RunnerLine | None:
    """The runner line in `line` (anywhere in it: frameworks prefix their own logger), or None."""
    best: tuple[int, Runner, str] | None = None
    for r in runners().values():
        if not r.prefix:
            continue  # prints no line of its own
        at = line.find(r.prefix)
        if at < 0:
            continue
        end = line.find("]", at) if r.prefix.startswith("[") else -1
        prefix = line[at : end + 1] if end >= 0 else r.prefix
        if best is None or at < best[0]:
            best = (at, r, prefix)
    if best is None:
        return None
    at, r, prefix = best
    rest = line[at + len(prefix) :]
    step = step_of(rest)
    status = _STATUS.search(rest)
    arch = _ON_ARCH.search(rest)
    needs = _NEEDS.search(rest)
    return RunnerLine(
        runner=r.key,
        prefix=prefix,
        kernel=r.kernel_by_prefix.get(prefix),
        step=step,
        status=status["status"] if status else None,
        arch_text=arch["arch"] if arch else None,
        needs=int(needs["needs"]) if needs else None,
        limit=int(needs["limit"]) if needs else None,
    )


# --- verdicts ------------------------------------------------------------------------------------


class Verdict(StrEnum):
    FITS = "fits"
    FAILS_INITIALIZE = "fails initialize()"
    DOES_NOT_COMPILE = "does not compile"
    NOT_INSTANTIATED = "not instantiated"
    NOT_MODELED = "not modeled"


@dataclass(frozen=True)
class TacticVerdict:
    tactic: RunnerTactic
    instantiation: tuple[str, tuple[str, ...]]
    """(macro, args) the tactic dispatches to (for the first output type; every output type the
    runner has gives the same numbers, or the verdict says not modeled)."""
    verdict: Verdict
    stages: int | None
    smem: int | None
    limit: int
    why: str
    breakdown: tuple[tuple[str, int], ...] = ()
    """SharedStorage by part (`smem_A`, `epilogue`, `barriers`, `padding`), summing to `smem`."""
    missing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The instantiations (one per output type) the tactic needs and the module lacks."""


def judge_runner(
    runner: str,
    release: str,
    arch: str = "sm_120",
    instantiated: Collection[tuple[str, tuple[str, ...]]] | None = None,
) -> tuple[TacticVerdict, ...] | str:
    """Every tactic of a runner in a release, judged on an arch; or why it cannot be."""
    r = runners().get(runner)
    if r is None:
        return f"unknown runner `{runner}`"
    rel = r.releases.get(release)
    if rel is None:
        known = list(r.releases)
        span = f"the {len(known)} releases that have it, {known[0]} to {known[-1]}"
        if release in flashinfer_releases():
            return (
                f"{r.label} in FlashInfer {release}: no such runner in that release (the wheel "
                f"has no csrc/{r.module}.cu; its tactics are derived for {span})"
            )
        return (
            f"{r.label} in FlashInfer {release}: not a release cutlint has read (its tactics are "
            f"derived for {span}; data/sm120_runner_tactics.toml)"
        )
    limit = arch_for(arch).smem_optin
    model = importlib.import_module(f"cutlint.families.{r.family}.model")
    out: list[TacticVerdict] = []
    for t in rel.tactics:
        every = r.instantiations(t, release)
        numbers: list[KernelNumbers | str] = [
            model.evaluate(name, args, release, t.kernel) for name, args in every
        ]
        first = every[0]
        missing = [i for i in every if instantiated is not None and i not in instantiated]
        out.append(_verdict(t, first, numbers, limit, arch, missing))
    return tuple(out)


def _verdict(
    t: RunnerTactic,
    inst: tuple[str, tuple[str, ...]],
    numbers: list[KernelNumbers | str],
    limit: int,
    arch: str,
    missing: list[tuple[str, tuple[str, ...]]],
) -> TacticVerdict:
    if missing:
        named = "; ".join(f"{m}({', '.join(a)})" for m, a in missing)
        return TacticVerdict(
            t, inst, Verdict.NOT_INSTANTIATED, None, None, limit,
            f"the module instantiates no `{named}`: the dispatch names a launcher the module "
            "does not define",
            missing=tuple(missing),
        )  # fmt: skip
    reasons = [n for n in numbers if isinstance(n, str)]
    if reasons:
        return TacticVerdict(t, inst, Verdict.NOT_MODELED, None, None, limit, reasons[0])
    kernels = [n for n in numbers if isinstance(n, KernelNumbers)]
    if len({(k.stages, k.smem) for k in kernels}) != 1:
        return TacticVerdict(
            t, inst, Verdict.NOT_MODELED, None, None, limit,
            "the output types give different kernels; judge them one by one",
        )  # fmt: skip
    k = kernels[0]
    sc = k.stage_count
    if not k.compiles:
        return TacticVerdict(
            t, inst, Verdict.DOES_NOT_COMPILE, k.stages, k.smem, limit,
            f"{k.stages} stage(s) < {MIN_STAGES}: the SM120 mainloop's static_assert(Stages >= 2) stops the build",
        )  # fmt: skip
    budget = (
        f"StageCount<{k.stages}> fixed by the launcher"
        if sc.fixed
        else f"{k.stages} stages from the builder's stage budget of {sc.stage_budget:,} B"
    )
    parts = breakdown(k.layout)
    if k.smem > limit:
        return TacticVerdict(
            t, inst, Verdict.FAILS_INITIALIZE, k.stages, k.smem, limit,
            f"needs {k.smem:,} B of shared memory ({budget}); {arch} allows {limit:,} B per block: "
            "cudaFuncSetAttribute fails and initialize() returns kErrorInternal",
            parts,
        )  # fmt: skip
    return TacticVerdict(
        t, inst, Verdict.FITS, k.stages, k.smem, limit,
        f"needs {k.smem:,} B ({budget}); {limit - k.smem:,} B to spare on {arch}",
        parts,
    )  # fmt: skip


def breakdown(layout: Block) -> tuple[tuple[str, int], ...]:
    """The SharedStorage's bytes by part: each mainloop buffer (`smem_A`, `smem_SFA`, ...), the
    epilogue's tensors, the pipelines' and scheduler's barriers, and alignment padding; the
    parts sum to `layout.size` (what is not in a piece is padding)."""
    parts: dict[str, int] = {}
    for p in layout.pieces:
        last = p.name.rsplit(".", 1)[-1]
        if "padding" in last:
            label = "padding"
        elif p.name.startswith("tensors.mainloop."):
            label = last
        elif p.name.startswith("tensors.epilogue"):
            label = "epilogue"
        else:
            label = "barriers and scheduler"
        parts[label] = parts.get(label, 0) + p.size
    rest = layout.size - sum(parts.values())
    if rest:
        parts["padding"] = parts.get("padding", 0) + rest
    order = sorted(parts, key=lambda k: (k == "padding", not k.startswith("smem_")))
    return tuple((k, parts[k]) for k in order)


@dataclass(frozen=True)
class RunnerExplanation:
    line: RunnerLine
    release: str
    arch: str
    source: str
    """Where the release's tactic list comes from."""
    tactics: tuple[TacticVerdict, ...]
    """Every tactic of the runner, judged; `candidates` are those that could print the line."""
    candidates: tuple[TacticVerdict, ...]
    summary: str


def runner_for(key: str, runner_class: str | None) -> str:
    """The runner of `key`'s prefix whose Python class is `runner_class`: SVDQuant's runners
    share one launcher (and its messages), and the autotuner's line names the class."""
    prefix = runners()[key].prefix
    same = [k for k, r in runners().items() if r.prefix == prefix]
    return next((k for k in same if runners()[k].runner_class == runner_class), key)


def explain_runner_line(
    line: str,
    release: str,
    arch: str = "sm_120",
    instantiated: Collection[tuple[str, tuple[str, ...]]] | None = None,
    runner_class: str | None = None,
) -> RunnerExplanation | str | None:
    """What a runner log line means in a release on an arch: None when the line is no runner's;
    a string when it cannot be judged (unknown release or runner). `runner_class`: the class
    the autotuner names for the line, which picks among runners that share a launcher."""
    read = read_line(line)
    if read is None:
        return None
    if runner_class is not None:
        read = replace(read, runner=runner_for(read.runner, runner_class))
    verdicts = judge_runner(read.runner, release, arch, instantiated)
    if isinstance(verdicts, str):
        return verdicts
    r = runners()[read.runner]
    pool = [v for v in verdicts if read.kernel is None or v.tactic.kernel == read.kernel]
    candidates, summary = _candidates(read, pool, arch)
    return RunnerExplanation(
        line=read,
        release=release,
        arch=arch,
        source=r.releases[release].source,
        tactics=verdicts,
        candidates=tuple(candidates),
        summary=summary,
    )


def _ids(vs: list[TacticVerdict]) -> str:
    return ", ".join(str(v.tactic.id) for v in vs)


def _candidates(
    read: RunnerLine, pool: list[TacticVerdict], arch: str
) -> tuple[list[TacticVerdict], str]:
    failing = [v for v in pool if v.verdict is Verdict.FAILS_INITIALIZE]
    fits = [v for v in pool if v.verdict is Verdict.FITS]
    if read.step is Step.INITIALIZE:
        if read.needs is not None:
            failing = [v for v in failing if v.smem == read.needs]
        if failing:
            sizes = sorted({v.smem for v in failing if v.smem is not None})
            return failing, (
                f"initialize() fails for tactic(s) {_ids(failing)}: they need "
                f"{' / '.join(f'{s:,}' for s in sizes)} B against {failing[0].limit:,} B on {arch}; "
                f"tactic(s) {_ids(fits) or 'none'} fit"
            )
        return [], (
            f"no tactic of this runner exceeds {arch}'s limit: the initialize() failure has "
            "another cause (a binary built for another arch, class E, or an earlier sticky error, class G)"
        )
    if read.step is Step.RUN:
        return [], (
            "run() failed after initialize() succeeded: shared memory was granted; this is not a "
            "shared-memory verdict (a launch or an earlier kernel's error, classes E/G)"
        )
    if read.step is Step.CAN_IMPLEMENT:
        return (
            [],
            "can_implement() rejected the problem shape (class D): decided by the shape, not the tactic",
        )
    return [], "the line names no step this module judges"


BLOCKED = (Verdict.FAILS_INITIALIZE, Verdict.DOES_NOT_COMPILE, Verdict.NOT_INSTANTIATED)
"""The verdicts a blocklist holds: the tactic cannot run (with the module, for the last)."""


def blocked_tactics(
    runner: str,
    release: str,
    arch: str = "sm_120",
    instantiated: Collection[tuple[str, tuple[str, ...]]] | None = None,
) -> tuple[int, ...] | str:
    """The tactic ids a blocklist should hold for a runner (pregen --emit-blocklist): those that
    cannot initialize or do not compile on the arch, and, given the module's instantiations,
    those whose kernel it never instantiates; a packed id (SVDQuant's fused linear runner) for
    every producer variant. A string when the runner or release is not known."""
    verdicts = judge_runner(runner, release, arch, instantiated)
    if isinstance(verdicts, str):
        return verdicts
    rel = runners()[runner].releases[release]
    return tuple(i for v in verdicts if v.verdict in BLOCKED for i in rel.ids(v.tactic.id))
