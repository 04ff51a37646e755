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
    SMEM_STATED = "smem-stated"
    """A line that states the bytes a kernel asked for (and often the limit): CUTLASS's trace
    (`Setting smem size to N` then `cudaFuncSetAttribute() returned error`), CuTe DSL's
    `Allocated: N bytes. Max: M bytes.`, xformers' `SmXY does not have enough shared-memory`."""
    DISPATCH_GAP = "dispatch-gap"
    """The launcher holds no kernel for this device or these inputs: vLLM's `No compiled
    cutlass_scaled_mm for CUDA device capability: 120`, xformers' `no kernel found to launch`."""
    UNSUPPORTED_TILE_CONFIG = "unsupported-tile-config"
    """`Unsupported tile shape config 256256128 for MoE gemm` (the tile switch's default case)."""
    CALLER_FAILED = "caller-failed"
    """A hand-written caller's CUTLASS failure (vLLM, SGLang, PyTorch): `Error Internal
    (...cutlass_gemm_caller.cuh:61)`, `Failed to initialize GEMM`: the caller's file and line,
    not the kernel."""
    HOST_VALIDATION = "host-validation"
    """A launcher's check of its arguments before any kernel: `fc1 weight block size must be`."""
    STATIC_ASSERT = "static-assert"
    """nvcc's `error: static assertion failed with "..."` in a CUTLASS header (class C)."""
    ARCH_UNSUPPORTED = "arch-unsupported"
    """An op built or admitted for other arches: CuTe DSL's `expects arch to be one of [...]`,
    PyTorch's `with CUDA capability sm_120 is not compatible with the current PyTorch`."""
    CUDA_ERROR = "cuda-error"
    """A CUDA runtime or driver error by name, number or text that is neither sticky nor a
    missing kernel image (logs/data/cuda.toml gives each its class, if any)."""
    LIBRARY_ERROR = "library-error"
    """A vendor library's own status (cuBLAS through TransformerEngine's check_cublas_): no
    CUTLASS kernel cutlint models."""


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
    grammar: str | None = Field(
        default=None,
        description="the id of the logs/data message that read the line (`vllm.no-compiled-"
        "scaled-mm`); None for a line no message reads",
    )
    capability: int | None = Field(
        default=None, description="the compute capability the line names, as SM (120 for 12.0)"
    )
    step: str | None = Field(
        default=None, description="the launcher step the line names: initialize, run, implement"
    )
    detail: str | None = Field(
        default=None,
        description="what the message quotes: a static_assert's text, a CUDA error's name, an "
        "op name, the admissible arches",
    )
    activation: int | None = Field(
        default=None, description="the ActivationType number `Invalid activation type: N` prints"
    )
    exception: str | None = Field(
        default=None,
        description="the exception the message was raised as, when the log says: the Python "
        "type before the message, or the C++ type of `terminate called after throwing`",
    )
    frame: str | None = Field(
        default=None,
        description="the innermost Python frame of the traceback the message ends "
        "(`vllm/_custom_ops.py:236 in cutlass_scaled_mm`): which op raised it",
    )
    joined: tuple[int, ...] = Field(
        default=(),
        description="later lines joined into this message (a message broken across lines, or "
        "the bytes of a trace line above)",
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


class ReleaseSaid(Record):
    """A place where the log names the FlashInfer release its process ran."""

    version: str
    said_by: str = Field(
        description="`JIT cache path` (`.cache/flashinfer/<version>/<arch>/`), `version banner` "
        "(`flashinfer-python==0.6.3`) or `wheel path` (`flashinfer_python-0.6.3-...whl`)"
    )
    line_no: int
    text: str = Field(description="the words that say it, as logged")


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
    flashinfer_said: tuple[ReleaseSaid, ...] = Field(
        default=(),
        description="every place the log names a FlashInfer release (JIT cache paths, version "
        "banners, wheel paths), the first of each release and kind, in order of appearance",
    )
    cut_lines: int = Field(
        default=0, description="lines longer than logs.reader.MAX_LINE, read up to that length"
    )
    dropped_events: int = Field(
        default=0, description="failure lines past the first logs.reader.MAX_EVENTS distinct ones"
    )
    skipped_lines: int = Field(
        default=0,
        description="lines read as no failure: stack frames, the source lines under them, "
        "PyTorch's hints (`Search for cudaErrorIllegalInstruction in ...`)",
    )
    unreadable_lines: int = Field(
        default=0,
        description="lines with a failure message's words but a number more than the C++ type "
        "the launcher prints it as holds: not that message, so not read",
    )
