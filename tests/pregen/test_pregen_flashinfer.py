"""`pregen flashinfer`: the generator's own enumeration, in-process, judged like `check`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.pregen.records import FAILING
from cutlint.producers.flashinfer.enumerate import enumerate_operations
from cutlint.producers.flashinfer.tactics import QuantMode, runner_tactics
from cutlint.producers.flashinfer.wheel import load_generator

VERSIONS = ("0.6.3", "0.7.2.post1")


def _key(path: str, line: int) -> tuple[str, int]:
    return Path(path).name, line


@pytest.mark.parametrize("version", VERSIONS)
def test_pregen_names_the_operations_check_finds_failing(
    version: str, flashinfer_root: Any, real_cache: Any
) -> None:
    """The must-show, for both releases: same files, same lines, same numbers, same failures."""
    pre = api.pregen_flashinfer(root=flashinfer_root(version), version=version, arch="sm120")
    checked = api.check([real_cache(version)])
    by_check = {
        _key(r.instantiation.span.path, r.instantiation.span.line): r
        for f in checked.files
        for r in f.instantiations
    }
    sm120 = {
        _key(o.result.instantiation.span.path, o.result.instantiation.span.line): o.result
        for o in pre.operations
        if "/gemm_grouped/120/" in o.result.instantiation.span.path
    }
    assert sm120.keys() == by_check.keys()
    for key, r in sm120.items():
        c = by_check[key]
        assert r.instantiation.args == c.instantiation.args, key
        assert r.verdict is c.verdict, key
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
    assert failing_pre == failing_check and len(failing_pre) == 4


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
    pre = api.pregen_flashinfer(root=flashinfer_root("0.7.2.post1"), version="0.7.2.post1")
    assert [(b.key, b.tactic) for b in pre.blocked] == [
        ("trtllm::fused_moe::gemm2::MoERunner", 26),
        ("trtllm::fused_moe::gemm2::MoERunner", 27),
    ]
    assert pre.withheld == ()
    assert {o.tactics for o in pre.failing} == {(26,), (27,)}


def test_ids_another_runner_runs_are_withheld(flashinfer_root: Any) -> None:
    """0.6.3 offers FP8 x FP4 configs with K = 64 that its launcher cannot dispatch (class B,
    flashinfer#3119); their ids are NVFP4 configs that run, so they stay out of the blocklist."""
    pre = api.pregen_flashinfer(root=flashinfer_root("0.6.3"), version="0.6.3")
    assert [b.tactic for b in pre.blocked] == [14, 15]
    assert pre.withheld and all("nvfp4: runs" in w.reason for w in pre.withheld)
    assert any("tactics_blocklist.py" in n for n in pre.notes)


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


@pytest.mark.parametrize("version", VERSIONS)
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
    assert "526 operations: 4 would fail on sm_120" in out.output
    assert "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu:60" in out.output
    assert json.loads((tmp_path / "bl.json").read_text())["invalid_tactics"] == {
        "trtllm::fused_moe::gemm2::MoERunner": [26, 27]
    }
    data = json.loads(
        CliRunner()
        .invoke(main, ["pregen", "flashinfer", "--root", root, "--format", "json"])
        .output
    )
    assert data["summary"] == {"operations": 526, "failing": 4, "blocked": 2, "withheld": 0}
    assert (
        CliRunner()
        .invoke(main, ["pregen", "flashinfer", "--root", root, "--arch", "sm_99"])
        .exit_code
        == 2
    )
    assert (
        CliRunner().invoke(main, ["pregen", "flashinfer", "--root", str(tmp_path)]).exit_code == 2
    )
