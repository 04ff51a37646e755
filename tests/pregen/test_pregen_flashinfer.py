"""`pregen flashinfer`: the generator's own enumeration, in-process, judged like `check`."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.pregen import render
from cutlint.pregen.records import FAILING
from cutlint.producers.flashinfer.enumerate import enumerate_operations
from cutlint.producers.flashinfer.tactics import QuantMode, runner_tactics
from cutlint.producers.flashinfer.wheel import load_generator
from cutlint.records import Verdict

VERSIONS = ("0.6.3", "0.7.2.post1")
TABLE_VERSIONS = ("0.6.3", "0.6.4", "0.7.2.post1", "0.7.4")


def _key(path: str, line: int) -> tuple[str, int]:
    return Path(path).name, line


@pytest.mark.parametrize("version", VERSIONS)
def test_pregen_names_the_operations_check_finds_failing(
    version: str, flashinfer_root: Any, real_cache: Any
) -> None:
    """The must-show, for both releases: same files, same lines, same numbers, same verdicts, for
    every operation of the cache (SM120 block-scaled, SM80 fused MoE, and the fpA_intB ones the
    SM120 module compiles out)."""
    pre = api.pregen_flashinfer(root=flashinfer_root(version), version=version, arch="sm120")
    checked = api.check([real_cache(version).parent.parent])  # cutlass_instantiations/120
    by_check = {
        _key(r.instantiation.span.path, r.instantiation.span.line): r
        for f in checked.files
        for r in f.instantiations
    }
    ops = {
        _key(o.result.instantiation.span.path, o.result.instantiation.span.line): o.result
        for o in pre.operations
    }
    assert ops.keys() == by_check.keys() and len(ops) == len(pre.operations)
    for key, r in ops.items():
        c = by_check[key]
        assert r.instantiation.args == c.instantiation.args, key
        assert r.verdict is c.verdict, key
        assert (r.not_modeled is None) == (c.not_modeled is None), key
        if r.resources or c.resources:
            assert r.resources and c.resources
            assert (r.resources.stage_count.stages, r.resources.layout.size) == (
                c.resources.stage_count.stages,
                c.resources.layout.size,
            )
    failing_pre = {
        _key(o.result.instantiation.span.path, o.result.instantiation.span.line)
        for o in pre.failing
    }
    failing_check = {k for k, r in by_check.items() if r.verdict in FAILING}
    assert failing_pre == failing_check and len(failing_pre) == 24  # 4 SM120 + 20 SM80 fused
    assert Counter(r.verdict for r in ops.values())[Verdict.INACTIVE] == 378


def test_the_enumeration_writes_nothing_and_restores_the_generator(
    flashinfer_root: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    gen = load_generator(flashinfer_root("0.7.2.post1"))
    write_file, clean = gen.write_file, gen.clean_leftover_files
    ops = enumerate_operations(gen, "120;120-real")
    assert ops and gen.write_file is write_file and gen.clean_leftover_files is clean
    assert list(tmp_path.iterdir()) == []
    first = ops[0]
    assert first.file.startswith("gemm_grouped/120/") and first.line == 11 and first.column == 9


def test_blocked_tactics_are_the_failing_configs(flashinfer_root: Any) -> None:
    """The key names no dtype: with every runner that shares it, NVFP4's failing GEMM2 ids 26
    and 27 are FP8 x FP8 ids that run (withheld), and FP8 x FP8's failing GEMM1 ids 19 and 20
    are ids no other runner of that key has failing or running otherwise (blocked). Naming the
    runners a deployment uses blocks what fails for those."""
    root = flashinfer_root("0.7.2.post1")
    pre = api.pregen_flashinfer(root=root, version="0.7.2.post1")
    assert [(b.key, b.tactic) for b in pre.blocked] == [
        ("trtllm::fused_moe::gemm1::MoERunner", 19),
        ("trtllm::fused_moe::gemm1::MoERunner", 20),
    ]
    assert all("104,448 B" in b.reason or "139,264 B" in b.reason for b in pre.blocked)
    withheld = {(w.key.split("::")[-2], w.tactic): w.reason for w in pre.withheld}
    assert "FP8 x FP8 (e4m3, cutlass::arch::Sm89): runs" in withheld[("gemm2", 26)]
    nvfp4 = api.pregen_flashinfer(
        root=root, version="0.7.2.post1", runners=["nvfp4", "mxfp8_mxfp4"]
    )
    assert [(b.key, b.tactic) for b in nvfp4.blocked] == [
        ("trtllm::fused_moe::gemm2::MoERunner", 26),
        ("trtllm::fused_moe::gemm2::MoERunner", 27),
    ]
    assert nvfp4.withheld == ()
    assert {
        o.tactics for o in nvfp4.failing if "/gemm_grouped/120/" in o.result.instantiation.span.path
    } == {(26,), (27,)}


def test_ids_another_runner_runs_are_withheld(flashinfer_root: Any) -> None:
    """0.6.3 offers FP8 x FP4 configs with K = 64 that its launcher cannot dispatch (class B,
    flashinfer#3119); their ids are NVFP4 configs that run, so they stay out of the blocklist."""
    pre = api.pregen_flashinfer(
        root=flashinfer_root("0.6.3"), version="0.6.3", runners=["nvfp4", "mxfp8_mxfp4"]
    )
    assert [b.tactic for b in pre.blocked] == [14, 15]
    assert pre.withheld and all("nvfp4: runs" in w.reason for w in pre.withheld)
    assert any("tactics_blocklist.py" in n for n in pre.notes)


@pytest.mark.parametrize("version", ["0.6.4", "0.7.4"])
def test_the_fp8_runners_tactics_are_listed_with_ids_and_verdicts(
    version: str, flashinfer_root: Any
) -> None:
    """No file names MoeGemmRunner's CUTLASS 2.x grouped tactics; pregen lists them from the
    runner's own lists, with the autotuner's ids, and blocks FP8 x FP8's 16x256x128 at 3 and 4
    stages (104,448 and 139,264 B > 101,376 B on SM120)."""
    pre = api.pregen_flashinfer(root=flashinfer_root(version), version=version, arch="sm120")
    fp8 = [t for t in pre.runner_tactics if t.kind == "e4m3"]
    assert [t.tactic for t in fp8] == list(range(42))
    assert [t.tactic for t in fp8 if t.status == "fails"] == [19, 20, 40, 41]
    assert fp8[19].config == "GEMM1 16x256x128 warp 16x64x128 stages=3 (Sm89)"
    assert fp8[19].verdict == "GroupedGEMM fails (104,448 B)"
    assert fp8[40].key == "trtllm::fused_moe::gemm2::MoERunner"
    prefilter = version == "0.7.4"
    assert all((t.prefilter is not None) == prefilter for t in pre.runner_tactics)
    f16 = {t.tactic: t for t in pre.runner_tactics if t.kind == "f16"}
    assert len(f16) == 18 and f16[5].status == "partly" and f16[8].status == "fails"
    blocked = {(b.key.split("::")[-2], b.tactic) for b in pre.blocked}
    assert {("gemm1", 19), ("gemm1", 20)} <= blocked
    text = render.render_text(pre)
    assert "FP8 x FP8 (e4m3, cutlass::arch::Sm89): 42 ids (0-41), 4 fail: 19, 20, 40, 41" in text
    # the SM80 fused-MoE operations name the 16-bit runners' GEMM1 ids they serve
    fused = [o for o in pre.operations if "/gemm_grouped/80/" in o.result.instantiation.span.path]
    # (the 16xN tiles the generator also writes are in no 16-bit candidate list: no id)
    served = {render.describe(o.result): o.tactics for o in fused}
    assert served["half_t 64x128x64, 4 stages, Swiglu"] == (5,)
    assert served["bfloat16_t 128x128x64, 2 stages, Geglu"] == (6,)
    assert served["half_t 16x256x64, 3 stages, Swiglu"] == ()


def _cpp_tiles(root: Path) -> list[str]:
    """The CtaShape names in get_candidate_configs_sm120 outside its FAST_BUILD branch."""
    cpp = (
        root
        / "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp"
    ).read_text()
    body = cpp[cpp.index("get_candidate_configs_sm120(\n") :]
    body = body[: body.index("\nstd::vector<CutlassGemmConfig> get_candidate_configs(")]
    if "#else" in body:
        body = body[body.index("#else") :]
    return re.findall(r"CtaShape(\d+x\d+x\d+)B", body)


@pytest.mark.parametrize("version", TABLE_VERSIONS)
def test_the_tactic_table_follows_the_wheels_cpp(version: str, flashinfer_root: Any) -> None:
    root = flashinfer_root(version)
    names = _cpp_tiles(root)
    table = runner_tactics(version, QuantMode.NVFP4)
    assert table is not None
    ours = [f"{c.tile.m}x{c.tile.n}x{c.tile.k // 2}" for c in table.of_gemm(1) if not c.swap_ab]
    it = iter(names)
    assert all(t in it for t in ours), (ours, names)  # in the C++ order
    dispatch = (
        root
        / "flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_template_dispatch.h"
    ).read_text()
    assert dispatch.index("EpilogueFusionType::FINALIZE;") < dispatch.index(
        "auto swap_ab_configs = tma_ws_configs;"
    )


def test_cli_pregen(flashinfer_root: Any, tmp_path: Path) -> None:
    root = str(flashinfer_root("0.7.2.post1"))
    out = CliRunner().invoke(
        main,
        [
            "pregen",
            "flashinfer",
            "--root",
            root,
            "--arch",
            "sm120",
            "--emit-blocklist",
            str(tmp_path / "bl.json"),
        ],
    )
    assert out.exit_code == 1, out.output
    assert "526 operations: 24 would fail on sm_120" in out.output
    assert "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu:60" in out.output
    assert json.loads((tmp_path / "bl.json").read_text())["invalid_tactics"] == {
        "trtllm::fused_moe::gemm1::MoERunner": [19, 20]
    }
    data = json.loads(
        CliRunner()
        .invoke(main, ["pregen", "flashinfer", "--root", root, "--format", "json"])
        .output
    )
    assert data["summary"] == {
        "operations": 526,
        "failing": 24,
        "blocked": 2,
        "withheld": 8,
        "gemm_runner_tactics_failing": 0,
        "findings": 0,
    }
    # the dense MXFP8 and FP4 runners and the groupwise FP8 one
    assert len(data["gemm_runner_tactics"]) == 6 + 32 + 1
    assert len(data["runner_tactics"]) == 42 + 18 + 18
    assert (
        CliRunner()
        .invoke(main, ["pregen", "flashinfer", "--root", root, "--arch", "sm_99"])
        .exit_code
        == 2
    )
    assert (
        CliRunner().invoke(main, ["pregen", "flashinfer", "--root", str(tmp_path)]).exit_code == 2
    )


def test_the_dense_gemm_runners_are_listed_and_blocked_under_their_own_keys(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """0.6.11.post2's MXFP8 runner has the 256x128 and 128x256 tactics (flashinfer#3568): ids 6-9
    cannot initialize on sm_120, and are blocked under mxfp8_gemm::CutlassMxfp8GemmRunner; the FP4
    runner's 32 run. 0.7.4 removed them (flashinfer#4013); another arch lists none."""
    root = flashinfer_root("0.6.11.post2")
    pre = api.pregen_flashinfer(root=root, version="0.6.11.post2", arch="sm_120")
    by_runner = Counter(t.runner for t in pre.gemm_runner_tactics)
    assert by_runner == {
        "[MXFP8 SM120 gemm Runner]": 10,
        "[FP4 gemm Runner]": 32,
        "CutlassFp8GemmRunner (gemm_sm120)": 1,
    }
    assert [t.tactic for t in pre.failing_gemm_runner_tactics] == [6, 7, 8, 9]
    assert all(t.smem == 111616 for t in pre.failing_gemm_runner_tactics)
    dense = [(b.key, b.tactic) for b in pre.blocked if "Cutlass" in b.key]
    assert dense == [("mxfp8_gemm::CutlassMxfp8GemmRunner", i) for i in (6, 7, 8, 9)]
    out = CliRunner().invoke(
        main,
        ["pregen", "flashinfer", "--root", str(root), "--version", "0.6.11.post2", "--arch",
         "sm_120", "--emit-blocklist", str(tmp_path / "bl.json")],
    )  # fmt: skip
    assert out.exit_code == 1, out.output
    assert (
        "[MXFP8 SM120 gemm Runner] (mxfp8_gemm::CutlassMxfp8GemmRunner): 10 ids (0-9), 4 fail: 6, 7, 8, 9"
        in out.output
    )
    invalid = json.loads((tmp_path / "bl.json").read_text())["invalid_tactics"]
    assert invalid["mxfp8_gemm::CutlassMxfp8GemmRunner"] == [6, 7, 8, 9]
    assert not any("CutlassFp4GemmRunner" in k for k in invalid)
    fixed = api.pregen_flashinfer(root=flashinfer_root("0.7.4"), version="0.7.4", arch="sm_121")
    # 0.7.4 adds the SVDQuant runner's 83 runtime tactics, numbered by mm_nvfp4_svdquant's runner
    # and svdquant_linear's two; all fit (the header static_asserts SharedStorageSize <= 101,376 B)
    # and the groupwise FP8 runner's one tactic (-1), in every release
    assert len(fixed.gemm_runner_tactics) == 6 + 32 + 3 * 83 + 1
    assert not fixed.failing_gemm_runner_tactics and not fixed.findings
    hopper = api.pregen_flashinfer(root=flashinfer_root("0.7.4"), version="0.7.4", arch="sm_90")
    assert hopper.gemm_runner_tactics == ()


def test_a_release_without_a_runner_says_so_and_lists_the_runners_it_has(
    flashinfer_root: Any,
) -> None:
    """0.6.3 has the FP4 runner (one tactic, 128x128x128B) but no MXFP8 one; 0.6.8.post1 has both
    (MXFP8: 3 tiles without SwapAB, StageCount<2>: the 256x128 and 128x256 ids 1 and 2 fail; FP4:
    3 tiles x DP/Stream-K, which fit). 0.6.3's FP4 header (one kernel, StageCount<2>, CUTLASS
    4.2.1): its one tactic fits (47,104 B), none blocked."""
    pre = api.pregen_flashinfer(root=flashinfer_root("0.6.3"), version="0.6.3", arch="sm_120")
    assert [(t.runner, t.tactic, t.verdict, t.smem) for t in pre.gemm_runner_tactics] == [
        ("[FP4 gemm Runner]", 0, "fits", 47104),
        ("CutlassFp8GemmRunner (gemm_sm120)", -1, "fits", 81920),
    ]
    assert not [b for b in pre.blocked if "Fp4" in b.key]
    assert any(
        n.startswith("[MXFP8 SM120 gemm Runner] in FlashInfer 0.6.3: no such runner")
        for n in pre.notes
    )
    old = api.pregen_flashinfer(
        root=flashinfer_root("0.6.8.post1"), version="0.6.8.post1", arch="sm_120"
    )
    by_runner = Counter(t.runner for t in old.gemm_runner_tactics)
    assert by_runner == {
        "[MXFP8 SM120 gemm Runner]": 3,
        "[FP4 gemm Runner]": 6,
        "CutlassFp8GemmRunner (gemm_sm120)": 1,
    }
    assert [(t.tactic, t.smem) for t in old.failing_gemm_runner_tactics] == [
        (1, 111616), (2, 111616)
    ]  # fmt: skip
    fp4 = [(t.verdict, t.smem) for t in old.gemm_runner_tactics if "FP4" in t.runner]
    assert fp4 == [("fits", 83968)] * 4 + [("fits", 93184)] * 2
    dense = [(b.key, b.tactic) for b in old.blocked if "Cutlass" in b.key]
    assert dense == [
        ("mxfp8_gemm::CutlassMxfp8GemmRunner", 1),
        ("mxfp8_gemm::CutlassMxfp8GemmRunner", 2),
    ]


def test_the_groupwise_runner_is_listed_under_its_own_key(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """gemm_sm120's CutlassFp8GemmRunner (fp8_gemm_sm100 appends it on SM12x): its one tactic, -1,
    runs CutlassGroupwiseScaledGEMMSM120<1, 128, 128, false> (81,920 B, fits), held to the
    rendered module's instantiations; nothing to block. 0.6.11.post2 tunes it under two ops."""
    root = flashinfer_root("0.6.11.post2")
    pre = api.pregen_flashinfer(root=root, version="0.6.11.post2", arch="sm_121")
    (gw,) = [t for t in pre.gemm_runner_tactics if t.runner_class == "CutlassFp8GemmRunner"]
    assert (gw.tactic, gw.ids, gw.config, gw.tile, gw.verdict, gw.stages, gw.smem) == (
        -1, (-1,), "Groupwise1x128x128MN SwapAB off default", "128x128x128", "fits", 2, 81920
    )  # fmt: skip
    assert gw.keys == (
        "fp8_gemm::CutlassFp8GemmRunner",
        "fp8_gemm_sm121_specialized::CutlassFp8GemmRunner",
    )
    assert not [f for f in pre.findings if f.runner_class == "CutlassFp8GemmRunner"]
    assert not [n for n in pre.notes if "gemm_sm120" in n]
    out = CliRunner().invoke(
        main,
        ["pregen", "flashinfer", "--root", str(root), "--version", "0.6.11.post2", "--arch",
         "sm_120", "--emit-blocklist", str(tmp_path / "bl.json")],
    )  # fmt: skip
    assert (
        "CutlassFp8GemmRunner (gemm_sm120) (fp8_gemm::CutlassFp8GemmRunner, "
        "fp8_gemm_sm121_specialized::CutlassFp8GemmRunner): 1 id (-1), none fails" in out.output
    )
    invalid = json.loads((tmp_path / "bl.json").read_text())["invalid_tactics"]
    assert not any("CutlassFp8GemmRunner" in k for k in invalid)


def test_the_svdquant_runner_is_listed_under_its_own_key(flashinfer_root: Any) -> None:
    """0.7.4: the SVDQuant runner's 83 runtime tactics, with their scheduler parameters, under
    nvfp4_svdquant_gemm_sm120_v3::Nvfp4SvdquantGemmRunner; none is blocked on sm_120."""
    pre = api.pregen_flashinfer(root=flashinfer_root("0.7.4"), version="0.7.4", arch="sm_120")
    svdq = [t for t in pre.gemm_runner_tactics if t.runner_class == "Nvfp4SvdquantGemmRunner"]
    assert [t.tactic for t in svdq] == list(range(83))
    assert all(
        t.keys
        == (
            "nvfp4_svdquant_gemm_sm120_v3::Nvfp4SvdquantGemmRunner",
            "nvfp4_svdquant_gemm_sm120_v3_r64::Nvfp4SvdquantGemmRunner",
        )
        for t in svdq
    )
    assert svdq[32].config == "Tactic128x128x128Config SwapAB off default raster AlongM"
    assert all(t.verdict == "fits" for t in svdq)
    assert not any("Svdquant" in b.key for b in pre.blocked)


def _mirror(root: Path, out: Path, path: str, edit: Any) -> Path:
    """`root` again under `out`, each entry a symlink, except `path` (relative), written as
    `edit` makes it from the original."""
    parts = Path(path).parts
    src, dst = root, out
    for part in parts[:-1]:
        dst.mkdir(parents=True, exist_ok=True)
        for entry in src.iterdir():
            if entry.name != part:
                (dst / entry.name).symlink_to(entry)
        src, dst = src / part, dst / part
    dst.mkdir(parents=True, exist_ok=True)
    for entry in src.iterdir():
        if entry.name != parts[-1]:
            (dst / entry.name).symlink_to(entry)
    (dst / parts[-1]).write_text(edit((src / parts[-1]).read_text()))
    return out


def test_the_svdquant_linear_runners_and_a_module_less_one_config(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """0.7.4: svdquant_linear's runners are listed beside mm_nvfp4_svdquant's, each under its
    own keys (the fused runner's 83 rows are 2,822 packed ids); none fails. A release tree whose
    JIT renders no Tactic128x128x128SwapConfig file: its five tactics are a CUT207 finding of
    each SVDQuant runner, and blocked (the fused runner's under every packed id)."""
    root = flashinfer_root("0.7.4")
    pre = api.pregen_flashinfer(root=root, version="0.7.4", arch="sm_120")
    svdq = Counter(
        t.runner_class for t in pre.gemm_runner_tactics if t.runner.startswith("nvfp4_svdquant")
    )
    assert svdq == {
        "Nvfp4SvdquantGemmRunner": 83, "Sm120CutlassLinearRunner": 83, "Sm120FusedLinearRunner": 83
    }  # fmt: skip
    fused = [t for t in pre.gemm_runner_tactics if t.runner_class == "Sm120FusedLinearRunner"]
    assert sum(len(t.ids) for t in fused) == 2822 and fused[7].ids[:2] == (7, 263)
    assert len(fused[0].keys) == 14 and not pre.findings and not pre.failing_gemm_runner_tactics
    assert any("not CUTLASS kernels" in n for n in pre.notes)
    less = _mirror(
        root,
        tmp_path / "root",
        "flashinfer/jit/gemm/svdquant_sm120_configs.py",
        lambda text: text.replace('    "Tactic128x128x128SwapConfig",\n', ""),
    )
    cut = api.pregen_flashinfer(root=less, version="0.7.4", arch="sm_120")
    assert [(f.rule, f.runner_class, f.tactics) for f in cut.findings] == [
        ("CUT207", c, (1, 36, 37, 38, 39))
        for c in ("Nvfp4SvdquantGemmRunner", "Sm120CutlassLinearRunner", "Sm120FusedLinearRunner")
    ]
    assert cut.findings[0].path == (
        "flashinfer/0.7.4/120f/generated/gen_gemm_sm120_cutlass_nvfp4_svdquant"
    )
    assert {(t.runner_class, t.tactic) for t in cut.failing_gemm_runner_tactics} == {
        (c, i)
        for c in ("Nvfp4SvdquantGemmRunner", "Sm120CutlassLinearRunner", "Sm120FusedLinearRunner")
        for i in (1, 36, 37, 38, 39)
    }
    blocked = {(b.key, b.tactic) for b in cut.blocked if "svdquant" in b.key}
    key = "svdquant_linear_sm120_routes_v5_tactics_v3_pdl::Sm120FusedLinearRunner"
    assert {i for k, i in blocked if k == key} == {
        r | v << 8 for r in (1, 36, 37, 38, 39) for v in range(34)
    }
    assert {i for k, i in blocked if k.endswith("::Nvfp4SvdquantGemmRunner")} == {1, 36, 37, 38, 39}
    text = render.render_text(cut)
    assert "[CUT207 tactic-not-instantiated]" in text
    assert "Sm120FusedLinearRunner (svdquant_linear_sm120_routes_v5_tactics_v3::" in text
    assert json.loads(render.render_json(cut))["summary"]["findings"] == 3
    out = CliRunner().invoke(
        main,
        ["pregen", "flashinfer", "--root", str(less), "--version", "0.7.4", "--arch", "sm_120",
         "--emit-blocklist", str(tmp_path / "bl.json")],
    )  # fmt: skip
    assert out.exit_code == 1, out.output
    invalid = json.loads((tmp_path / "bl.json").read_text())["invalid_tactics"]
    assert len(invalid[key]) == 5 * 34
