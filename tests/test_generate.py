"""`cutlint generate` and the one cache every download goes to (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import cache_dir
from cutlint.cli import main
from cutlint.producers.flashinfer.wheel import download_wheel
from cutlint.verify import cache as verify_cache

VERSION = "0.7.2.post1"


def generate(out: Path, *args: str) -> Path:
    done = CliRunner().invoke(
        main, ["generate", "flashinfer", VERSION, "--out", str(out), *args], catch_exceptions=False
    )
    assert done.exit_code == 0, done.output
    return Path(done.stdout.strip())


def test_generate_prints_the_generated_root_with_every_file(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    flashinfer_root(VERSION)  # in the wheel cache (or skipped when it cannot be had)
    printed = generate(tmp_path / "out")
    assert printed.name == "generated" and printed.is_dir()
    # FlashInfer 0.7.x's JIT on CUDA 13.0 (generate's default --cuda) writes 12.0's cache
    # under 120f (releases.toml jit_arch_dirs)
    assert printed == tmp_path / "out" / "flashinfer" / VERSION / "120f" / "generated"
    written = sorted(printed.rglob("*.cu"))
    assert len(written) == len(list((tmp_path / "out").rglob("*.cu"))) > 11
    # the wheel went to cutlint's cache, not into the output tree
    assert not [p for p in (tmp_path / "out").rglob("*") if "wheel" in p.name or p.suffix == ".whl"]
    assert not (tmp_path / "out" / "cutlint-wheels").exists()
    data = json.loads(CliRunner().invoke(main, ["check", str(printed), "--format", "json"]).stdout)
    assert data["summary"]["files"] == len(written)


def test_generate_for_sm121_prints_a_directory_that_exists(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    flashinfer_root(VERSION)
    printed = generate(tmp_path, "--sm", "121")
    assert printed.is_dir() and printed.name == "generated"
    assert list(printed.rglob("*sm120*.generated.cu"))  # Sm120 kernels serve 12.1 too


def test_generate_with_the_jit_modules_prints_a_directory_that_holds_both(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """The JIT writes its GEMM modules and the generator's files under one arch directory (`120f`
    for 0.7.x on CUDA 13.0), each module's build.ninja beside it, so `cutlint check "$(cutlint
    generate ... --jit-gemm)"` reads both in a context the build says."""
    flashinfer_root(VERSION)
    printed = generate(tmp_path, "--jit-gemm", "-q")
    assert printed == tmp_path / "flashinfer" / VERSION / "120f" / "generated"
    assert list((printed / "cutlass_instantiations").rglob("*.cu"))
    assert list(printed.rglob("gen_gemm_sm120*/*.cu"))
    assert (printed.parent / "cached_ops" / "fused_moe_120" / "build.ninja").is_file()
    data = json.loads(CliRunner().invoke(main, ["check", str(printed), "--format", "json"]).stdout)
    summary = data["summary"]
    assert summary["files"] + summary["skipped"] == len(list(printed.rglob("*.cu")))
    assert "not modeled" not in summary["by_verdict"]


def test_one_cache_directory_for_every_download(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(cache_dir.ENV, str(tmp_path))
    assert cache_dir.cache_dir() == tmp_path
    assert cache_dir.wheels_dir() == tmp_path / "wheels"
    assert (
        verify_cache.default_cache_dir() / "wheels" == cache_dir.wheels_dir()
    )  # verify --download
    assert cache_dir.generated_dir() == tmp_path / "generated"
    ready = tmp_path / "wheels" / "flashinfer-9.9.9"
    (ready / "flashinfer" / "jit").mkdir(parents=True)
    assert download_wheel("9.9.9") == ready  # generate, pregen and the tests look here first
    monkeypatch.delenv(cache_dir.ENV)
    default = cache_dir.cache_dir()
    assert default == Path.home() / ".cache" / "cutlint"
    assert "flashinfer" not in default.parts  # never FlashInfer's own JIT cache


def test_generate_help_names_the_default_and_the_cache() -> None:
    text = CliRunner().invoke(main, ["generate", "flashinfer", "--help"]).output
    assert "$CUTLINT_CACHE/generated" in text and "$CUTLINT_CACHE/wheels" in text


def test_the_readme_output_is_what_the_readme_command_prints(
    flashinfer_root: Any, tmp_path: Path
) -> None:
    """The README pastes pieces of `cutlint check "$(cutlint generate flashinfer 0.7.2.post1
    --out /tmp/cutlint-demo)"`, separated by `...` lines: each piece is printed as it stands, in
    the README's order, and the last one ends the output."""
    flashinfer_root(VERSION)
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    block = readme.split("```sh\npython3 -m venv .venv && . .venv/bin/activate", 1)[1]
    pasted = block.split("```\n", 2)[2].split("\n```", 1)[0].replace("/tmp/cutlint-demo", "DEMO")
    pieces = [part.strip("\n").splitlines() for part in pasted.split("\n...\n")]
    printed = generate(tmp_path / "demo")
    done = CliRunner().invoke(main, ["check", str(printed)])
    assert done.exit_code == 1
    lines = done.stdout.replace(str(tmp_path / "demo"), "DEMO").splitlines()
    assert len(pieces) >= 2 and lines[-len(pieces[-1]) :] == pieces[-1]
    at = 0
    for piece in pieces:
        starts = [i for i in range(at, len(lines)) if lines[i : i + len(piece)] == piece]
        assert starts, f"not printed (in this order): {piece[0]!r}"
        at = starts[0] + len(piece)
