"""The messages cutlint reads in logs, each with the code that prints it.

Frameworks wrap these messages in their own logger prefixes (vLLM's `(Worker_PP0 pid=1) INFO
11-11 06:41:27 [autotuner.py:485]`, SGLang's `[2025-11-11 06:41:27 TP0]`, Python's
`2025-11-11 06:41:27,319 - WARNING - autotuner.py:485 - flashinfer.jit:`), so every pattern is
searched anywhere in a line and none is anchored at its start.

Every pattern runs in time linear in the line: no two quantifiers that can match the same text
follow one another unbounded (a lazy run is bounded, a run that must not give back is
possessive, `*+`), so that an 80,000-character line costs milliseconds, not seconds
(tests/logs/test_log_reader.py times each pattern on adversarial lines).

Paths below are FlashInfer's `data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/`
(TensorRT-LLM's `cpp/tensorrt_llm/kernels/cutlass_kernels/`) unless they say otherwise.
"""

from __future__ import annotations

import re

from cutlint.logs.events import LogEventKind

# An op name: `trtllm::fused_moe::gemm2`, `flashinfer::trtllm_fp4_block_scale_moe`.
_OP = r"\w+(?:(?:::|\.)\w+)*"

# CUTLASS's status strings (cutlass/cutlass.h: cutlassGetStatusString): "Error Internal",
# "Error Invalid Problem", "Error Misaligned Operand", ...
_STATUS = r"(?P<status>Error(?: [A-Z][a-z]++){1,8}|Success|Invalid status)"

FAILURES: tuple[tuple[LogEventKind, re.Pattern[str]], ...] = (
    # TensorRT-LLM >= #12704, moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl: a check of
    # sizeof(GemmKernel::SharedStorage) against the device's opt-in limit before initialize().
    (
        LogEventKind.SMEM_EXCEEDS_DEVICE,
        re.compile(
            r"requires (?P<required>\d+) bytes (?:of )?shared memory,? but (?:the )?device "
            r"supports (?:only )?(?P<available>\d+)"
        ),
    ),
    # FlashInfer's dense GEMM launchers: `throw std::runtime_error("[MXFP8 SM120 gemm Runner] " +
    # errMsg)` (include/flashinfer/gemm/mxfp8_gemm_template_sm120.h), `"[FP4 gemm Runner" +
    # scheduler_name + "] "` (fp4_gemm_template_sm120.h: "" or " StreamK"), and the other
    # runners' `[Fp8 Gemm Runner]`, `[Bf16 Gemm Runner]`: the prefix names the runner, the words
    # after it the step that failed (workspace, can_implement, initialize, run).
    (
        LogEventKind.GEMM_RUNNER_FAILED,
        re.compile(
            r"\[(?P<prefix>[A-Za-z0-9]{1,16}(?: [A-Za-z0-9]{1,16}){0,3} [Gg]emm Runner"
            r"(?: [A-Za-z]{1,16})?)\] (?:Failed to (?:initialize|run) cutlass|"
            r"[\w ]{0,64}?kernel will fail for params|Requested workspace size insufficient)"
        ),
    ),
    # FlashInfer's SM120 SVDQuant GEMM (include/flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h,
    # run_tactic): `throw std::runtime_error("nvfp4_svdquant_gemm (sm120): initialize failed")`,
    # "... can_implement failed", "... run failed", std::invalid_argument "... insufficient
    # workspace": the same runner failure, named by its own prefix, with no cutlass status.
    (
        LogEventKind.GEMM_RUNNER_FAILED,
        re.compile(
            r"nvfp4_svdquant_gemm \(sm120\): (?:initialize failed|run failed|can_implement "
            r"failed|insufficient workspace)"
        ),
    ),
    # moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl (and the mixed-input launcher):
    # TLLM_CHECK_WITH_INFO(init_status == kSuccess, "Failed to initialize cutlass TMA WS ...").
    (
        LogEventKind.INIT_FAILED,
        re.compile(r"Failed to initialize cutlass [\w ]{0,64}?grouped gemm\. Error: " + _STATUS),
    ),
    # The same launchers, can_implement(): "Grouped GEMM kernel will fail for params. Error: ..."
    # (moe_gemm_template_dispatch.h: "MoE FC kernel will fail for params" on the 2.x path).
    (
        LogEventKind.CAN_IMPLEMENT_FAILED,
        re.compile(
            r"(?:Grouped GEMM|MoE FC|grouped cutlass) kernel will fail for params\. "
            r"Error: " + _STATUS
        ),
    ),
    (
        LogEventKind.RUN_FAILED,
        re.compile(r"Failed to run cutlass [\w ]{0,64}?grouped gemm\. Error: " + _STATUS),
    ),
    # CUTLASS cute/atom/copy_traits_sm90_tma.hpp (make_tma_copy_desc): printed when
    # cuTensorMapEncodeTiled returns a CUresult other than CUDA_SUCCESS.
    (
        LogEventKind.TMA_DESCRIPTOR,
        re.compile(r"Failed to initialize the TMA descriptor (?P<cu_result>-?\d+)"),
    ),
    # moe_gemm/launchers/fused_moe_gemm_launcher_sm80.inl: TLLM_CHECK_WITH_INFO(occupancy > 0,
    # "GPU lacks the shared memory resources to run fused_moe kernel").
    (
        LogEventKind.ZERO_OCCUPANCY_FUSED,
        re.compile(r"GPU lacks the shared memory resources to run fused_moe kernel"),
    ),
    # moe_gemm/moe_gemm_template_dispatch.h (genericMoeGemmKernelLauncher::call): occupancy == 0
    # on the CUTLASS 2.x path ("... to run GroupedGEMM kernel"), and any other kernel so named.
    (
        LogEventKind.ZERO_OCCUPANCY,
        re.compile(r"GPU lacks the shared memory resources to run (?P<what>\w++) kernel"),
    ),
    # moe_gemm/moe_gemm_template_dispatch_tma_ws.h, SHAPE_CASE of
    # dispatchMoeGemmSelectClusterShapeTmaWarpSpecialized: the tile is printed in elements.
    (
        LogEventKind.UNSUPPORTED_TILE,
        re.compile(
            r"Unsupported tile \((?P<m>\d+), ?(?P<n>\d+), ?(?P<k>\d+)\) and cluster "
            r"\((?P<cm>\d+), ?(?P<cn>\d+), ?(?P<ck>\d+)\) shape combination for arch (?P<sm>\d+)"
        ),
    ),
    # moe_gemm/moe_gemm_template_dispatch.h, MoeGemmRunner::moeGemmBiasAct: `default:
    # TLLM_THROW("Invalid activation type.")`; fused_moe/cutlass_backend/
    # cutlass_fused_moe_kernels.cuh, doGatedActivation: TLLM_CHECK_WITH_INFO(fn != nullptr,
    # "Invalid activation type"); trtllm_fused_moe_kernel_launcher.cu: "Invalid activation type: N".
    (
        LogEventKind.INVALID_ACTIVATION,
        re.compile(r"Invalid activation type"),
    ),
    # CUDA runtime, cudaGetErrorString(cudaErrorNoKernelImageForDevice = 209).
    (
        LogEventKind.NO_KERNEL_IMAGE,
        re.compile(r"no kernel image is available for execution on the device"),
    ),
    # CUDA runtime, cudaGetErrorString of the errors a faulting kernel leaves in the context
    # (STICKY_ERRORS below gives each its code).
    (
        LogEventKind.STICKY_CUDA_ERROR,
        re.compile(
            r"(?P<sticky>an illegal instruction was encountered|an illegal memory access was "
            r"encountered|misaligned address|unspecified launch failure|hardware stack error)"
        ),
    ),
    # flashinfer/autotuner.py (0.6.x) / autotuner/autotuner.py (0.7.x), choose_one.
    (
        LogEventKind.SKIPPED_SUMMARY,
        re.compile(r"Skipped (?P<count>\d+) unsupported tactic\(s\) for (?P<op>" + _OP + r")"),
    ),
)

# The CUTLASS status a dense GEMM runner's message ends with (searched after its prefix; the
# workspace message has none).
RUNNER_STATUS = re.compile(r"Error: " + _STATUS)

STICKY_ERRORS = {
    "an illegal memory access was encountered": 700,  # cudaErrorIllegalAddress
    "hardware stack error": 714,  # cudaErrorHardwareStackError
    "an illegal instruction was encountered": 715,  # cudaErrorIllegalInstruction
    "misaligned address": 716,  # cudaErrorMisalignedAddress
    "unspecified launch failure": 719,  # cudaErrorLaunchFailure
}
"""cudaGetErrorString text -> cudaError_t (driver_types.h; the same numbers as the CUresults)."""

# A line that says a tactic or kernel failed, whatever the message (lower-cased substrings, so
# the test is linear in the line): a failure line no pattern above reads is an `unrecognized`
# event, unless a failure the reader recognizes follows within a few lines (a message printed
# on the next line).
FAILURE_SIGNALS = (
    "skipping tactic",
    "failed when profiling",
    "failure while profiling",
    "[tensorrt-llm][error]",
    "assertion failed",
    "cuda error",
    "cuda_error_",
    "cudaerror",
    "failed to launch",
    "kernel launch failed",
    "kernel failed",
    # FlashInfer's CUTLASS_CHECK (include/flashinfer/cutlass_utils.cuh, gemm/group_gemm_sm90.cuh):
    # "Got cutlass error: <status> at: <line>", what the grouped SM120 GEMMs (FP8, MXFP4, NVFP4
    # groupwise) print: no runner prefix and no tactic, so shown as logged rather than dropped.
    "got cutlass error",
)

# The check's location, appended by TLLM_CHECK_WITH_INFO / TLLM_THROW
# (tensorrt_llm/common/assert.h, tllmException.cpp): `... (<file>:<line>)`. The path is matched
# as one run and its file name checked against SITE_NAME afterwards: a lazy path followed by a
# greedy name over the same characters was quadratic in the length of the parenthesis.
SITE = re.compile(r"\((?P<path>[^()\s]*):(?P<line>\d+)\)")
SITE_NAME = re.compile(r"[^/\\()\s:]+\.(?:cu|cuh|h|hpp|inl|cpp|cc)")

# A runner as Python prints an object without __repr__: `<pkg.mod.<locals>.MoERunner object at
# 0x7c70ccce8350>`; `<locals>` nests angle brackets, so the qualified name is matched loosely.
_RUNNER = r"<(?:[\w.<>]+\.)?(?P<runner>\w++) object at 0x[0-9a-fA-F]++>"
_TACTIC = r"(?P<tactic>-?\d++|\[[^\]]*+\]|\([^)]*+\))"

TACTIC_CONTEXT: tuple[re.Pattern[str], ...] = (
    # FlashInfer: "[Autotuner]: Skipping tactic {runner} {tactic}, due to failure while
    # profiling: {e}" and 0.7.x's "Skipping tactic {runner} {tactic} while ranking {op}: {e}".
    re.compile(
        r"Skipping tactic " + _RUNNER + " " + _TACTIC + r"(?: while ranking (?P<op>" + _OP + r"))?"
    ),
    # FlashInfer: "[Autotuner]: Failed when profiling {runner} {tactic}, shapes=..."
    re.compile(r"Failed when profiling " + _RUNNER + " " + _TACTIC),
    # TensorRT-LLM (tensorrt_llm/_torch/autotuner.py): "[Autotuner] Failed when profiling
    # runner=<...>, tactic=15, shapes=[...]".
    re.compile(r"runner=(?:" + _RUNNER + r"|(?P<runner_name>\w++)[^,]*+),\s*tactic=" + _TACTIC),
)

# "[AutoTuner]: Tuning trtllm::fused_moe::gemm1: 0/21": the op profiled by the lines that follow.
TUNING_OP = re.compile(r"\[Auto[Tt]uner\]:? Tuning (?P<op>" + _OP + r")")

# FlashInfer's JIT cache in paths of stack frames: `.cache/flashinfer/0.5.2/120a/cached_ops/...`
# (flashinfer/jit/env.py: FLASHINFER_CACHE_DIR / <version> / <arch>).
FLASHINFER_CACHE = re.compile(
    r"flashinfer/(?P<version>\d+\.\d+\.\d+(?:(?:a|b|rc|\.post|\.dev)\d+)*)/(?:sm_?)?\d{2,3}[af]?/"
)

# Words one of the patterns above needs: a line without any is skipped at once (most of a log).
WORTH_READING = re.compile(
    r"requires|Failed|fail for params|GPU lacks|Unsupported tile|Skipp|tactic=|Tuning|flashinfer/"
    # the CUDA errors, the activation check, and FAILURE_SIGNALS (any case)
    r"|(?i:fail|error|assertion|cuda|illegal|misaligned|kernel image|activation type)"
)

# Where a message starts once the logger prefix is cut off.
ANCHORS = re.compile(r"\[Auto[Tt]uner\]|\[TensorRT-LLM\]|RuntimeError: |Error: ")
