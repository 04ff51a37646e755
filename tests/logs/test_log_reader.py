"""The log reader: each message as FlashInfer, TensorRT-LLM, vLLM and SGLang print it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from cutlint.logs import LogEventKind, LogReadError, parse_log, read_log
from cutlint.records import Shape3

HEADLINE = (
    "[Autotuner]: Skipping tactic <flashinfer.fused_moe.core.get_cutlass_fused_moe_module.<locals>"
    ".MoERunner object at 0x7c70ccce8350> 15, due to failure while profiling: [TensorRT-LLM][ERROR] "
    "Assertion failed: Failed to initialize cutlass TMA WS grouped gemm. Error: Error Internal "
    "(/workspace/flashinfer/csrc/nv_internal/tensorrt_llm/cutlass_instantiations/120/gemm_grouped/"
    "120/cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu:60)"
)
M256 = "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"
PREFIXES = [
    "",
    "(Worker_PP0 pid=38385) 2025-11-11 06:41:27,319 - WARNING - autotuner.py:485 - flashinfer.jit: ",
    "(EngineCore_0 pid=77) WARNING 11-11 06:41:27 [autotuner.py:485] ",
    "[2025-11-11 06:41:27 TP0] ",
    "[TensorRT-LLM][WARNING] ",
]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_headline_line_under_every_framework_prefix(prefix: str) -> None:
    (e,) = parse_log(prefix + HEADLINE).events
    assert e.kind is LogEventKind.INIT_FAILED
    assert (e.tactic, e.runner, e.status) == (15, "MoERunner", "Error Internal")
    assert e.site is not None and e.site.generated
    assert (e.site.name, e.site.line) == (M256, 60)
    assert e.arch_sm == 120
    assert e.text.endswith(HEADLINE) and "pid=" not in e.text and "TP0" not in e.text


def test_each_message_kind_and_its_numbers() -> None:
    text = "\n".join(
        [
            "[TensorRT-LLM][ERROR] Assertion failed: MoE grouped GEMM requires 102400 bytes shared "
            f"memory but device supports 101376 (/build/cutlass_instantiations/120/gemm_grouped/120/{M256}:39)",
            "Error: Failed to initialize the TMA descriptor 715",
            "[TensorRT-LLM][ERROR] Assertion failed: GPU lacks the shared memory resources to run "
            "GroupedGEMM kernel (/w/moe_gemm_template_dispatch.h:176)",
            "Unsupported tile (128, 128, 64) and cluster (1, 1, 1) shape combination for arch 120.",
            "[Autotuner]: Skipped 20 unsupported tactic(s) for trtllm::fused_moe::gemm1",
            "Assertion failed: Grouped GEMM kernel will fail for params. Error: Error Invalid Problem",
            "Assertion failed: Failed to run cutlass TMA WS grouped gemm. Error: Error Internal",
        ]
    )
    kinds = [e.kind for e in parse_log(text).events]
    assert kinds == [
        LogEventKind.SMEM_EXCEEDS_DEVICE,
        LogEventKind.TMA_DESCRIPTOR,
        LogEventKind.ZERO_OCCUPANCY,
        LogEventKind.UNSUPPORTED_TILE,
        LogEventKind.SKIPPED_SUMMARY,
        LogEventKind.CAN_IMPLEMENT_FAILED,
        LogEventKind.RUN_FAILED,
    ]
    smem, tma, zero, tile, summary, can, run = parse_log(text).events
    assert (smem.smem_required, smem.smem_available, smem.site and smem.site.line) == (
        102400,
        101376,
        39,
    )
    assert tma.cu_result == 715
    assert zero.site is not None and not zero.site.generated
    assert (tile.tile, tile.cluster, tile.arch_sm) == (
        Shape3(m=128, n=128, k=64),
        Shape3(m=1, n=1, k=1),
        120,
    )
    assert (summary.count, summary.custom_op) == (20, "trtllm::fused_moe::gemm1")
    assert can.status == "Error Invalid Problem" and run.status == "Error Internal"


def test_the_tactic_of_an_autotuner_line_carries_to_the_error_below_it() -> None:
    """TensorRT-LLM's autotuner logs the tactic and the exception on separate lines."""
    text = (
        "[TensorRT-LLM][WARNING] [Autotuner] Failed when profiling runner=<tensorrt_llm._torch."
        "custom_ops.MoERunner object at 0x7f00>, tactic=15, shapes=[[8, 3584]].\n"
        "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Failed to initialize cutlass TMA WS "
        f"grouped gemm. Error: Error Internal (/b/{M256}:60)\n"
        + "unrelated\n" * 4
        + "Error: Failed to initialize the TMA descriptor 1\n"
    )
    init, tma = parse_log(text).events
    assert (init.tactic, init.runner) == (15, "MoERunner")
    assert tma.tactic is None  # too far below: another tactic's


def test_the_op_being_tuned_and_flashinfer_versions_in_stack_paths() -> None:
    text = (
        "[AutoTuner]: Tuning trtllm::fused_moe::gemm1: 0/21\n"
        "Error: Failed to initialize the TMA descriptor 715\n"
        "2  0x7c6d /home/u/.cache/flashinfer/0.5.2/120a/cached_ops/fused_moe_120/fused_moe_120.so\n"
    )
    log = parse_log(text)
    assert log.events[0].custom_op == "trtllm::fused_moe::gemm1"
    assert log.flashinfer_versions == ("0.5.2",)


def test_a_list_tactic_is_kept_as_printed() -> None:
    (e,) = parse_log(
        "[Autotuner]: Skipping tactic <x.MoERunner object at 0xff> [32, 15], due to failure while "
        "profiling: Failed to initialize the TMA descriptor 715"
    ).events
    assert (e.tactic, e.tactic_text) == (None, "[32, 15]")


def test_lines_without_failures_give_no_events() -> None:
    assert parse_log("[Autotuner]: Autotuning process ends\nINFO all good\n").events == ()


def test_unreadable_logs_are_errors(tmp_path: Path) -> None:
    with pytest.raises(LogReadError):
        read_log(tmp_path / "missing.log")
    binary = tmp_path / "core.log"
    binary.write_bytes(b"\x7fELF\0\0\0")
    with pytest.raises(LogReadError):
        read_log(binary)


def test_events_are_frozen() -> None:
    (e,) = parse_log(HEADLINE).events
    with pytest.raises(ValidationError):
        e.tactic = 3  # type: ignore[misc]


def test_the_cutlass_2x_runner_arch_and_activation_messages() -> None:
    text = "\n".join(
        [
            "[TensorRT-LLM][ERROR] Assertion failed: GPU lacks the shared memory resources to run "
            "fused_moe kernel (/w/moe_gemm/launchers/fused_moe_gemm_launcher_sm80.inl:74)",
            "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Invalid activation type "
            "(/w/fused_moe/cutlass_backend/cutlass_fused_moe_kernels.cuh:2442)",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "RuntimeError: CUDA error: an illegal instruction was encountered",
            "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
        ]
    )
    events = parse_log(text).events
    assert [e.kind for e in events] == [
        LogEventKind.ZERO_OCCUPANCY_FUSED,
        LogEventKind.INVALID_ACTIVATION,
        LogEventKind.NO_KERNEL_IMAGE,
        LogEventKind.STICKY_CUDA_ERROR,
        LogEventKind.STICKY_CUDA_ERROR,
    ]
    assert [e.cu_result for e in events[3:]] == [715, 700]


def test_a_failure_no_pattern_reads_is_counted_not_dropped() -> None:
    """A tactic that failed with a message cutlint does not know is an `unrecognized` event, so
    a log holding one is never read as clean."""
    (e,) = parse_log(
        "[Autotuner]: Skipping tactic <x.MoERunner object at 0xff> 3 while ranking "
        "trtllm::fused_moe::gemm1: [TensorRT-LLM][ERROR] Assertion failed: a brand new check"
    ).events
    assert e.kind is LogEventKind.UNRECOGNIZED
    assert (e.tactic, e.custom_op) == (3, "trtllm::fused_moe::gemm1")
    assert e.text.startswith("[Autotuner]: Skipping tactic")


def test_a_message_printed_on_the_next_line_is_one_failure() -> None:
    """The first line says a tactic failed; the message follows on the next: one recognized
    event, and an unrelated failed tactic just above stays unrecognized."""
    text = (
        "[Autotuner]: Skipping tactic <x.MoERunner object at 0xff> 3, due to failure while "
        "profiling: something new\n"
        "[Autotuner]: Skipping tactic <x.MoERunner object at 0xff> 4, due to failure while "
        "profiling: [TensorRT-LLM][ERROR] void f<...>::call(...)\n"
        "GPU lacks the shared memory resources to run GroupedGEMM kernel (/w/d.h:185)\n"
    )
    unknown, zero = parse_log(text).events
    assert (unknown.kind, unknown.tactic, unknown.line_no) == (LogEventKind.UNRECOGNIZED, 3, 1)
    assert (zero.kind, zero.tactic, zero.line_no) == (LogEventKind.ZERO_OCCUPANCY, 4, 3)


def test_ordinary_lines_are_not_failures() -> None:
    text = (
        "[AutoTuner]: Tuning trtllm::fused_moe::gemm1: 0/21\n"
        "1       0x7c6dd0a58b16 tensorrt_llm::common::throwRuntimeError(char const*, int)\n"
        "CUDA kernel errors might be asynchronously reported at some other API call\n"
        "INFO: error rate 0.0, kernel time 12 us\n"
    )
    assert parse_log(text).events == ()


def test_the_svdquant_runners_messages_are_runner_failures() -> None:
    """nvfp4_svdquant_gemm_template_sm120.h (run_tactic) prints no cutlass status: the event
    carries the message, status None, and the autotuner's tactic id."""
    text = "\n".join(
        [
            "[Autotuner]: Skipping tactic <...Nvfp4SvdquantGemmRunner object at 0x7f00> 12, due "
            "to failure while profiling: RuntimeError: nvfp4_svdquant_gemm (sm120): initialize "
            "failed",
            "RuntimeError: nvfp4_svdquant_gemm (sm120): run failed",
            "ValueError: nvfp4_svdquant_gemm (sm120): insufficient workspace",
        ]
    )
    events = parse_log(text).events
    assert [e.kind for e in events] == [LogEventKind.GEMM_RUNNER_FAILED] * 3
    assert events[0].tactic == 12 and events[0].status is None
    assert events[1].runner_message == "nvfp4_svdquant_gemm (sm120): run failed"


def test_the_release_the_log_names_and_where() -> None:
    """A version banner, a wheel path and a JIT cache path each say the release, with their line:
    what `explain --log` reads the log against when no flag or cache says it."""
    text = (
        "[pip3] flashinfer-python==0.6.3\n"
        "INFO FlashInfer version: 0.6.3\n"
        "Processing ./flashinfer_python-0.7.4+cu128-cp39-abi3-linux_x86_64.whl\n"
        "  /usr/lib/python3/site-packages/flashinfer_python-0.7.4.dist-info/METADATA\n"
        "Error: Failed to initialize the TMA descriptor 715\n"
        "2  0x7c6d /home/u/.cache/flashinfer/0.5.2/120a/cached_ops/fused_moe_120/fused_moe_120.so\n"
    )
    log = parse_log(text)
    said = [(s.version, s.said_by, s.line_no) for s in log.flashinfer_said]
    assert said == [
        ("0.6.3", "version banner", 1),
        ("0.7.4", "wheel path", 3),
        ("0.5.2", "JIT cache path", 6),
    ]
    assert log.flashinfer_versions == ("0.5.2",)  # the JIT cache paths alone, as before
    assert [e.line_no for e in log.events] == [5]  # the banners are no failures


def test_no_release_in_a_log_that_names_none() -> None:
    log = parse_log("flashinfer/gemm.py: Error Internal\nflashinfer_python is fine\n")
    assert log.flashinfer_said == ()
