"""The log grammars as data (analyzer/cutlint/logs/data/*.toml) and the reader's joins and floor."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from cutlint.logs import LogEventKind, parse_log
from cutlint.logs.grammar import (
    CLASSES,
    FIELDS,
    NO_EVENT,
    cuda_errors,
    grammar,
    match,
    messages,
)
from cutlint.logs.lines import body

CORPUS = Path(__file__).parent / "data" / "corpus.toml"


def test_every_message_names_its_source_class_fields_and_needles() -> None:
    ids = [m.id for m in messages()]
    assert len(ids) == len(set(ids))
    for m in messages():
        assert m.kind in NO_EVENT or LogEventKind(m.kind), m.id
        assert m.failure_class is None or m.failure_class in CLASSES, m.id
        assert m.source.strip() and m.means.strip(), m.id
        groups = set(re.compile(m.pattern).groupindex)
        assert groups <= FIELDS, (m.id, groups - FIELDS)
        assert set(m.fields) == groups, m.id  # the fields it says it carries are its groups
        assert m.needles and all(n == n.lower() for n in m.needles), m.id
        if m.kind == "context":
            assert m.context in ("smem-size", "exception"), m.id
    producers = {m.producer for m in messages()}
    for name in ("FlashInfer", "TensorRT-LLM", "vLLM", "SGLang", "CUTLASS", "CuTe DSL",
                 "TransformerEngine", "xformers", "PyTorch", "CUDA runtime"):  # fmt: skip
        assert name in producers


def test_the_patterns_are_compiled_once() -> None:
    assert grammar() is grammar()
    assert all(p is q for (_, p), (_, q) in zip(grammar(), grammar(), strict=True))


def test_the_cuda_table_has_one_number_per_name() -> None:
    errors = cuda_errors()
    assert len({e.number for e in errors}) == len({e.name for e in errors}) == len(errors)
    by_name = {e.name: e for e in errors}
    assert by_name["cudaErrorIllegalInstruction"].number == 715
    assert by_name["cudaErrorNoKernelImageForDevice"].number == 209
    assert by_name["cudaErrorInvalidValue"].text == "invalid argument"


def _brute(text: str) -> str | None:
    for message, pattern in grammar():
        if pattern.search(text):
            return message.id
    return None


def test_needles_never_hide_a_message_from_a_real_line() -> None:
    """The substring pre-test is an optimization only: on every line of the corpus the message
    read with it is the one read without it."""
    lines = [x for c in tomllib.loads(CORPUS.read_text())["case"] for x in c["lines"]]
    for line in lines:
        text = body(line)
        found = match(text)
        assert (found[0].id if found else None) == _brute(text), line


def test_the_issue_lines_are_read() -> None:
    """Issue 21's lines, each by the message its producer prints."""
    text = "\n".join(
        [
            "RuntimeError: cutlass_gemm_caller, /workspace/csrc/libtorch_stable/quantization/w8a8/"
            "cutlass/c3x/cutlass_gemm_caller.cuh:61, Error Internal",
            "RuntimeError: Failed to initialize GEMM",
            "RuntimeError: GEMM initialization failed",
            "NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 120. "
            "Required capability: 90 or 100",
            "Failed to initialize cutlass TMA WS grouped gemm",
            "Error Internal no error",
            "RuntimeError: Failed to run cutlass FP4 gemm on sm120 (/sgl-kernel/csrc/gemm/"
            "nvfp4_scaled_mm_sm120.cuh:175)",
            "cudaErrorIllegalInstruction",
            "cudaErrorNoKernelImageForDevice",
            "Unsupported tile shape config 256256128",
            "fc1 weight block size must be (num_experts_on_rank, inter_size * 2, hidden_size // 16)",
            "Invalid activation type.",
        ]
    )
    events = parse_log(text).events
    assert [(e.line_no, e.kind) for e in events] == [
        (1, LogEventKind.CALLER_FAILED),
        (2, LogEventKind.CALLER_FAILED),
        (3, LogEventKind.CALLER_FAILED),
        (4, LogEventKind.DISPATCH_GAP),
        (5, LogEventKind.INIT_FAILED),
        (6, LogEventKind.CALLER_FAILED),
        (7, LogEventKind.CALLER_FAILED),
        (8, LogEventKind.STICKY_CUDA_ERROR),
        (9, LogEventKind.NO_KERNEL_IMAGE),
        (10, LogEventKind.UNSUPPORTED_TILE_CONFIG),
        (11, LogEventKind.HOST_VALIDATION),
        (12, LogEventKind.INVALID_ACTIVATION),
    ]
    caller, _, _, gap, *_ = events
    # the fields the mapping of a caller to its kernels needs (another reader's work)
    assert caller.site is not None
    assert (caller.site.name, caller.site.line, caller.status, caller.detail) == (
        "cutlass_gemm_caller.cuh",
        61,
        "Error Internal",
        "cutlass_gemm_caller",
    )
    assert (gap.capability, gap.detail, gap.exception) == (
        120,
        "cutlass_scaled_mm",
        "NotImplementedError",
    )
    fp4 = events[6]
    assert (fp4.site and fp4.site.name, fp4.capability, fp4.step) == (
        "nvfp4_scaled_mm_sm120.cuh",
        120,
        "run",
    )
    assert events[7].cu_result == 715 and events[8].cu_result == 209
    assert events[9].tile is not None and str(events[9].tile) == "256x256x128"


def test_pytorchs_hint_is_not_a_second_failure() -> None:
    text = (
        "RuntimeError: CUDA error: an illegal instruction was encountered\n"
        "Search for `cudaErrorIllegalInstruction' in https://docs.nvidia.com/cuda/"
        "cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    )
    log = parse_log(text)
    (e,) = log.events
    assert (e.kind, e.cu_result) == (LogEventKind.STICKY_CUDA_ERROR, 715)
    assert log.skipped_lines == 4


def test_cutlass_trace_bytes_join_the_refusal_under_them() -> None:
    text = (
        "cutlass/gemm/device/gemm_universal_adapter.h:336    Setting smem size to 234496\n"
        "cutlass/gemm/device/gemm_universal_adapter.h:343    cudaFuncSetAttribute() returned "
        "error: invalid argument\n"
    )
    (e,) = parse_log(text).events
    assert (e.kind, e.line_no, e.smem_required, e.joined) == (
        LogEventKind.SMEM_STATED,
        2,
        234496,
        (1,),
    )


def test_a_message_broken_across_two_lines_is_one_event() -> None:
    text = (
        "NotImplementedError: No compiled cutlass_scaled_mm for a compute capability\n"
        "less than CUDA device capability: 121\n"
    )
    (e,) = parse_log(text).events
    assert (e.kind, e.line_no, e.joined, e.capability) == (
        LogEventKind.DISPATCH_GAP,
        1,
        (2,),
        121,
    )
    assert e.text.endswith("capability less than CUDA device capability: 121")


def test_a_traceback_is_one_failure_with_its_frame() -> None:
    """The frames' source lines say `raise RuntimeError(...)`: not failures of their own."""
    text = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/x/vllm/_custom_ops.py", line 236, in cutlass_scaled_mm',
            '    raise RuntimeError("cutlass failed: Error Internal")',
            '  File "/x/torch/_ops.py", line 854, in __call__',
            "    return self_._op(*args, **(kwargs or {}))",
            "RuntimeError: Error Internal",
        ]
    )
    (e,) = parse_log(text).events
    assert (e.line_no, e.exception, e.frame) == (
        6,
        "RuntimeError",
        "vllm/_custom_ops.py:236 in cutlass_scaled_mm",
    )


def test_a_cpp_what_line_carries_its_exception_type() -> None:
    text = (
        "terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n"
        "  what():  [TensorRT-LLM][ERROR] Assertion failed: GPU lacks the shared memory "
        "resources to run GroupedGEMM kernel (/x/moe_gemm_kernels_template.h:122)\n"
    )
    (e,) = parse_log(text).events
    assert (e.kind, e.exception) == (
        LogEventKind.ZERO_OCCUPANCY,
        "tensorrt_llm::common::TllmException",
    )


def test_the_floor_counts_every_error_word_and_shows_the_line_whole() -> None:
    """A line no message reads but with an error word is `unrecognized`, shown from its first
    word (only a logger's prefix is cut), never with an empty text."""
    text = "\n".join(
        [
            "ninja: build stopped: subcommand failed.",
            "(EngineCore_DP0 pid=1) ERROR 01-10 22:23:50 [core.py:936] ValueError: something odd",
            "a value was illegal here",
            "static assertion in a header we do not know",
            "INFO: error rate 0.0, kernel time 12 us",
        ]
    )
    events = parse_log(text).events
    assert [e.kind for e in events] == [LogEventKind.UNRECOGNIZED] * 4
    assert [e.text for e in events] == [
        "ninja: build stopped: subcommand failed.",
        "ValueError: something odd",
        "a value was illegal here",
        "static assertion in a header we do not know",
    ]


def test_the_log_messages_page_is_not_stale() -> None:
    from cutlint.logs.doc import page

    path = Path(__file__).parents[2] / "docs" / "log-messages.md"
    assert path.read_text() == page(), (
        "docs/log-messages.md is stale: run python -m cutlint.logs.doc docs/log-messages.md"
    )


def test_every_pattern_is_linear_on_long_hostile_lines() -> None:
    """An 80,000-character line made of a message's own needles and the characters its groups
    take costs milliseconds per pattern, not seconds (no nested unbounded quantifiers)."""
    import time

    for message, pattern in grammar():
        for filler in ("a", "/", "0", " ", "Error ", ", "):
            line = (" ".join(message.needles) + " " + filler * 40) * 800
            start = time.process_time()
            pattern.search(line[:80_000])
            spent = time.process_time() - start
            assert spent < 0.5, (message.id, repr(filler), spent)
