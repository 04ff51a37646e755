"""The records the log reader produces: one `LogEvent` per failure line, pure data.

A log is input like a source file: this stage says what the lines say (which message, which
tactic, which file:line on the machine that wrote it) and nothing about why. Mapping an event to
an instantiation and explaining it is `cutlint.explain`'s job.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from cutlint.records import Record, Shape3


class LogEventKind(StrEnum):
    """Which message a line carries. Each names the code that prints it (see patterns.py)."""

    INIT_FAILED = "init-failed"
    """`Failed to initialize cutlass TMA WS grouped gemm. Error: <status>` (launcher)."""
    CAN_IMPLEMENT_FAILED = "can-implement-failed"
    """`Grouped GEMM kernel will fail for params. Error: <status>` (launcher, can_implement)."""
    RUN_FAILED = "run-failed"
    """`Failed to run cutlass TMA WS grouped gemm. Error: <status>` (launcher, run)."""
    SMEM_EXCEEDS_DEVICE = "smem-exceeds-device"
    """`MoE grouped GEMM requires N bytes shared memory but device supports M` (TensorRT-LLM)."""
    TMA_DESCRIPTOR = "tma-descriptor"
    """`Failed to initialize the TMA descriptor N` (cute, cuTensorMapEncodeTiled's CUresult)."""
    ZERO_OCCUPANCY = "zero-occupancy"
    """`GPU lacks the shared memory resources to run GroupedGEMM kernel` (CUTLASS 2.x path)."""
    ZERO_OCCUPANCY_FUSED = "zero-occupancy-fused"
    """`GPU lacks the shared memory resources to run fused_moe kernel` (the SM80 fused-MoE
    launcher: GEMM 1 with a gated activation on the 16-bit runners)."""
    INVALID_ACTIVATION = "invalid-activation"
    """`Invalid activation type` (the runner has no epilogue for the activation asked for)."""
    NO_KERNEL_IMAGE = "no-kernel-image"
    """`no kernel image is available for execution on the device` (cudaErrorNoKernelImageForDevice:
    the binary has no code for this device's arch)."""
    STICKY_CUDA_ERROR = "sticky-cuda-error"
    """`an illegal instruction was encountered` and the other errors a faulting kernel leaves in
    the context (cudaErrorIllegalInstruction, ...): every later call fails with it."""
    GEMM_RUNNER_FAILED = "gemm-runner-failed"
    """`[MXFP8 SM120 gemm Runner] Failed to initialize cutlass MXFP8 gemm on sm120. Error: <status>`:
    a dense GEMM runner's launcher threw (initialize, run, can_implement or workspace); the
    message names the runner by its bracketed prefix, never the tactic."""
    UNRECOGNIZED = "unrecognized"
    """A line that says a tactic or kernel failed, in no shape cutlint reads: counted and shown,
    so that a log holding a failure is never reported clean."""
    UNSUPPORTED_TILE = "unsupported-tile"
    """`Unsupported tile (M, N, K) and cluster (a, b, c) shape combination for arch S`."""
    SKIPPED_SUMMARY = "skipped-summary"
    """`[Autotuner]: Skipped N unsupported tactic(s) for <custom_op>` (FlashInfer autotuner)."""


class LogSite(Record):
    """Where the failing check sits, as the writing machine printed it: `(<path>:<line>)`."""

    path: str = Field(description="the path as printed; it names a file on another machine")
    name: str = Field(description="the file name alone, which is what survives the move")
    line: int = Field(
        description="__LINE__ of the check: for a check inside the INSTANTIATE "
        "macro, the line of the macro name in the generated file"
    )

    @property
    def generated(self) -> bool:
        """Whether the site is a generated instantiation file (else a header or launcher)."""
        return self.name.endswith(".generated.cu")


class LogEvent(Record):
    """One failure, or one autotuner summary, read off one line of a log."""

    kind: LogEventKind
    line_no: int = Field(description="1-based line in the log")
    text: str = Field(description="the line, without its logger prefix")
    tactic: int | None = Field(default=None, description="the autotuner's tactic id, if printed")
    tactic_text: str | None = Field(
        default=None, description="the tactic as printed, when it is not a plain int ([32, 15])"
    )
    runner: str | None = Field(default=None, description="the runner class, e.g. MoERunner")
    custom_op: str | None = Field(
        default=None, description="the autotuned op, e.g. trtllm::fused_moe::gemm2"
    )
    site: LogSite | None = None
    status: str | None = Field(default=None, description="CUTLASS status string: Error Internal")
    smem_required: int | None = None
    smem_available: int | None = None
    cu_result: int | None = Field(
        default=None,
        description="CUresult of cuTensorMapEncodeTiled (1 bad params, 700/715 sticky), or the "
        "cudaError_t of a sticky CUDA error (715: an illegal instruction)",
    )
    tile: Shape3 | None = Field(default=None, description="the CTA tile in elements, as printed")
    cluster: Shape3 | None = None
    arch_sm: int | None = Field(default=None, description="the arch the message names, e.g. 120")
    count: int | None = Field(default=None, description="how many tactics a summary counts")
    runner_message: str | None = Field(
        default=None,
        description="a dense GEMM runner's message from its bracketed prefix on: "
        "`[FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120. Error: Error Internal`",
    )
    repeated_at: tuple[int, ...] = Field(
        default=(),
        description="later lines that say exactly this, in the same context (one event for a "
        "failure a log repeats a million times)",
    )

    @property
    def line_nos(self) -> tuple[int, ...]:
        """Every line that carries this event."""
        return (self.line_no, *self.repeated_at)


class LogFile(Record):
    """A whole log: its events in order, and what the log says about the process that wrote it."""

    path: str
    lines: int
    events: tuple[LogEvent, ...] = ()
    flashinfer_versions: tuple[str, ...] = Field(
        default=(),
        description="FlashInfer versions named by JIT cache paths in the log "
        "(`.cache/flashinfer/<version>/<arch>/...` in stack frames), in order of appearance",
    )
    cut_lines: int = Field(
        default=0, description="lines longer than logs.reader.MAX_LINE, read up to that length"
    )
    dropped_events: int = Field(
        default=0, description="failure lines past the first logs.reader.MAX_EVENTS distinct ones"
    )
    unreadable_lines: int = Field(
        default=0,
        description="lines with a failure message's words but a number more than the C++ type "
        "the launcher prints it as holds: not that message, so not read",
    )
