"""`pregen cutlass-library`: CUTLASS's own manifest enumeration (the nvidia-cutlass wheel's
`cutlass_library`, run at test time), in-process, judged like `check` judges the written build,
and an exclusion the generator itself honours."""

from __future__ import annotations

import ast
import builtins
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.pregen import render_cutlass_library as render
from cutlint.pregen.cutlass_library import check_options, cutlass_architectures, write_ignore
from cutlint.pregen.records import CutlassLibraryPregenResult
from cutlint.producers.cutlass_library import generate as cutlass_library
from cutlint.producers.cutlass_library.enumerate import (
    BLACKWELL_ARCHS,
    GENERATE,
    GENERATE_BLACKWELL,
    enumerate_kernels,
)
from cutlint.producers.cutlass_library.exclusion import exclusion, matches, selected
from cutlint.records import Verdict

KERNELS = (
    "cutlass3x_sm120_bstensorop_gemm_ue8m0xe2m1_ue8m0xe2m1,"
    "cutlass3x_sm120_tensorop_gemm_1x128f32xe4m3_1x128f32xe4m3,"
    "cutlass3x_sm120_sptensorop,"
    "cutlass_tensorop_s16816gemm_f16_*_nn_align8,"
    "cutlass_simt_sgemm_128x128,"
    "s1688trmm_128x128_16x5_tn,"
    "i16832fprop_optimized_s8_64x128"
)
"""A `--kernels` filter of 176 kernels for 120a, of every kind the 120a build has: SM120
block-scaled, blockwise and sparse CollectiveBuilder chains (gemm/120), CUTLASS 2.x
DefaultGemmUniversal (gemm/80), SIMT (gemm/50), TRMM and conv2d fprop."""
COUNT = 176


@pytest.fixture(scope="module")
def wheel() -> Path:
    try:
        return cutlass_library.download()
    except cutlass_library.CutlassLibraryError as e:
        pytest.skip(f"nvidia-cutlass unavailable: {e}")


def _files(generated: Path) -> dict[str, str]:
    """Every file of a written build, by its path from the build directory."""
    base = generated.parent
    return {
        p.relative_to(base).as_posix(): p.read_text() for p in generated.rglob("*") if p.is_file()
    }


def test_the_enumeration_is_the_written_build_byte_for_byte(
    wheel: Path, cutlass_library_build: Callable[..., Path]
) -> None:
    """Same files, same text: the in-memory emit is the generator's own (manifest.cmake names the
    build directory, which is "" in memory)."""
    generated = cutlass_library_build("120a", KERNELS)
    on_disk = _files(generated)
    cmake = "generated/manifest.cmake"
    on_disk[cmake] = on_disk[cmake].replace(f"{generated.parent}/", "")
    found = enumerate_kernels(wheel, "120a", KERNELS)
    assert dict(found.files) == on_disk
    assert len(found.kernels) == COUNT
    assert {k.path for k in found.kernels} == {
        p for p, text in on_disk.items() if "manifest.append(" in text
    }


def test_pregen_gives_what_check_gives_for_every_kernel(
    wheel: Path, cutlass_library_build: Callable[..., Path]
) -> None:
    """The must-show: each kernel's instantiations, resources, verdict, findings and their
    fingerprints equal `check`'s on the build the generator writes (same options: the arch and
    the wheel's CUTLASS), whatever the families model today."""
    generated = cutlass_library_build("120a", KERNELS)
    build = generated.parent
    pre = api.pregen_cutlass_library(arch="sm_120", kernels=KERNELS, root=wheel)
    options = check_options(wheel, "sm_120", None)
    checked = api.check(generated, api.CheckOptions(
        arch=options.arch, cutlass_version=options.cutlass_version, root=build,
    ))  # fmt: skip
    by_path = {Path(f.path).relative_to(build).as_posix(): f for f in checked.files}
    assert len(pre.kernels) == COUNT and {k.path for k in pre.kernels} == set(by_path)
    prefix = f"{build}/"
    for k in pre.kernels:
        f = by_path[k.path]
        ours = [json.loads(r.model_dump_json()) for r in k.results]
        theirs = [json.loads(r.model_dump_json().replace(prefix, "")) for r in f.instantiations]
        assert ours == theirs and len(ours) == 1, k.name
        assert k.verdict is f.instantiations[0].verdict
        assert k.rules == tuple(dict.fromkeys(d.rule for d in f.instantiations[0].diagnostics))
        assert k.diagnostics == f.diagnostics == ()
    s = render.summary(pre)
    assert s["enumerated"] == COUNT
    assert s["modeled"] + s["not_modeled"] == COUNT
    assert s["failing"] == sum(1 for f in checked.files for r in f.instantiations
                               if r.verdict.value in ("fails initialize()", "does not compile",
                                                      "never dispatched"))  # fmt: skip


def test_the_enumeration_writes_nothing_and_leaves_the_process_as_it_was(
    wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    modules, path, argv = set(sys.modules), list(sys.path), list(sys.argv)
    found = enumerate_kernels(wheel, "120a")
    assert len(found.kernels) == 1337 and list(tmp_path.iterdir()) == []
    assert not [m for m in set(sys.modules) - modules if m.startswith("cutlass_library")]
    assert (sys.path, sys.argv) == (path, argv)
    assert not hasattr(builtins, "CUTLASS_IGNORE_PACKAGE")
    again = enumerate_kernels(wheel, "120a")
    assert again == found  # a fresh import each time: no state carried over


def _ignore_form(names: list[str], all_names: list[str]) -> str:
    """What --write-ignore writes for `names`: the exclusion's text."""
    skip = exclusion(names, all_names)
    assert not skip.withheld
    return skip.text


@pytest.mark.parametrize("flag", ["ignore", "exclude"])
def test_the_exclusion_given_back_to_the_generator_skips_exactly_those_kernels(
    flag: str, wheel: Path, tmp_path: Path
) -> None:
    """No kernel fails yet while the families are written, so the mechanism is tested on an
    explicit set: every fifth kernel of the filtered build, of every kind. The generator, given
    the names as --ignore-kernels (with the same --kernels) or --exclude-kernels, writes every
    other kernel and none of them."""
    every = [k.name for k in enumerate_kernels(wheel, "120a", KERNELS).kernels]
    skip = every[::5]
    text = _ignore_form(skip, every)
    out = tmp_path / flag
    kwargs = {"ignore": text} if flag == "ignore" else {"exclude": text}
    generated = cutlass_library.generate(wheel, out, "120a", KERNELS, **kwargs)
    written = {
        p.stem for p in generated.rglob("*.cu") if "manifest.append(" in p.read_text()
    }  # one kernel a file in this build: the file is named for it
    assert written == set(every) - set(skip)
    assert len(written) == COUNT - len(skip)
    # and the in-process enumeration agrees with the written build
    again = enumerate_kernels(wheel, "120a", KERNELS, **kwargs)
    assert {k.name for k in again.kernels} == written


def test_a_name_inside_another_kernels_name_is_withheld() -> None:
    """CUTLASS 4.2's 100a build has 416 such pairs (`..._1sm` and `..._1sm_epi_nosmem`): the
    shorter name as a pattern skips both, and no pattern skips one alone."""
    short = "cutlass3x_sm100_bstensorop_gemm_x_128x64x256_0x0x1_0_tnt_align32_o_vs16_1sm"
    long = short + "_epi_nosmem"
    names = [short, long, "cutlass_other"]
    assert (
        matches(short, long) and matches("sm100*nosmem", long) and not matches("nosmem*sm100", long)
    )
    only_short = exclusion([short], names)
    assert only_short.patterns == () and only_short.withheld[0][0] == short
    assert long in only_short.withheld[0][1]
    both = exclusion([short, long], names)
    assert both.withheld == () and selected(both.patterns, names) == [short, long]
    assert exclusion([long], names).patterns == (long,)
    with pytest.raises(ValueError, match="not one of the enumerated"):
        exclusion(["nope"], names)


def test_cli_text_json_and_the_ignore_file(tmp_path: Path, wheel: Path) -> None:
    ignore = tmp_path / "ignore.txt"
    args = ["pregen", "cutlass-library", "--arch", "sm_120", "--root", str(wheel), "-q"]
    text = CliRunner().invoke(main, [*args, "--write-ignore", str(ignore)])
    assert text.exit_code in (0, 1), text.output
    assert "cutlass_library 4.2.0.0: the manifest for '120a'" in text.output
    assert "1337 kernels:" in text.output
    out = CliRunner().invoke(main, [*args, "--format", "json"])
    data: dict[str, Any] = json.loads(out.stdout)
    assert data["summary"]["enumerated"] == 1337 and data["architectures"] == "120a"
    failing = {k["name"] for k in data["kernels"] if k["verdict"] in (
        "fails initialize()", "does not compile", "never dispatched")}  # fmt: skip
    written = ignore.read_text().strip()
    assert set(filter(None, written.split(","))) == failing
    assert out.exit_code == (1 if failing else 0)


@pytest.fixture(scope="module")
def pregen_120a(wheel: Path) -> CutlassLibraryPregenResult:
    return api.pregen_cutlass_library(arch="sm_120", root=wheel)


def _with_failures(r: CutlassLibraryPregenResult, names: set[str]) -> CutlassLibraryPregenResult:
    """`r` as it will read once a family finds `names` failing: the shared result both formats
    and the ignore file are rendered from."""
    failing = Verdict.FAILS_INITIALIZE
    kernels = tuple(
        k.model_copy(update={"verdict": failing, "rules": ("CUT101",), "why": "102,400 B"})
        if k.name in names
        else k
        for k in r.kernels
    )
    skip = exclusion(names, [k.name for k in kernels])
    return r.model_copy(update={"kernels": kernels, "exclusion": skip.patterns})


def test_both_formats_and_the_ignore_file_say_the_same(
    pregen_120a: CutlassLibraryPregenResult, tmp_path: Path
) -> None:
    names = [k.name for k in pregen_120a.kernels]
    # 16 of the 208 CUTLASS 2.x GEMMs (family cutlass2-gemm-universal) fail on sm_120 for real
    real = {k.name for k in pregen_120a.kernels if k.verdict is Verdict.FAILS_INITIALIZE}
    assert len(real) == 16 and all("c1688tf32gemm_128x128_16x4" in n for n in real)
    unmodeled = [k.name for k in pregen_120a.kernels if k.verdict is Verdict.NOT_MODELED]
    failing = {unmodeled[0], unmodeled[100], unmodeled[-1]}
    r = _with_failures(pregen_120a, failing)
    text = render.render_text(r)
    data = json.loads(render.render_json(r))
    # the 386 SM120 CollectiveBuilder kernels (sm120-collective-builder), the 208 CUTLASS 2.x
    # GEMMs (cutlass2-gemm-universal), the 256 planar-complex GEMMs (cutlass2-gemm-planar-complex)
    # and the 308 BLAS-3 kernels (cutlass2-blas3) are modeled; the three names made failing here
    # are kernels no family models yet
    assert "1337 kernels: 1161 modeled, 19 would fail on sm_120, 176 not modeled" in text
    rows = [
        re.search(rf"^{n} +fails initialize\(\) +CUT101 +102,400 B$", text, re.M) for n in failing
    ]
    assert all(rows) and "exclusion: 3 name(s)" in text
    assert data["summary"] == render.summary(r) == {
        "enumerated": 1337, "modeled": 1161, "failing": 19, "not_modeled": 176,
        "excluded_names": 3, "withheld": 0,
    }  # fmt: skip
    assert {
        k["name"] for k in data["kernels"] if k["verdict"] == "fails initialize()"
    } == failing | real
    ignore = tmp_path / "ignore.txt"
    write_ignore(r, ignore)
    written = ignore.read_text()
    assert written.endswith("\n") and written.count("\n") == 1
    assert set(selected(written.strip().split(","), names)) == failing
    write_ignore(pregen_120a, ignore)
    assert set(selected(ignore.read_text().strip().split(","), names)) == real


def _main_block(tree: ast.Module) -> ast.If:
    return next(n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))


def test_the_enumeration_calls_what_the_generators_main_block_calls(wheel: Path) -> None:
    """enumerate.py mirrors generator.py's `__main__`: the same GenerateSM* calls in the same
    order, the Blackwell ones behind the same arch list, then manifest.emit."""
    source = (wheel / "cutlass_library" / "generator.py").read_text()
    main = _main_block(ast.parse(source))
    calls = [
        n.func.id
        for n in ast.walk(main)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        and n.func.id.startswith("GenerateSM")
    ]  # fmt: skip
    assert calls == [*GENERATE, *GENERATE_BLACKWELL]
    listed = next(
        n.value
        for n in ast.walk(main)
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "blackwell_arch_list"
    )
    assert set(ast.literal_eval(listed)) == BLACKWELL_ARCHS
    assert "manifest.emit(GeneratorTarget.Library)" in ast.unparse(main)


def test_the_default_generator_architectures() -> None:
    assert cutlass_architectures("sm_120") == "120a"
    assert cutlass_architectures("sm_121") == "121a"
    assert cutlass_architectures("sm_80") == "80"
