"""The translation-unit front end on a fixture shaped like vLLM's c3x dispatch (fixtures/tu/):
config class templates reached only through dispatch function templates, a missing third-party
header, and a stand-in kernel shell so that the parse takes seconds, not a CUTLASS compile."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cutlint.engine.tu_judge import FAILS, FITS, UNDECIDED, judge
from cutlint.parse.tu import cache as tu_cache
from cutlint.parse.tu import from_flags, read_tu
from cutlint.tu_records import TuRead

pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

FIXTURES = Path(__file__).parents[3] / "fixtures" / "tu"
EXPECT = re.compile(r"//\s*expect:\s*\[(CUT\d{3}) ([a-z0-9-]+)\]\s*(?:\"([^\"]*)\")?")


@pytest.fixture(scope="module")
def read(tmp_path_factory: pytest.TempPathFactory) -> TuRead:
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUTLINT_CACHE", str(cache))
        command = from_flags(
            FIXTURES / "dispatch_on_m.cu",
            ["nvcc", f"-I{FIXTURES / 'include'}", "-gencode", "arch=compute_120a,code=sm_120a"],
        )
        first = read_tu(command)
        again = read_tu(command)
    assert again.cached and not first.cached
    assert again.kernels == first.kernels
    return first


def test_every_kernel_on_every_path(read: TuRead) -> None:
    measured = [
        k for k in read.kernels if k.compile_error is None and "Standalone" not in k.type_expr
    ]
    got = sorted((k.tile, k.type_expr.split("<")[1].split(",")[0]) for k in measured)
    assert got == [
        ("128x128x128", "char"),
        ("128x128x128", "short"),
        ("16x128x128", "char"),
        ("16x128x128", "short"),
    ]
    small = next(k for k in read.kernels if k.tile == "16x128x128" and "short" in k.type_expr)
    (path,) = small.paths
    assert small.conditions(path) == ("half", "!(m <= 8)", "m <= 16")
    big = next(k for k in read.kernels if k.tile == "128x128x128" and "char" in k.type_expr)
    # The `if (m <= 16) { ... return ...; }` above it puts its negation on the big tile.
    assert big.conditions(big.paths[0]) == ("!(half)", "!(m <= 8)", "!(m <= 16)")
    assert big.stages == 4 and big.cluster == "1x1x1" and big.max_threads == 384


def test_a_kernel_named_at_namespace_scope(read: TuRead) -> None:
    (k,) = [k for k in read.kernels if k.type_expr == "::demo::Standalone"]
    assert k.chosen_by.call == "using Standalone" and k.conditions(k.paths[0]) == ()
    assert (k.tile, k.stages, k.shared_storage) == ("64x128x128", 2, 32896)
    (shell,) = [k for k in read.kernels if k.type_expr == "::demo::StandaloneKernel"]
    assert (shell.tile, shell.stages, shell.shared_storage) == ("32x128x128", 2, 16512)


def test_a_kernel_that_does_not_instantiate_is_not_decidable(read: TuRead) -> None:
    broken = [k for k in read.kernels if k.compile_error is not None]
    assert [k.tile for k in broken] == ["8x128x128", "8x128x128"]
    assert all("at least 2 stages" in (k.compile_error or "") for k in broken)
    assert all(k.shared_storage is None for k in broken)


def test_missing_headers_are_stubbed_and_named(read: TuRead) -> None:
    assert "torch/all.h" in read.missing_headers


def test_fixture_expectations(read: TuRead) -> None:
    """Each `// expect:` names the next code line's kernel finding; every finding is expected."""
    lines = (FIXTURES / "dispatch_on_m.cu").read_text().splitlines()
    expected: dict[int, tuple[str, str]] = {}
    for i, line in enumerate(lines):
        m = EXPECT.search(line)
        if m:
            nxt = next(j for j in range(i + 1, len(lines)) if not lines[j].strip().startswith("//"))
            # the annotated line is the alias; the call that hands it on is the line after
            expected[nxt + 2] = (m[1], m[3] or "")
    verdicts = judge(read)
    found = {(v.kernel.chosen_by.line, f.rule, f.message) for v in verdicts for f in v.findings}
    for at, (rule, text) in expected.items():
        assert any(ln == at and r == rule and text in msg for ln, r, msg in found), (at, rule)
    assert {ln for ln, _, _ in found} <= set(expected)
    assert {v.verdict for v in verdicts} == {FITS, FAILS, UNDECIDED}


def test_cache_is_invalidated_by_an_included_file(tmp_path: Path, read: TuRead) -> None:
    dep = tmp_path / "dep.h"
    dep.write_text("x")
    tu_cache.store("k", read, [str(dep)])
    assert tu_cache.load("k") is not None
    dep.write_text("xy")
    assert tu_cache.load("k") is None


def test_cli_exit_code_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from click.testing import CliRunner

    from cutlint.cli import main

    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path))
    fixture = FIXTURES / "dispatch_on_m.cu"
    flags = ["--", f"-I{FIXTURES / 'include'}", "--cuda-gpu-arch=sm_120a"]
    result = CliRunner().invoke(main, ["tu", str(fixture), "--format", "json", *flags])
    assert result.exit_code == 1, result.output  # CUT211: a kernel fails initialize()
    (entry,) = json.loads(result.output)
    rules = {f["rule"] for v in entry["verdicts"] for f in v["findings"]}
    assert rules == {"CUT211", "CUT212"}
    # sm_90a allows 232,448 B: the 131,200 B kernel fits there
    again = CliRunner().invoke(main, ["tu", str(fixture), "--arch", "sm_90a", *flags])
    assert again.exit_code == 0, again.output
    assert "fails initialize()" not in again.output


def test_static_members_of_class_template_specializations(tmp_path: Path) -> None:
    """vLLM's W4A8 dispatch: `Kernel_16::mm(out)` with `using Kernel_16 = GemmKernelCfg<short,
    16>;`, a specialization written at the call, and a plain struct's static member: each
    kernel listed once, at the call, under its condition, named by the member alias."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUTLINT_CACHE", str(tmp_path))
        command = from_flags(
            FIXTURES / "static_member.cu",
            ["nvcc", f"-I{FIXTURES / 'include'}", "-gencode", "arch=compute_120a,code=sm_120a"],
        )
        read = read_tu(command, use_cache=False)
    got = {k.type_expr: k for k in read.kernels}
    assert sorted(got) == [
        "typename ::w4::Fixed::Gemm",
        "typename ::w4::GemmKernelCfg<char, 128>::GemmKernelShuffled",
        "typename ::w4::GemmKernelCfg<short, 16>::GemmKernelShuffled",
        "typename ::w4::GemmKernelCfg<short, 64>::GemmKernelShuffled",
    ]
    k16 = got["typename ::w4::GemmKernelCfg<short, 16>::GemmKernelShuffled"]
    (path,) = k16.paths
    assert k16.chosen_by.call == "::w4::GemmKernelCfg<short, 16>::mm(...)"
    assert k16.conditions(path) == ('schedule == "16"',)
    assert k16.tile == "16x128x128" and k16.stages == 4
    k64 = got["typename ::w4::GemmKernelCfg<short, 64>::GemmKernelShuffled"]
    assert k64.conditions(k64.paths[0]) == ('!(schedule == "16")', 'schedule == "64"')
    big = got["typename ::w4::GemmKernelCfg<char, 128>::GemmKernelShuffled"]
    assert big.conditions(big.paths[0]) == ('!(schedule == "16")', '!(schedule == "64")')
    verdicts = {v.kernel.type_expr: v.verdict for v in judge(read)}
    assert verdicts[big.type_expr] == FAILS and verdicts[k16.type_expr] == FITS
    assert got["typename ::w4::Fixed::Gemm"].stages == 3


def test_every_dispatch_path_to_a_kernel(tmp_path: Path) -> None:
    """A function reached along several paths lists its kernels under each, with each path's
    conditions (vLLM W4A8's `mm` calls `mm_dispatch` twice; a template called from two
    branches), and recursion ends the walk (a function calling itself, a caller handing itself
    a type grown from its own argument)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUTLINT_CACHE", str(tmp_path))
        command = from_flags(
            FIXTURES / "two_paths.cu",
            ["nvcc", f"-I{FIXTURES / 'include'}", "-gencode", "arch=compute_120a,code=sm_120a"],
        )
        read = read_tu(command, use_cache=False)
    got = {k.type_expr: k for k in read.kernels}
    assert sorted(got) == [
        "::paths::cfg<short, 16>::Gemm",
        "::paths::cfg<short, 32>::Gemm",
        "typename ::paths::cfg<char, 64>::Gemm",
    ]
    k16 = got["::paths::cfg<short, 16>::Gemm"]
    # mm_dispatch is an entry point of its own, and mm calls it twice
    assert [[s.call for s in p] for p in k16.paths] == [
        ["gemm_caller<::paths::cfg<short, 16>::Gemm>"],
        ["mm_dispatch(...)", "gemm_caller<::paths::cfg<short, 16>::Gemm>"],
        ["mm_dispatch(...)", "gemm_caller<::paths::cfg<short, 16>::Gemm>"],
    ]
    assert [k16.conditions(p) for p in k16.paths] == [
        ('schedule == "16"',),
        ("asked", 'schedule == "16"'),
        ("!(asked)", 'schedule == "16"'),
    ]
    assert k16.chosen_by.line == k16.paths[1][-1].line and k16.paths_omitted == 0
    k32 = got["::paths::cfg<short, 32>::Gemm"]
    assert [k32.conditions(p) for p in k32.paths] == [
        ('!(schedule == "16")',),
        ("asked", '!(schedule == "16")'),
        ("!(asked)", '!(schedule == "16")'),
    ]
    k64 = got["typename ::paths::cfg<char, 64>::Gemm"]
    assert [k64.conditions(p) for p in k64.paths] == [("bias",), ("!(bias)", "half")]
    assert all(k.tile and k.stages == 2 for k in read.kernels)
    # the grown argument is cut at once: no `::GemmKernel::GemmKernel` candidate reached clang
    assert not any("GemmKernel::GemmKernel" in n for n in read.unresolved)


def test_paths_beyond_the_caps_are_counted_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More paths than a kernel lists (front.MAX_PATHS) are counted on the kernel; more than the
    walk follows (chain.MAX_PATHS_FOLLOWED) are named in a note: never dropped silently."""
    from cutlint.parse.tu import chain, front

    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path))
    monkeypatch.setattr(front, "MAX_PATHS", 2)
    command = from_flags(
        FIXTURES / "two_paths.cu",
        ["nvcc", f"-I{FIXTURES / 'include'}", "-gencode", "arch=compute_120a,code=sm_120a"],
    )
    read = read_tu(command, use_cache=False)
    k16 = next(k for k in read.kernels if k.type_expr == "::paths::cfg<short, 16>::Gemm")
    assert len(k16.paths) == 2 and k16.paths_omitted == 1
    monkeypatch.setattr(chain, "MAX_PATHS_FOLLOWED", 1)
    read = read_tu(command, use_cache=False)
    k16 = next(k for k in read.kernels if k.type_expr == "::paths::cfg<short, 16>::Gemm")
    assert len(k16.paths) == 1
    assert any(
        n.startswith("::paths::cfg<short, 16>::Gemm: 2 more dispatch paths not followed")
        for n in read.unresolved
    ), read.unresolved
