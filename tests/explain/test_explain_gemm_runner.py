"""`explain --log` on dense GEMM runners' lines (`[MXFP8 SM120 gemm Runner] Failed to initialize
...`): read against the release's tactic lists, with or without a cache."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.explain import Agreement, FailureClass
from cutlint.explain.render import render_log_json, render_log_text
from cutlint.logs.events import LogEventKind

# flashinfer#3568, as the autotuner logs it on every SM12x part: no tactic id in the line.
LINE_3568 = (
    "2026-07-16 10:02:11,402 - WARNING - autotuner.py:485 - flashinfer.jit: [Autotuner]: "
    "Skipping tactic ... RuntimeError: [MXFP8 SM120 gemm Runner] Failed to initialize cutlass "
    "MXFP8 gemm on sm120. Error: Error Internal"
)
# The same failure where the autotuner names its runner and the id it was on.
LINE_WITH_ID = (
    "[Autotuner]: Skipping tactic <flashinfer.gemm.gemm_base._create_cutlass_mxfp8_gemm_module."
    "<locals>.cutlass_mxfp8_gemm_runner.<locals>.CutlassMxfp8GemmRunner object at 0x7f3a1c2b9d50> "
    "{id}, due to failure while profiling: [MXFP8 SM120 gemm Runner] Failed to initialize cutlass "
    "MXFP8 gemm on sm120. Error: Error Internal"
)
FP4_INIT = (
    "RuntimeError: [FP4 gemm Runner] Failed to initialize cutlass FP4 gemm on sm120/sm121. "
    "Error: Error Internal"
)


def _log(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "run.log"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("arch", ["sm_120", "sm_121"])
def test_flashinfer_3568_without_a_cache(tmp_path: Path, arch: str) -> None:
    """The must-show: the line against 0.6.11.post2 names the 256x128 and 128x256 tactics as
    failing at initialize(), 111,616 B against 101,376 B, and the ones that fit."""
    e = api.explain_log(_log(tmp_path, LINE_3568), flashinfer_version="0.6.11.post2", arch=arch)
    assert e.cache is None and e.flashinfer_version == "0.6.11.post2" and e.arch == arch
    (f,) = e.failures
    assert f.agreement is Agreement.EXPLAINED and f.failure_class is FailureClass.A
    g = f.gemm_runner
    assert g is not None and g.runner_class == "CutlassMxfp8GemmRunner"
    assert g.blocklist_keys == ("mxfp8_gemm::CutlassMxfp8GemmRunner",)
    assert g.candidates == (6, 7, 8, 9) and not g.instantiations_checked
    failing = [t for t in g.tactics if t.verdict == "fails initialize()"]
    assert {(t.tile.m, t.tile.n) for t in failing} == {(256, 128), (128, 256)}
    assert all(t.smem == 111616 and t.limit == 101376 and t.stages == 2 for t in failing)
    assert all(sum(b for _, b in t.breakdown) == t.smem for t in g.tactics)
    assert [t.id for t in g.tactics if t.verdict == "fits"] == [0, 1, 2, 3, 4, 5]
    assert "111,616 B against 101,376 B" in f.explanation
    assert "tactic(s) 0, 1, 2, 3, 4, 5 fit" in f.explanation
    text = render_log_text(e)
    for row in ("6     CtaShape256x128x128B  256x128x128  off", "9     CtaShape128x256x128B"):
        assert row in text
    assert "smem_A 65,536 + smem_B 32,768" in text  # the 256x128 tactics' bytes by part
    assert '"candidates": [\n' in render_log_json(e)


def test_cli_without_a_cache(tmp_path: Path) -> None:
    log = _log(tmp_path, LINE_3568)
    r = CliRunner().invoke(
        main, ["explain", "--log", str(log), "--flashinfer-version", "0.6.11.post2"]
    )
    assert r.exit_code == 1, r.output
    assert "explained against FlashInfer 0.6.11.post2 on sm_120 (no cache)" in r.output
    assert "fails initialize()  111,616 B (2 stages)" in r.output
    # --log alone is read (every framework's lines need no cache); the runner's line says what
    # it lacks: the release whose tactic list numbers its ids
    r = CliRunner().invoke(main, ["explain", "--log", str(log)])
    assert r.exit_code == 1 and "give --flashinfer-version" in r.output


def test_the_logged_id_is_checked_against_the_list(tmp_path: Path) -> None:
    e = api.explain_log(
        _log(tmp_path, LINE_WITH_ID.format(id=7)), flashinfer_version="0.6.11.post2"
    )
    (f,) = e.failures
    assert f.agreement is Agreement.EXPLAINED
    assert f.tactic_reading and "7 = CtaShape256x128x128B" in f.tactic_reading
    assert f.gemm_runner and [t.id for t in f.gemm_runner.tactics if t.logged] == [7]
    # an id that fits cannot have failed for shared memory; one past the list is another release's
    fits = api.explain_log(
        _log(tmp_path, LINE_WITH_ID.format(id=2)), flashinfer_version="0.6.11.post2"
    )
    assert fits.failures[0].agreement is Agreement.CONTRADICTS
    past = api.explain_log(_log(tmp_path, LINE_WITH_ID.format(id=8)), flashinfer_version="0.7.4")
    assert past.failures[0].agreement is Agreement.UNMAPPED


def test_an_fp4_runner_line_on_sm_121(tmp_path: Path) -> None:
    """No FP4 tactic exceeds sm_121's limit in any release cutlint has: the line has another cause."""
    log = _log(
        tmp_path,
        FP4_INIT,
        FP4_INIT.replace("Runner]", "Runner StreamK]"),
        "RuntimeError: [FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120/sm121. Error: "
        "Error Internal",
    )
    e = api.explain_log(log, flashinfer_version="0.7.4", arch="sm_121")
    init, streamk, run = e.failures
    assert init.agreement is Agreement.CONTRADICTS and init.gemm_runner is not None
    assert len(init.gemm_runner.tactics) == 32 and not init.gemm_runner.candidates
    assert all(t.verdict == "fits" and t.limit == 101376 for t in init.gemm_runner.tactics)
    assert "every tactic of FlashInfer 0.7.4's runner fits sm_121's 101,376 B" in init.explanation
    assert streamk.agreement is Agreement.CONTRADICTS and "streamk kernel" in streamk.explanation
    assert run.agreement is Agreement.NOT_DECIDABLE and run.failure_class is FailureClass.G
    assert run.gemm_runner is None  # no tactic list for a failure that is not the tactic's


def test_a_runner_or_release_without_a_table_says_so(tmp_path: Path) -> None:
    """Never a silent pass: a runner cutlint has no table for, or a release its table lacks, is
    a failure that is not modeled, and says why."""
    log = _log(
        tmp_path,
        "RuntimeError: [Bf16 Gemm Runner] Failed to initialize cutlass BF16 gemm on sm100. "
        "Error: Error Internal",
        LINE_3568,
    )
    e = api.explain_log(log, flashinfer_version="0.6.3")
    bf16, mxfp8 = e.failures
    assert bf16.agreement is Agreement.NOT_MODELED and "no tactic table" in bf16.explanation
    assert mxfp8.agreement is Agreement.NOT_MODELED
    assert "FlashInfer 0.6.3: no such runner in that release" in mxfp8.explanation
    assert "0.6.8rc1 to 0.7.4" in mxfp8.explanation  # the MXFP8 runner came in 0.6.8rc1
    assert "1 explained" not in render_log_text(e) and e.count(Agreement.NOT_MODELED) == 2


@pytest.mark.parametrize("version", ["0.6.11", "0.6.11rc1", "0.6.16.post4", "0.6.18.post1"])
def test_flashinfer_3568_on_a_release_that_had_no_table(tmp_path: Path, version: str) -> None:
    """Releases before (and after) 0.6.11.post2 with the same getConfigs() and header: the line is
    explained with the same failing tactics and bytes, the table derived from their own wheel."""
    e = api.explain_log(_log(tmp_path, LINE_3568), flashinfer_version=version)
    (f,) = e.failures
    assert f.agreement is Agreement.EXPLAINED and f.failure_class is FailureClass.A
    g = f.gemm_runner
    assert g is not None and g.candidates == (6, 7, 8, 9)
    assert f"of the {version} wheel" in g.source
    assert "111,616 B against 101,376 B" in f.explanation


@pytest.mark.parametrize("version", ["0.6.8rc1", "0.6.8.post1", "0.6.10.post1"])
def test_flashinfer_3568_on_the_first_mxfp8_releases(tmp_path: Path, version: str) -> None:
    """0.6.8rc1 - 0.6.10.post1: getConfigs() is 128x128, 256x128, 128x256 without SwapAB, and the
    header fixes StageCount<2> for every tile (CUTLASS 4.4.2, nvcc rows of 0.6.8.post1): tactics
    1 and 2 need 111,616 B, tactic 0 fits."""
    e = api.explain_log(_log(tmp_path, LINE_3568), flashinfer_version=version)
    (f,) = e.failures
    g = f.gemm_runner
    assert g is not None and [t.config for t in g.tactics] == [
        "CtaShape128x128x128B", "CtaShape256x128x128B", "CtaShape128x256x128B"
    ]  # fmt: skip
    assert f.agreement is Agreement.EXPLAINED and g.candidates == (1, 2)
    assert [t.smem for t in g.tactics] == [77824, 111616, 111616]
    assert "StageCount<2> fixed by the launcher" in f.explanation


def test_a_release_from_nowhere_is_not_guessed(tmp_path: Path) -> None:
    e = api.explain_log(_log(tmp_path, LINE_3568), tmp_path)  # a cache naming no version
    (f,) = e.failures
    assert f.agreement is Agreement.NOT_MODELED and "--flashinfer-version" in f.explanation


def test_with_the_modules_cache(tmp_path: Path, jit_modules: Any) -> None:
    """With --cache: the release from its path, the failing tactics mapped to its files, and a
    tactic whose kernel the module never instantiates is a finding of its own."""
    (module,) = [m for m in jit_modules("0.6.11.post2") if m.name == "mxfp8_gemm_cutlass_sm120"]
    generated = module.generated[0].parent.parent  # <base>/flashinfer/<version>/120f/generated
    log = _log(tmp_path, LINE_3568)
    e = api.explain_log(log, generated)
    (f,) = e.failures
    assert e.flashinfer_version == "0.6.11.post2" and f.agreement is Agreement.EXPLAINED
    assert f.gemm_runner and f.gemm_runner.instantiations_checked
    assert sorted({(r.instantiation.args[1], r.instantiation.args[2]) for r in f.matches}) == [
        ("128", "256"),
        ("256", "128"),
    ]
    assert all(r.resources and r.resources.layout.size == 111616 for r in f.matches)
    # the same module less one file: tactics 0 and 1 (128x32) dispatch to nothing
    copy = tmp_path / "copy"
    # only this release's tree: the session's jit_modules may hold other releases beside it
    shutil.copytree(generated.parents[1], copy / "flashinfer" / generated.parents[1].name)
    gone = next((copy / "flashinfer").rglob("mxfp8_gemm_cutlass_sm120_half_128_32_128.cu"))
    gone.unlink()
    (g,) = api.explain_log(log, copy).failures
    assert g.gemm_runner is not None
    assert [t.id for t in g.gemm_runner.tactics if t.verdict == "not instantiated"] == [0, 1]
    # a finding of its own (CUT207), one per launcher the two tactics need (SwapAB off and on)
    h = api.explain_log(log, copy)
    assert h.findings == g.findings and len(h.findings) == 2
    assert [(x.rule, x.tactics, x.ids) for x in h.findings] == [
        ("CUT207", (0,), (0,)),
        ("CUT207", (1,), (1,)),
    ]
    assert [x.instantiation for x in h.findings] == [
        "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120(half, 128, 32, 128, false)",
        "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120(half, 128, 32, 128, true)",
    ]
    assert h.findings[0].keys == ("mxfp8_gemm::CutlassMxfp8GemmRunner",)
    assert h.findings[0].path.endswith("gen_gemm_sm120_cutlass_mxfp8")
    assert "CUT207 tactic-not-instantiated" in g.explanation
    text = render_log_text(h)
    assert "[CUT207 tactic-not-instantiated]" in text and "block: 0 under mxfp8_gemm::" in text
    assert '"findings": 2' in render_log_json(h)


def test_runner_tables_need_no_cache_for_the_cutlass2x_lines_either() -> None:
    """The CUTLASS 2.x grouped runner's lines name no file either: without a cache they are read
    against the given release on the given arch, as the fixture expects them with its cache."""
    fixture = (
        Path(__file__).parents[2] / "fixtures" / "logs" / "flashinfer-0.6.4-cutlass2x-sm120.log"
    )
    e = api.explain_log(fixture, flashinfer_version="0.6.4", arch="sm_120")
    assert [(f.log_lines[0], f.agreement) for f in e.failures] == [
        (12, Agreement.EXPLAINED),
        (13, Agreement.EXPLAINED),
        (16, Agreement.EXPLAINED),
        (17, Agreement.EXPLAINED),
        (20, Agreement.EXPLAINED),
        (22, Agreement.NOT_DECIDABLE),
    ]


def test_a_grouped_sm120_gemms_cutlass_check_is_not_dropped(tmp_path: Path) -> None:
    """The grouped SM120 GEMMs number no tactics and print no runner prefix: their CUTLASS_CHECK
    line (logs/data/flashinfer.toml, flashinfer.cutlass-check) is a hand-written caller's
    failure, never silently passed: most likely class A, not decided until the kernel is known."""
    log = _log(tmp_path, "Got cutlass error: Error Internal at: 300")
    (f,) = api.explain_log(log, flashinfer_version="0.7.4").failures
    assert f.kind is LogEventKind.CALLER_FAILED and f.event.grammar == "flashinfer.cutlass-check"
    assert (f.failure_class, f.agreement) == (FailureClass.A, Agreement.NOT_MODELED)


# The SM120 SVDQuant GEMM's launcher (nvfp4_svdquant_gemm_template_sm120.h, run_tactic) under the
# autotuner: the runner and the id it was on, and a message that prints no cutlass status.
SVDQ_INIT = (
    "[Autotuner]: Skipping tactic <flashinfer.gemm.svdquant_sm120_cutlass._nvfp4_svdquant_gemm_"
    "runner.<locals>.Nvfp4SvdquantGemmRunner object at 0x7f00> {id}, due to failure while "
    "profiling: RuntimeError: nvfp4_svdquant_gemm (sm120): initialize failed"
)


def test_the_svdquant_runner_numbers_83_runtime_tactics_that_all_fit(tmp_path: Path) -> None:
    """0.7.4's SVDQuant runner numbers the rows of its runtime tactic table (kernel x scheduler
    parameters); every kernel fits sm_120 (the header static_asserts SharedStorageSize <=
    101,376 B), so an initialize failure is not shared memory: with an id, the tactic's bytes
    contradict it; without one, shared memory is ruled out for every tactic."""
    e = api.explain_log(_log(tmp_path, SVDQ_INIT.format(id=75)), flashinfer_version="0.7.4")
    (f,) = e.failures
    g = f.gemm_runner
    assert g is not None and g.runner_class == "Nvfp4SvdquantGemmRunner"
    assert g.blocklist_keys == (
        "nvfp4_svdquant_gemm_sm120_v3::Nvfp4SvdquantGemmRunner",
        "nvfp4_svdquant_gemm_sm120_v3_r64::Nvfp4SvdquantGemmRunner",
    )
    assert len(g.tactics) == 83 and all(t.verdict == "fits" for t in g.tactics)
    row = g.tactics[75]
    assert row.config == "Tactic128x64x256SwapStaticConfig" and row.smem == 96256 and row.logged
    assert g.tactics[16].config == "Tactic128x128x128SkConfig Split-K 2"
    assert f.agreement is Agreement.CONTRADICTS and "96,256 B" in f.explanation
    bare = "RuntimeError: nvfp4_svdquant_gemm (sm120): initialize failed"
    (h,) = api.explain_log(_log(tmp_path, bare), flashinfer_version="0.7.4").failures
    assert h.agreement is Agreement.NOT_DECIDABLE and h.failure_class is None
    assert (
        "prints no cutlass status" in h.explanation and "no tactic of this runner" in h.explanation
    )
    (old,) = api.explain_log(_log(tmp_path, bare), flashinfer_version="0.7.2.post1").failures
    assert old.agreement is Agreement.NOT_MODELED and "no such runner" in old.explanation


# svdquant_linear's fused runner: the same launcher's message, a packed id (row | variant << 8).
FUSED_INIT = (
    "[Autotuner]: Skipping tactic <flashinfer.gemm.svdquant_sm120_cutlass._sm120_fused_linear_"
    "runner.<locals>.Sm120FusedLinearRunner object at 0x7f00> {id}, due to failure while "
    "profiling: RuntimeError: nvfp4_svdquant_gemm (sm120): initialize failed"
)


def _svdquant_cache_less_one(jit_modules: Any, tmp_path: Path) -> Path:
    """0.7.4's rendered SVDQuant module, copied, with Tactic128x128x128SwapConfig's TACTIC
    instantiation dropped from its file (its NO_INLINE_DOWN one stays)."""
    (module,) = [m for m in jit_modules("0.7.4") if m.name == "nvfp4_svdquant_gemm_cutlass_sm120"]
    generated = module.generated[0].parent.parent
    copy = tmp_path / "copy"
    shutil.copytree(generated.parents[1], copy / "flashinfer" / generated.parents[1].name)
    (path,) = (copy / "flashinfer").rglob("*_Tactic128x128x128SwapConfig.cu")
    text = path.read_text()
    line = "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC(Tactic128x128x128SwapConfig)"
    assert line in text
    path.write_text(text.replace(line, ""))
    return copy


def test_the_fused_linear_runners_packed_id_and_a_module_less_one(
    tmp_path: Path, jit_modules: Any
) -> None:
    """A line of Sm120FusedLinearRunner, id 263 = row 7 with producer variant 1: read against
    that runner's table and keys; against a cache whose module lacks one instantiation, the
    tactics that need it (rows 1, 36-39) are a CUT207 finding with every packed id to block."""
    log = _log(tmp_path, FUSED_INIT.format(id=263))
    (f,) = api.explain_log(log, flashinfer_version="0.7.4").failures
    g = f.gemm_runner
    assert g is not None and g.runner_class == "Sm120FusedLinearRunner"
    assert g.runner == "svdquant_fused_linear_sm120" and len(g.blocklist_keys) == 14
    assert [t.id for t in g.tactics if t.logged] == [7]
    assert f.tactic_reading is not None
    assert "263 = row 7 (Tactic128x128x256SwapSkConfig" in f.tactic_reading
    assert "producer variant 1 (not modeled)" in f.tactic_reading
    assert "not CUTLASS kernels" in f.explanation and not f.findings
    copy = _svdquant_cache_less_one(jit_modules, tmp_path)
    e = api.explain_log(log, copy)
    assert e.flashinfer_version == "0.7.4"
    (finding,) = e.findings
    assert (finding.rule, finding.runner_class) == ("CUT207", "Sm120FusedLinearRunner")
    assert finding.tactics == (1, 36, 37, 38, 39)
    assert finding.ids == tuple(r | v << 8 for r in (1, 36, 37, 38, 39) for v in range(34))
    assert finding.instantiation == (
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC(Tactic128x128x128SwapConfig)"
    )
    assert finding.path.endswith("gen_gemm_sm120_cutlass_nvfp4_svdquant")
    assert "[CUT207 tactic-not-instantiated]" in render_log_text(e)
    # the API holds every runner of the release to the cache's modules, no log needed
    found = api.runner_tactic_findings(copy)
    assert [(x.runner_class, x.tactics) for x in found] == [
        ("Nvfp4SvdquantGemmRunner", (1, 36, 37, 38, 39)),
        ("Sm120CutlassLinearRunner", (1, 36, 37, 38, 39)),
        ("Sm120FusedLinearRunner", (1, 36, 37, 38, 39)),
    ]
    assert found[2] == finding
    assert api.runner_tactic_findings(copy, flashinfer_version="0.7.4", arch="sm_121") == found
