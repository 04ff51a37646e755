"""The reader's own patterns: the autotuner's context (tactic, op being tuned, JIT cache paths),
the floor's error words, stack frames and the loggers' prefixes. The failure messages themselves
are data (logs/data/<producer>.toml, read by logs.grammar).

Frameworks wrap messages in their own logger prefixes (vLLM's `(Worker_PP0 pid=1) INFO
11-11 06:41:27 [autotuner.py:485]`, SGLang's `[2025-11-11 06:41:27 TP0]`, Python's
`2025-11-11 06:41:27,319 - WARNING - autotuner.py:485 - flashinfer.jit:`), so every pattern is
searched anywhere in a line and none is anchored at its start (PREFIX only cuts them off the
text shown).

Every pattern runs in time linear in the line: no two quantifiers that can match the same text
follow one another unbounded (a lazy run is bounded, a run that must not give back is
possessive, `*+`), so that an 80,000-character line costs milliseconds, not seconds
(tests/logs/test_log_grammar.py times each grammar pattern on hostile lines; tests/fuzz the
reader on the fuzz corpus).
"""

from __future__ import annotations

import re

# An op name: `trtllm::fused_moe::gemm2`, `flashinfer::trtllm_fp4_block_scale_moe`.
_OP = r"\w+(?:(?:::|\.)\w+)*"

# CUTLASS's status strings (cutlass/cutlass.h: cutlassGetStatusString): "Error Internal",
# "Error Invalid Problem", "Error Misaligned Operand", ...
_STATUS = r"(?P<status>Error(?: [A-Z][a-z]++){1,8}|Success|Invalid status)"

# The failure messages themselves are data: logs/data/<producer>.toml, loaded and compiled once
# by logs.grammar.

# The CUTLASS status a dense GEMM runner's message ends with (searched after its prefix; the
# workspace message has none).
RUNNER_STATUS = re.compile(r"Error: " + _STATUS)

# The floor under every log: a line with one of these words that no message of the grammars
# reads is an `unrecognized` event (shown as logged, counted), so that a log holding a failure
# is never reported clean. Case matters where the word alone is common prose (`Error` and
# `Failed` as words, `error:` with its colon, `failed` as a word); the CUDA error names are
# the runtime's and the driver's.
FLOOR = re.compile(
    r"\bError\b|\berror\s*:|\b[Ff]ailed\b|\bInternal\b|invalid argument|[Ii]llegal"
    r"|static assertion|\bcudaError[A-Z]\w*|\bCUDA_ERROR_[A-Z_]+|\bAssertion\b"
    # an exception's type before its message: `NotImplementedError: ...`, `OpError: ...`
    r"|[a-z]Error: |[a-z]Exception: "
)

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
    # nvcc's summary of a failed compile: "8 errors detected in the compilation of ..."
    "detected in the compilation",
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

_RELEASE = r"(?P<version>\d+\.\d+\.\d+(?:(?:a|b|rc|\.post|\.dev)\d+)*)"

# What else a log says of the FlashInfer release its process ran: a version banner, as pip
# (`flashinfer-python==0.6.3`, vLLM's collect_env `[pip3] flashinfer-python==0.6.3`) or a
# script (`FlashInfer version: 0.6.3`, `flashinfer.__version__ = 0.6.3`) prints it, and the
# wheel or its installed metadata in a path (`flashinfer_python-0.6.3-py3-none-any.whl`,
# `flashinfer_python-0.6.3.dist-info`; PEP 427 / PEP 376 names, a local version `+cu128` allowed).
FLASHINFER_SAID = (
    (
        "version banner",
        re.compile(
            r"(?i)\bflashinfer(?:[-_]python)?"
            r"(?:\s*==\s*|\s+version\s*[:=]?\s*|\.__version__\s*[:=]+\s*)v?" + _RELEASE
        ),
    ),
    (
        "wheel path",
        re.compile(r"flashinfer_python-" + _RELEASE + r"(?:\+[\w.]+)?(?:-|\.dist-info)"),
    ),
)
FLASHINFER_SAID_WORDS = ("flashinfer-python", "flashinfer_python", "flashinfer version", "flashinfer==", "flashinfer.__version__")  # fmt: skip
"""What a line that FLASHINFER_SAID reads holds (lower-case): the cheap test before the search."""

# Words (lower-case) one of the grammars' messages, the floor or the autotuner context needs: a
# line without any is skipped at once (most of a log), with one substring test per word.
WORTH_READING = (
    "fail", "error", "internal", "invalid", "illegal", "assert", "cuda", "misaligned",
    "kernel image", "activation type", "requires", "gpu lacks", "unsupported", "skipp",
    "tactic=", "tuning", "flashinfer/", "setting smem size", "allocated: ", "shared-memory",
    "shared memory", "no kernel found", "no operator", "no compiled", "not compatible",
    "expects arch", "must be", "terminate called", "cannot initialize", "search for",
    "frame #", "exception", "kerror", "what():", "detected in the compilation", "cublas",
    "cudnn", "device limit size",
)  # fmt: skip
FLOOR_WORDS = (
    "error", "fail", "internal", "invalid argument", "illegal", "static assertion",
    "assertion", "exception: ",
)  # fmt: skip
"""What FLOOR needs one of (lower-case): the cheap test before the search."""

# A frame of a Python traceback (`  File "/x/vllm/_custom_ops.py", line 236, in cutlass_scaled_mm`):
# the line under it is the frame's source line, not a message, whatever words it holds.
FRAME = re.compile(r'^\s*File "(?P<path>[^"]{1,400})", line (?P<line>\d+), in (?P<func>[\w<>.]+)')
# The line a traceback ends with: `RuntimeError: <message>` (the exception's type first).
EXCEPTION = re.compile(
    r"^\s*(?P<type>(?:[A-Za-z_]\w*\.){0,6}[A-Za-z_]\w*(?:Error|Exception))(?::|$)"
)
# A C++ stack frame as TensorRT-LLM's backtrace prints it (`1       0x7c6dd0a58b16 tensorrt_llm::
# common::throwRuntimeError(...)`): a frame, not a message, though it names `RuntimeError`.
CPP_FRAME = re.compile(r"^\s*\d{1,3}\s+0x[0-9a-fA-F]{6,16}\s")

# The loggers' prefixes, cut off the front of a line before it is shown (repeatedly: vLLM nests
# its worker's under the engine's): vLLM's `(Worker_PP0 pid=1)` and `ERROR 01-10 22:23:50
# [core.py:936]`, Python logging's `2025-11-11 06:41:27,319 - WARNING - autotuner.py:485 -
# flashinfer.jit:`, SGLang's `[2024-12-07 02:54:42 TP3]`, TensorRT-LLM's `[02/05/2026-06:58:48]
# [TRT-LLM] [E]`, torchrun's `[rank0]:`, glog's `W0306 14:40:15.990000 1719866 file.py:1517]`.
PREFIX = re.compile(
    r"^(?:\((?:\w+)(?: pid=\d+)?(?:, ip=[\d.]+)?\) "
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) +\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.]+:\d+\] "
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)? - [A-Z]+ - (?:[\w.]+:\d+ - )?[\w.]+: "
    r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z]+\d*)*\] "
    r"|\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] (?:\[TRT-LLM\] )?(?:\[[A-Z]\] )?"
    r"|\[rank\d+\]: ?"
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\s\]]+:\d+\] (?:\[[\d/]+\] )?)"
)

# C++'s `  what():  <message>`: the message of the exception the line above names.
WHAT = re.compile(r"^\s*what\(\): +")
