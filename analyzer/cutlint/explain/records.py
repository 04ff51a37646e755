"""What `cutlint explain --log` finds: each distinct failure of a log, mapped and judged.

Pure data, like CheckResult: the text renderer and the JSON dump read the same records.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from cutlint.logs.events import LogEvent, LogEventKind
from cutlint.records import InstantiationResult, Record, Shape3, TacticFinding


class FailureClass(StrEnum):
    """The failure class (docs/failures.md): what kind of failure, and whether the source alone decides it."""

    A = "A"
    """Shared storage above the opt-in limit: initialize() fails. Static."""
    B = "B"
    """No dispatch case for the tile/cluster in the launcher. Static."""
    C = "C"
    """A compile-time static_assert. Static."""
    D = "D"
    """can_implement / the TMA descriptor rejects the problem shape. Needs the shape."""
    E = "E"
    """A binary built for another arch. From the build flags."""
    F = "F"
    """CUTLASS 2.x path with zero occupancy. Static."""
    G = "G"
    """A sticky error from an earlier kernel, blamed on the next tactic. Not static."""

    @property
    def static(self) -> bool:
        """Whether the instantiation's source decides this class (D and G need the run)."""
        return self not in (FailureClass.D, FailureClass.G)


CLASS_TITLES: dict[FailureClass, str] = {
    FailureClass.A: "shared storage above the opt-in limit (initialize() fails)",
    FailureClass.B: "tile or cluster with no dispatch case in the launcher",
    FailureClass.C: "compile-time static_assert",
    FailureClass.D: "can_implement() / TMA descriptor rejects the problem shape",
    FailureClass.E: "binary built for another arch",
    FailureClass.F: "CUTLASS 2.x path with zero occupancy",
    FailureClass.G: "sticky CUDA error from an earlier kernel",
}


class Agreement(StrEnum):
    """How cutlint's prediction stands to what the log says."""

    EXPLAINED = "explained"
    """The model predicts this failure, for the reason the log gives."""
    CONTRADICTS = "contradicts the model"
    """The log says it failed where the model says it fits, or with other numbers."""
    NOT_DECIDABLE = "not decidable statically"
    """The class depends on the run (problem shape, an earlier fault), not on the source."""
    NOT_MODELED = "not modeled"
    """The failing instantiation is outside what cutlint's model covers."""
    UNMAPPED = "not found in the cache"
    """No instantiation of the given cache matches what the log names."""
    STATED = "decided by the line"
    """The line states what decides the class by itself (bytes against a limit, a dispatch gap,
    a static_assert): no cache is needed, and none is contradicted."""
    UNRECOGNIZED = "not recognized"
    """A line that says something failed, in a message cutlint has no pattern for."""


class GemmRunnerTactic(Record):
    """One tactic of a dense GEMM runner (runners/runner_tactics), judged."""

    id: int = Field(description="the autotuner's tactic id: the index into getConfigs()")
    config: str = Field(description="the runner's tile enum, e.g. CtaShape256x128x128B")
    tile: Shape3 = Field(description="the CTA tile in elements the dispatch passes")
    swap_ab: bool
    kernel: str = Field(description="which kernel of the instantiation: default, streamk")
    verdict: str = Field(description="fits, fails initialize(), not instantiated, ...")
    stages: int | None = None
    smem: int | None = Field(default=None, description="sizeof(GemmKernel::SharedStorage)")
    limit: int = Field(description="the arch's opt-in shared memory per block")
    why: str
    breakdown: tuple[tuple[str, int], ...] = Field(
        default=(), description="SharedStorage by part, summing to smem"
    )
    logged: bool = Field(default=False, description="the log names this id for the failure")


class GemmRunnerReading(Record):
    """What a dense GEMM runner's line means in a release on an arch: every tactic, judged."""

    runner: str = Field(description="cutlint's key of the runner, e.g. mxfp8_sm120")
    prefix: str = Field(description="the launcher's prefix, e.g. [MXFP8 SM120 gemm Runner]")
    runner_class: str = Field(description="the Python TunableRunner class")
    blocklist_keys: tuple[str, ...] = Field(description="`<custom_op>::<runner class>`")
    release: str
    arch: str
    step: str | None = Field(description="where the launcher stopped: initialize(), run(), ...")
    source: str = Field(description="where the release's tactic list comes from")
    instantiations_checked: bool = Field(
        description="whether the cache's module was read for the tactics' kernels"
    )
    tactics: tuple[GemmRunnerTactic, ...]
    candidates: tuple[int, ...] = Field(
        default=(), description="the ids that can print this line (those predicted to fail so)"
    )
    summary: str


class CallerKernel(Record):
    """A kernel a hand-written caller can launch: one a translation unit (`cutlint tu`)
    instantiates on a path through the caller's file, judged for the log's GPU."""

    tu: str = Field(description="the translation unit that instantiates it")
    target: str = Field(description="the device target the TU was read for: sm_120a")
    loads: bool = Field(description="whether the log's GPU runs code built for that target")
    chosen_by: str = Field(description="the source line that chose it, FILE:LINE")
    through: str = Field(description="the call on its path that goes through the caller's file")
    conditions: tuple[tuple[str, ...], ...] = Field(
        description="the dispatch conditions of each path through the caller, outermost first"
    )
    paths_omitted: int = Field(
        default=0,
        description="the kernel's dispatch paths the TU read counted but did not list (more than"
        " 32): whether they go through the caller is not known",
    )
    type_expr: str
    tile: str | None
    cluster: str | None
    stages: int | None
    elements: str | None
    shared_storage: int | None = Field(description="measured (libclang), not explained")
    smem_optin: int = Field(description="the log's GPU's opt-in shared memory per block")
    verdict: str = Field(description="fits / fails initialize() / not decidable / not loaded")


class CallerReading(Record):
    """What a hand-written caller's line maps to in the given translation units: candidates,
    not a claim of which one ran."""

    caller: str = Field(description="the caller's file and line, as the log names them")
    device: str = Field(description="the GPU's arch the candidates are judged for: sm_121")
    device_origin: str = Field(description="where that arch came from: the line, --arch, ...")
    tus: tuple[str, ...] = Field(description="every translation unit read, with its target")
    kernels: tuple[CallerKernel, ...] = Field(
        description="every kernel of those TUs whose path goes through the caller's file"
    )


class Failure(Record):
    """One distinct failure: every log line that reports the same thing, and what it maps to."""

    kind: LogEventKind
    event: LogEvent = Field(description="the first line that reports it")
    log_lines: tuple[int, ...] = Field(description="every log line that reports it")
    matches: tuple[InstantiationResult, ...] = Field(
        default=(), description="the cache's instantiations it maps to, with cutlint's verdicts"
    )
    match_note: str = Field(description="how the mapping was made, or why it could not be")
    failure_class: FailureClass | None
    agreement: Agreement
    explanation: str = Field(
        description="plain sentences: why it failed, or why cutlint cannot say"
    )
    tactic_reading: str | None = Field(
        default=None,
        description="what the autotuner's tactic id names in FlashInfer's tactic order, if known",
    )
    gemm_runner: GemmRunnerReading | None = Field(
        default=None, description="a dense GEMM runner's line: the runner's tactics, judged"
    )
    findings: tuple[TacticFinding, ...] = Field(
        default=(),
        description="findings on the runner's tactics against the cache's module (CUT207)",
    )
    caller: CallerReading | None = Field(
        default=None,
        description="a hand-written caller's line: the kernels the given TUs can launch there",
    )


class Summary(Record):
    """An autotuner summary line (`Skipped N unsupported tactic(s) for <op>`) and the model's count."""

    event: LogEvent
    predicted: str = Field(description="what the model predicts for the same op, in words")


class LogExplanation(Record):
    log_path: str
    log_lines: int
    cache: str | None = Field(description="the cache explained against; None when none was given")
    cache_flashinfer_version: str | None = Field(
        default=None,
        description="the FlashInfer release the cache's files say (their resolved contexts)",
    )
    flashinfer_version: str | None = Field(
        default=None,
        description="the release the log is read against: given, else the cache's, else the log's",
    )
    flashinfer_version_origin: str | None = Field(
        default=None,
        description="where `flashinfer_version` came from: the flag, the cache, the log's own "
        "words (version banner, wheel path, JIT cache path, with their lines) or the installed "
        "package; None with no release (context unknown: the notes say so)",
    )
    arch: str | None = Field(
        default=None, description="the arch the runners' tactics are judged on"
    )
    failures: tuple[Failure, ...] = ()
    findings: tuple[TacticFinding, ...] = Field(
        default=(),
        description="findings of their own on the runners' tactics (CUT207), each once",
    )
    summaries: tuple[Summary, ...] = ()
    notes: tuple[str, ...] = Field(
        default=(), description="what the reader should know first (version mismatches, ...)"
    )

    def count(self, agreement: Agreement) -> int:
        return sum(1 for f in self.failures if f.agreement is agreement)
