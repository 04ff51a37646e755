"""What `cutlint pregen` finds: a generator's operations judged, and the tactics to block."""

from __future__ import annotations

from pydantic import Field

from cutlint.records import Diagnostic, InstantiationResult, Record, TacticFinding, Verdict

FAILING = (Verdict.FAILS_INITIALIZE, Verdict.FAILS_COMPILE, Verdict.UNREACHABLE)
GEMM_RUNNER_FAILING = ("fails initialize()", "does not compile", "not instantiated")
"""A dense GEMM runner's verdicts (runners/runner_tactics) whose tactic cannot run."""
"""The verdicts pregen reports as failures (the same ones `check` counts and flags)."""


class PregenOperation(Record):
    kernel: str = Field(description="the generator's name for the operation (its repr)")
    result: InstantiationResult = Field(
        description="cutlint's judgement, with the span the written file would have"
    )
    tactics: tuple[int, ...] = Field(
        default=(), description="the runtime tactic ids this operation serves, where known"
    )

    @property
    def fails(self) -> bool:
        return self.result.verdict in FAILING


class BlockedTactic(Record):
    """One entry of the blocklist: a runtime tactic id every runner sharing its key fails."""

    key: str = Field(description="`<custom_op>::<runner class>`, FlashInfer's blocklist key")
    tactic: int
    config: str = Field(description="what the id names, e.g. GEMM2 FINALIZE 256x128x128 SwapAB off")
    reason: str
    operations: tuple[str, ...] = Field(default=(), description="file:line of the failing ops")


class WithheldTactic(Record):
    """A tactic id that fails for some runner but is left out of the blocklist, and why."""

    key: str
    tactic: int
    config: str
    reason: str


class RunnerTactic(Record):
    """One tactic id of MoeGemmRunner's CUTLASS 2.x grouped runners (no file names these: the
    runner builds them from C++ lists; runners/sm8x_grouped), judged on the arch."""

    runner: str = Field(
        description="the runner kind: FP8 x FP8 (e4m3, Sm89), f16 x f16 (Sm80), ..."
    )
    key: str = Field(description="`<custom_op>::<runner class>`, FlashInfer's blocklist key")
    tactic: int
    config: str = Field(description="GEMM1 16x256x128 warp 16x64x128 stages=3 (Sm89)")
    status: str = Field(description="fails (every path it can take), partly (one path), runs")
    verdict: str = Field(description="each kernel path's verdict with its bytes")
    reason: str = Field(default="", description="the runner's failure, for each path that fails")
    prefilter: str | None = Field(
        default=None, description="what the release's occupancy pre-filter does with the id"
    )
    kind: str = Field(description="e4m3, f16 or bf16 (the runner's T == WeightType)")
    gemm: int
    tile: str = Field(description="the threadblock tile, MxNxK")
    stages: int


class GemmRunnerTactic(Record):
    """One tactic id of a dense SM120 GEMM runner (`[MXFP8 SM120 gemm Runner]`, ...; its configs
    are getConfigs()'s list, runners/runner_tactics), judged on the arch."""

    runner: str = Field(description="the launcher's prefix, e.g. [MXFP8 SM120 gemm Runner]")
    runner_class: str = Field(description="the Python TunableRunner class that numbers it")
    keys: tuple[str, ...] = Field(description="`<custom_op>::<runner class>` keys it is under")
    tactic: int = Field(description="the tactic: its index in the runner's table")
    ids: tuple[int, ...] = Field(
        description="the autotuner ids that run it: the tactic, or every packed id whose "
        "consumer half it is (SVDQuant's Sm120FusedLinearRunner)"
    )
    config: str = Field(description="the tile enum and the kernel: CtaShape256x128x128B ...")
    tile: str = Field(description="the CTA tile in elements, MxNxK")
    swap_ab: bool
    kernel: str = Field(description="which kernel of the instantiation: default, streamk")
    verdict: str = Field(description="fits, fails initialize(), does not compile, not modeled")
    smem: int | None = Field(default=None, description="sizeof(GemmKernel::SharedStorage)")
    stages: int | None = None
    why: str

    @property
    def fails(self) -> bool:
        return self.verdict in GEMM_RUNNER_FAILING


class PregenResult(Record):
    flashinfer_version: str
    generator: str = Field(description="the generate_kernels.py that was run")
    arch: str
    architectures: str = Field(description="the generator's architectures argument, 120;120-real")
    operations: tuple[PregenOperation, ...] = ()
    blocked: tuple[BlockedTactic, ...] = ()
    withheld: tuple[WithheldTactic, ...] = ()
    runner_tactics: tuple[RunnerTactic, ...] = Field(
        default=(), description="MoeGemmRunner's CUTLASS 2.x grouped tactics on the arch"
    )
    gemm_runner_tactics: tuple[GemmRunnerTactic, ...] = Field(
        default=(), description="the dense SM120 GEMM runners' tactics on the arch"
    )
    findings: tuple[TacticFinding, ...] = Field(
        default=(),
        description="findings on the runners' tactics against the release's rendered JIT "
        "modules (CUT207)",
    )
    notes: tuple[str, ...] = ()

    @property
    def failing(self) -> tuple[PregenOperation, ...]:
        return tuple(o for o in self.operations if o.fails)

    @property
    def failing_gemm_runner_tactics(self) -> tuple[GemmRunnerTactic, ...]:
        return tuple(t for t in self.gemm_runner_tactics if t.fails)


class CutlassLibraryKernel(Record):
    """One kernel cutlass_library's manifest keeps, judged as `check` judges its file."""

    name: str = Field(
        description="its procedural_name(), the name --kernels/--ignore-kernels match"
    )
    path: str = Field(description="where the generator would write it: generated/<kind>/<cc>/...")
    verdict: Verdict = Field(description="the worst of its instantiations' verdicts")
    rules: tuple[str, ...] = Field(default=(), description="the ids of every rule it triggers")
    why: str = Field(description="the first failing finding, else what decided the verdict")
    results: tuple[InstantiationResult, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = Field(
        default=(), description="file-level diagnostics (input problems) of its file"
    )

    @property
    def fails(self) -> bool:
        return self.verdict in FAILING


class WithheldKernel(Record):
    """A failing kernel the exclusion cannot name without also skipping a kernel that runs."""

    name: str
    reason: str


class CutlassLibraryPregenResult(Record):
    cutlass_library_version: str = Field(description="the nvidia-cutlass wheel that was run")
    arch: str = Field(description="the arch the kernels are judged for (sm_120)")
    architectures: str = Field(description="the generator's --architectures (120a)")
    kernel_filter: str = Field(default="", description="the generator's --kernels")
    cutlass: str = Field(description="the CUTLASS version the model used, and where it came from")
    kernels: tuple[CutlassLibraryKernel, ...] = ()
    exclusion: tuple[str, ...] = Field(
        default=(),
        description="the names to give --ignore-kernels/--exclude-kernels (comma-joined): they "
        "skip exactly the failing kernels, less the withheld ones",
    )
    withheld: tuple[WithheldKernel, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def failing(self) -> tuple[CutlassLibraryKernel, ...]:
        return tuple(k for k in self.kernels if k.fails)

    @property
    def not_modeled(self) -> tuple[CutlassLibraryKernel, ...]:
        return tuple(k for k in self.kernels if k.verdict is Verdict.NOT_MODELED)
