"""`explain --log` of every framework's lines: stated bytes decide class A with no cache, each line
is judged by its own arch's dispatch data, and explain agrees with `check` on the same cache."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.explain import Agreement, FailureClass, explain_log
from cutlint.explain.render import render_log_text
from cutlint.families.base import moe_args
from cutlint.logs import parse_log
from cutlint.records import InstantiationResult, Shape3

TRACE = (
    "cutlass/gemm/device/gemm_universal_adapter.h:336    Setting smem size to 234496\n"
    "cutlass/gemm/device/gemm_universal_adapter.h:343    cudaFuncSetAttribute() returned error: "
    "invalid argument\n"
)


def _one(text: str, arch: str | None = None, version: str | None = None) -> Any:
    (f,) = explain_log(parse_log(text), None, None, version, arch).failures
    return f


def test_cutlass_trace_bytes_are_class_a_on_sm90_with_no_cache() -> None:
    f = _one(TRACE, arch="sm_90")
    assert (f.failure_class, f.agreement) == (FailureClass.A, Agreement.STATED)
    assert "234,496 B" in f.explanation and "232,448 B" in f.explanation
    assert "judged on sm_90 (--arch)" in f.explanation  # the line names no arch: says which


def test_bytes_that_fit_the_arch_are_not_called_class_a() -> None:
    f = _one(TRACE.replace("234496", "200000"), arch="sm_90")
    assert (f.failure_class, f.agreement) == (None, Agreement.NOT_DECIDABLE)
    assert "sticky" in f.explanation


def test_without_arch_the_default_is_assumed_and_said() -> None:
    f = _one(TRACE)
    assert f.failure_class is FailureClass.A
    assert "The line names no arch: judged on sm_120 (the default)" in f.explanation


def test_cute_dsl_and_xformers_state_their_own_limits() -> None:
    cute = _one(
        "Error: kernel 'k' launch shared memory exceeds current GPU arch Arch.sm_120a allowed. "
        "Allocated: 118784 bytes. Max: 101376 bytes."
    )
    assert (cute.failure_class, cute.agreement) == (FailureClass.A, Agreement.STATED)
    assert "118,784 B" in cute.explanation and "the limit the line states" in cute.explanation
    xformers = _one("    Sm86 does not have enough shared-memory to run this kernel - see x")
    assert (xformers.failure_class, xformers.agreement) == (FailureClass.A, Agreement.STATED)


def test_stated_bytes_point_at_the_caches_instantiations_of_that_size(real_cache: Any) -> None:
    cache = real_cache("0.6.3")
    text = TRACE.replace("234496", "102400")
    explained = explain_log(parse_log(text), str(cache), api.check([cache]))
    (f,) = explained.failures
    assert f.matches and {r.resources.layout.size for r in f.matches if r.resources} == {102400}
    assert (f.failure_class, f.agreement) == (FailureClass.A, Agreement.STATED)


def test_an_sm100_tile_line_is_judged_by_the_sm100_dispatch_not_sm120s(real_cache: Any) -> None:
    """The SM120 cache holds no SM100 instantiation of the tile: nothing is called "never
    dispatched", and the SM100 rules (clusters 1x1x1 and 2x1x1) decide the line."""
    cache = real_cache("0.6.3")
    line = "Unsupported tile (64, 64, 64) and cluster (1, 2, 1) shape combination for arch 100"
    explained = explain_log(parse_log(line), str(cache), api.check([cache]))
    (f,) = explained.failures
    assert f.matches == ()
    assert (f.failure_class, f.agreement) == (FailureClass.B, Agreement.EXPLAINED)
    assert "are_tile_shapes_supported_sm100" in f.explanation
    assert "sm120" not in f.explanation and "never dispatched" not in f.explanation


def test_an_sm100_tile_with_a_legal_cluster_and_no_types_is_not_decided() -> None:
    f = _one(
        "Unsupported tile (128, 128, 64) and cluster (1, 1, 1) shape combination for arch 100",
        version="0.7.4",
    )
    assert (f.failure_class, f.agreement) == (FailureClass.B, Agreement.NOT_DECIDABLE)


def test_the_sm110_fallback_config_line_is_read_by_the_sm100_switch() -> None:
    f = _one("Unsupported tile shape config 256256128", arch="sm_110", version="0.7.4")
    assert f.failure_class is FailureClass.B
    assert f.agreement in (Agreement.EXPLAINED, Agreement.NOT_DECIDABLE)
    assert "CtaShape256x256x128B" in f.explanation and "sm_110" in f.explanation


def test_explain_states_checks_verdicts_for_the_cache(real_cache: Any) -> None:
    """Explain's verdicts for a cache equal check's: the instantiations an SM120 tile line maps
    to, and the verdicts its explanation counts, are exactly check's for that tile."""
    cache = real_cache("0.6.3")
    checked = api.check([cache])
    tile = Shape3(m=128, n=256, k=128)
    line = "Unsupported tile (128, 256, 128) and cluster (1, 1, 1) shape combination for arch 120"
    (f,) = explain_log(parse_log(line), str(cache), checked).failures
    ours = [
        r
        for file in checked.files
        for r in file.instantiations
        if (a := moe_args(r)) is not None and a.cta_tile == tile and a.sm == 120
    ]

    def key(r: InstantiationResult) -> tuple[str, int]:
        return (r.instantiation.span.path, r.instantiation.span.line)

    assert sorted(map(key, f.matches)) == sorted(map(key, ours))
    assert {key(r): r.verdict for r in f.matches} == {key(r): r.verdict for r in ours}
    counts = Counter(r.verdict.value for r in ours)
    for verdict, n in counts.items():
        assert f"{n} {verdict}" in f.explanation


def test_a_vllm_caller_line_says_what_it_means_and_what_is_left(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text(
        "RuntimeError: cutlass_gemm_caller, /workspace/csrc/libtorch_stable/quantization/w8a8/"
        "cutlass/c3x/cutlass_gemm_caller.cuh:62, Error Internal\n"
        "NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 120. "
        "Required capability: 90 or 100\n"
    )
    # --log alone: a vLLM log needs no FlashInfer cache or release
    out = CliRunner().invoke(main, ["explain", "--log", str(log)])
    assert out.exit_code == 1, out.output
    assert "cutlass_gemm_caller.cuh:62" in out.output
    assert "B: tile or cluster with no dispatch case" in out.output
    assert "1 decided by the line alone" in out.output


def test_a_log_with_only_unrecognized_lines_is_never_clean(tmp_path: Path) -> None:
    log = tmp_path / "odd.log"
    log.write_bytes(b"ninja: build stopped: subcommand failed.\x1b[31m\n")
    out = CliRunner().invoke(main, ["explain", "--log", str(log)])
    assert out.exit_code == 1, out.output
    assert "1 distinct failure" in out.output and "1 not recognized" in out.output
    assert "log:       ninja: build stopped: subcommand failed." in out.output
    assert "\x1b" not in out.output  # shown escaped


def test_the_text_shows_the_assumed_arch(real_cache: Any) -> None:
    text = render_log_text(explain_log(parse_log(TRACE), None, None, None, "sm_100"))
    assert "judged on sm_100 (--arch)" in text


def test_invalid_activation_names_what_the_releases_switch_refuses() -> None:
    """0.6.3's moeGemmBiasAct has no Relu2 case though its enum has Relu2: the line means the
    caller asked for SwigluBias or Relu2 (data/activation_switch.toml, read from the wheel)."""
    f = _one("[TensorRT-LLM][ERROR] Invalid activation type.", version="0.6.3")
    assert f.agreement is Agreement.NOT_DECIDABLE and f.failure_class is None
    assert "SwigluBias, Relu2 reach its default case" in f.explanation
    g = _one("[TensorRT-LLM][ERROR] Invalid activation type.", version="0.7.4")
    assert "Relu2 reach" not in g.explanation and "SwigluBias" in g.explanation


def test_sm100_tile_lines_agree_with_check_on_an_sm100_cache(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """FlashInfer 0.7.4's own generator for sm_100: an `Unsupported tile ... arch 100` line maps
    to check's instantiations of that tile, with check's verdicts; it is explained only where
    check finds every one of them never dispatched, and contradicts the rules where check finds
    them dispatched (as the SM100 rules say) -- never the SM120 list's verdict."""
    from cutlint.producers.flashinfer.wheel import generate_cache
    from cutlint.records import Verdict

    cache = generate_cache(flashinfer_root("0.7.4"), "0.7.4", tmp_path, 100)
    checked = api.check([cache])
    for m, n, k in ((128, 192, 128), (128, 128, 128)):
        line = (
            f"Unsupported tile ({m}, {n}, {k}) and cluster (1, 1, 1) shape combination for arch 100"
        )
        (f,) = explain_log(parse_log(line), str(cache), checked).failures
        ours = {
            (r.instantiation.span.path, r.instantiation.span.line): r.verdict
            for file in checked.files
            for r in file.instantiations
            if (a := moe_args(r)) is not None
            and a.cta_tile == Shape3(m=m, n=n, k=k)
            and a.sm == 100
        }
        assert (
            ours
            and {
                (r.instantiation.span.path, r.instantiation.span.line): r.verdict for r in f.matches
            }
            == ours
        )
        never = all(v is Verdict.UNREACHABLE for v in ours.values())
        if f.agreement is Agreement.EXPLAINED:
            assert never, f.explanation  # explained only where check dispatches none of them
        if not any(v is Verdict.UNREACHABLE for v in ours.values()):
            assert f.agreement is Agreement.CONTRADICTS
        elif f.agreement is Agreement.CONTRADICTS:
            # check's "never dispatched" has another reason, which the explanation gives
            assert "not one of the dispatch's tile configs" in f.explanation
        assert "sm120" not in f.explanation
        for verdict, count in Counter(v.value for v in ours.values()).items():
            assert f"{count} {verdict}" in f.explanation


def test_an_sm100_cluster_no_release_takes_is_decided_without_a_release() -> None:
    f = _one("Unsupported tile (64, 64, 64) and cluster (1, 2, 1) shape combination for arch 100")
    assert (f.failure_class, f.agreement) == (FailureClass.B, Agreement.EXPLAINED)
    assert "in every FlashInfer release cutlint holds" in f.explanation
