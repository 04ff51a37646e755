"""The SM120 runners' tactics and what a runner's log line says about them."""

from __future__ import annotations

from typing import Any

import pytest

from cutlint.parse import parse_paths
from cutlint.runners.runner_tactics import (
    RunnerExplanation,
    Step,
    Verdict,
    blocked_tactics,
    explain_runner_line,
    judge_runner,
    read_line,
    runners,
)

# flashinfer#3568, as the autotuner logs it on every SM12x part (no tactic id in the line).
LINE_3568 = (
    "2026-07-16 10:02:11,402 - WARNING - autotuner.py:485 - flashinfer.jit: [Autotuner]: "
    "Skipping tactic ... RuntimeError: [MXFP8 SM120 gemm Runner] Failed to initialize cutlass "
    "MXFP8 gemm on sm120. Error: Error Internal"
)


@pytest.mark.parametrize("arch", ["sm_120", "sm_121"])
def test_flashinfer_3568_from_the_line_and_the_release(arch: str) -> None:
    e = explain_runner_line(LINE_3568, "0.6.11.post2", arch)
    assert isinstance(e, RunnerExplanation)
    assert e.line.step is Step.INITIALIZE and e.line.status == "Error Internal"
    failing = {v.tactic.id: v for v in e.candidates}
    assert sorted(failing) == [6, 7, 8, 9]
    assert {(v.tactic.tile.m, v.tactic.tile.n) for v in failing.values()} == {
        (256, 128),
        (128, 256),
    }
    assert all(v.smem == 111616 and v.limit == 101376 and v.stages == 2 for v in failing.values())
    assert all("StageCount<2>" in v.why for v in failing.values())
    fits = [v for v in e.tactics if v.verdict is Verdict.FITS]
    assert [v.tactic.id for v in fits] == [0, 1, 2, 3, 4, 5]
    assert [v.smem for v in fits] == [96256, 96256, 87040, 87040, 77824, 77824]
    assert "6, 7, 8, 9" in e.summary and "111,616" in e.summary and "101,376" in e.summary


def test_after_the_fix_no_mxfp8_tactic_fails() -> None:
    """flashinfer#4013 removed the four tactics: the same line in 0.7.x has another cause."""
    for release in ("0.7.2.post1", "0.7.4"):
        e = explain_runner_line(LINE_3568, release, "sm_121")
        assert isinstance(e, RunnerExplanation)
        assert len(e.tactics) == 6 and not e.candidates
        assert all(v.verdict is Verdict.FITS for v in e.tactics)
        assert "another cause" in e.summary


def test_the_0_7_mxfp8_message_names_the_size() -> None:
    line = (
        "[MXFP8 SM120 gemm Runner] Failed to initialize cutlass MXFP8 gemm on sm120. Error: Error "
        "Internal (kernel needs 111616 bytes of shared memory, device per-block limit is 101376 bytes)"
    )
    read = read_line(line)
    assert read is not None and (read.needs, read.limit) == (111616, 101376)
    e = explain_runner_line(line, "0.6.11.post2", "sm_120")
    assert isinstance(e, RunnerExplanation) and [v.tactic.id for v in e.candidates] == [6, 7, 8, 9]


def test_fp4_prefix_names_the_kernel() -> None:
    read = read_line(
        "[FP4 gemm Runner StreamK] Failed to initialize cutlass FP4 gemm on sm120/sm121. Error: Error Internal"
    )
    assert read is not None and read.kernel == "streamk" and read.arch_text == "sm120/sm121"
    assert (
        read_line(
            "[FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120. Error: Error Internal"
        ).kernel
        == "default"
    )  # type: ignore[union-attr]
    e = explain_runner_line(
        "[FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120. Error: Error Internal",
        "0.7.4",
        "sm_120",
    )
    assert (
        isinstance(e, RunnerExplanation)
        and e.line.step is Step.RUN
        and "not a shared-memory" in e.summary
    )


def test_runner_lists_and_their_sources() -> None:
    r = runners()
    sizes = {k: {v: len(x.tactics) for v, x in r[k].releases.items()} for k in r}
    # Every release of releases.toml that has the runner's module (FP4: all 69 from 0.5.0; MXFP8:
    # 52 from 0.6.8rc1), the list each release's own getConfigs() gives.
    assert len(sizes["fp4_sm120"]) == 69 and len(sizes["mxfp8_sm120"]) == 52
    assert {v: n for v, n in sizes["fp4_sm120"].items() if v in ("0.5.0", "0.6.3", "0.6.4", "0.6.10.post1", "0.6.11rc1", "0.7.4")} == {
        "0.5.0": 1, "0.6.3": 1, "0.6.4": 6, "0.6.10.post1": 6, "0.6.11rc1": 32, "0.7.4": 32
    }  # fmt: skip
    assert {v: n for v, n in sizes["mxfp8_sm120"].items() if v in ("0.6.8rc1", "0.6.10.post1", "0.6.11rc1", "0.6.18.post1", "0.7.0rc3", "0.7.4")} == {
        "0.6.8rc1": 3, "0.6.10.post1": 3, "0.6.11rc1": 10, "0.6.18.post1": 10, "0.7.0rc3": 6, "0.7.4": 6
    }  # fmt: skip
    assert r["mxfp8_sm120"].releases["0.6.10"].args == ("{output}", "{m}", "{n}", "{k}")
    assert r["fp4_sm120"].releases["0.5.0"].custom_ops == ("cutlass_fp4_gemm_sm120",)
    for runner in r.values():
        for rel in runner.releases.values():
            # getConfigs()'s indices; the groupwise runner's literal [-1]
            want = [-1] if runner.key == "fp8_groupwise_sm120" else list(range(len(rel.tactics)))
            assert [t.id for t in rel.tactics] == want
            assert rel.source
    assert explain_runner_line(LINE_3568, "0.5.2") == (
        "[MXFP8 SM120 gemm Runner] in FlashInfer 0.5.2: no such runner in that release (the "
        "wheel has no csrc/mxfp8_gemm_cutlass_sm120.cu; its tactics are derived for the 52 "
        "releases that have it, 0.6.8rc1 to 0.7.4)"
    )
    assert "0.9.9: not a release cutlint has read" in str(explain_runner_line(LINE_3568, "0.9.9"))
    assert explain_runner_line("nothing to see", "0.7.4") is None


@pytest.mark.parametrize("release", ["0.6.11.post2", "0.7.2.post1", "0.7.4"])
def test_every_runner_tactic_is_instantiated_by_its_module(jit_modules: Any, release: str) -> None:
    modules = {m.name: m for m in jit_modules(release)}
    for key, runner in runners().items():
        if release not in runner.releases:
            assert runner.module not in modules, key  # a release without the runner
            continue
        insts = {
            (i.name, i.args)
            for p in parse_paths(list(modules[runner.module].generated))
            for i in p.instantiations
        }
        verdicts = judge_runner(key, release, "sm_120", insts)
        assert not isinstance(verdicts, str)
        assert Verdict.NOT_INSTANTIATED not in {v.verdict for v in verdicts}, key
        # and a module that lacks one is a finding of its own
        dropped = judge_runner(key, release, "sm_120", insts - {verdicts[0].instantiation})
        assert not isinstance(dropped, str) and dropped[0].verdict is Verdict.NOT_INSTANTIATED


def test_blocklists() -> None:
    from cutlint.runners.runner_tactics import blocked_tactics

    assert blocked_tactics("mxfp8_sm120", "0.6.11.post2", "sm_121") == (6, 7, 8, 9)
    assert blocked_tactics("mxfp8_sm120", "0.7.4", "sm_120") == ()
    assert blocked_tactics("fp4_sm120", "0.7.4", "sm_121") == ()


@pytest.mark.parametrize("release", ["0.5.0", "0.6.8.post1", "0.7.4"])
@pytest.mark.parametrize("arch", ["sm_120", "sm_121"])
def test_the_groupwise_runner_is_judged_and_prints_no_line(release: str, arch: str) -> None:
    """CutlassFp8GemmRunner (gemm_sm120): tactic -1 runs CutlassGroupwiseScaledGEMMSM120<1, 128,
    128, false> for e4m3/e5m2 x f16/bf16; 2 stages, 81,920 B (sm120_fp8_groupwise), which fits.
    Its csrc drops the launcher's status, so no log line is its: read_line never names it."""
    r = runners()["fp8_groupwise_sm120"]
    assert r.label == "CutlassFp8GemmRunner (gemm_sm120)"
    assert r.blocklist_keys(release) == ("fp8_gemm::CutlassFp8GemmRunner",)
    (t,) = r.releases[release].tactics
    assert len(r.instantiations(t, release)) == 4
    assert r.instantiation(t, "cutlass::bfloat16_t", release, "cutlass::float_e4m3_t") == (
        "CutlassGroupwiseScaledGEMMSM120",
        ("1", "128", "128", "false", "cutlass::float_e4m3_t", "cutlass::bfloat16_t"),
    )
    verdicts = judge_runner("fp8_groupwise_sm120", release, arch)
    assert not isinstance(verdicts, str)
    (v,) = verdicts
    assert (v.tactic.id, v.verdict, v.stages, v.smem) == (-1, Verdict.FITS, 2, 81920)
    assert blocked_tactics("fp8_groupwise_sm120", release, arch) == ()
    # a module without its kernel: the one id is blocked
    assert blocked_tactics("fp8_groupwise_sm120", release, arch, set()) == (-1,)
    assert read_line("[Autotuner]: CutlassFp8GemmRunner tactic -1 failed") is None


# --- SVDQuant's svdquant_linear runners (0.7.4) ----------------------------------------------

LINEAR_OPS = tuple(
    f"svdquant_linear_sm120_routes_v{r}_tactics_v3{pdl}"
    for r in (5, 6, 7, 8, 9, 10, 11)
    for pdl in ("", "_pdl")
)


def test_the_svdquant_linear_runners_number_the_svdquant_tactics() -> None:
    """Sm120CutlassLinearRunner numbers the SVDQuant runner's 83 rows; Sm120FusedLinearRunner
    packs row | variant << 8 (up to 34 producer variants, none a CUTLASS kernel); both only in
    0.7.4, the one release with svdquant SM120, under every svdquant_linear op name."""
    r = runners()
    gemm = r["svdquant_sm120"].releases["0.7.4"]
    for key, cls in (
        ("svdquant_linear_sm120", "Sm120CutlassLinearRunner"),
        ("svdquant_fused_linear_sm120", "Sm120FusedLinearRunner"),
    ):
        runner = r[key]
        assert list(runner.releases) == ["0.7.4"] and runner.runner_class == cls
        rel = runner.releases["0.7.4"]
        assert rel.tactics == gemm.tactics and rel.args == gemm.args
        assert rel.custom_ops == LINEAR_OPS
        assert runner.blocklist_keys("0.7.4") == tuple(f"{op}::{cls}" for op in LINEAR_OPS)
        assert rel.source.startswith("flashinfer/gemm/svdquant_sm120_cutlass.py:")
    assert r["svdquant_linear_sm120"].releases["0.7.4"].producer is None
    fused = r["svdquant_fused_linear_sm120"]
    packing = fused.releases["0.7.4"].producer
    assert packing is not None and (packing.shift, packing.variants) == (8, 34)
    assert "svdquant_sm120_routes.py:314" in packing.source
    assert fused.releases["0.7.4"].ids(7)[:3] == (7, 263, 519)
    assert len(fused.releases["0.7.4"].ids(7)) == 34
    assert fused.releases["0.7.4"].row_of(263) == 7
    assert "not CUTLASS kernels" in fused.producer_note
    assert r["svdquant_sm120"].releases["0.7.4"].custom_ops == (
        "nvfp4_svdquant_gemm_sm120_v3",
        "nvfp4_svdquant_gemm_sm120_v3_r64",
    )
    # one launcher's message for the three: the autotuner's runner class picks the table
    from cutlint.runners.runner_tactics import runner_for

    line = "RuntimeError: nvfp4_svdquant_gemm (sm120): initialize failed"
    read = read_line(line)
    assert read is not None and read.runner == "svdquant_sm120"
    assert runner_for(read.runner, "Sm120FusedLinearRunner") == "svdquant_fused_linear_sm120"
    assert runner_for(read.runner, "Sm120CutlassLinearRunner") == "svdquant_linear_sm120"
    assert runner_for(read.runner, None) == "svdquant_sm120"
    e = explain_runner_line(line, "0.7.4", "sm_120", runner_class="Sm120FusedLinearRunner")
    assert isinstance(e, RunnerExplanation) and e.line.runner == "svdquant_fused_linear_sm120"
    assert all(v.verdict is Verdict.FITS for v in e.tactics)


def _svdquant_module(jit_modules: Any) -> set[tuple[str, tuple[str, ...]]]:
    (module,) = [m for m in jit_modules("0.7.4") if m.name == "nvfp4_svdquant_gemm_cutlass_sm120"]
    return {(i.name, i.args) for p in parse_paths(list(module.generated)) for i in p.instantiations}


def test_a_tactic_the_module_lacks_is_blocked_under_every_packed_id(jit_modules: Any) -> None:
    """With Tactic128x128x128SwapConfig's TACTIC instantiation gone, rows 1, 36, 37, 38, 39
    (kernel 1 with the scheduler's defaults, then its raster and swizzle rows) cannot run: the gemm and linear
    runners block those ids, the fused runner every packed id of them."""
    from cutlint.runners.runner_tactics import blocked_tactics

    insts = _svdquant_module(jit_modules)
    gone = ("INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC", ("Tactic128x128x128SwapConfig",))
    assert gone in insts
    rows = blocked_tactics("svdquant_sm120", "0.7.4", "sm_120", insts - {gone})
    assert rows == (1, 36, 37, 38, 39)
    verdicts = judge_runner("svdquant_sm120", "0.7.4", "sm_120", insts - {gone})
    assert not isinstance(verdicts, str)
    assert rows == tuple(v.tactic.id for v in verdicts if v.verdict is Verdict.NOT_INSTANTIATED)
    assert all(verdicts[i].tactic.config == "Tactic128x128x128SwapConfig" for i in rows)
    assert blocked_tactics("svdquant_linear_sm120", "0.7.4", "sm_120", insts - {gone}) == rows
    packed = blocked_tactics("svdquant_fused_linear_sm120", "0.7.4", "sm_120", insts - {gone})
    assert packed == tuple(row | v << 8 for row in rows for v in range(34))
    assert blocked_tactics("svdquant_fused_linear_sm120", "0.7.4", "sm_120", insts) == ()
