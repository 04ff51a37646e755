"""The macros a compile target's build defines (context/arch_macros.py, data/arch_macros.toml):
nvcc's per-target macros as nvcc 13.0.88 sets them, CUTLASS's `CUTLASS_ARCH_MMA_*` as its
config.h sets them, and `check --arch` / `-gencode` reading example 79's guard as the build does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.build_context import Target
from cutlint.context.arch_macros import build_target, local_toolkit, named_target, target_macros
from cutlint.parse.tu.arch_macros import supported_macros
from cutlint.records import Verdict

FIXTURE = (
    Path(__file__).parent.parent.parent
    / "fixtures/sm120-collective-builder/arch-guard-example79-cutlass-4.2.0.cu"
)


def _t(sm: int, suffix: str = "") -> Target:
    assert suffix in ("", "a", "f")
    return Target(sm=sm, suffix=suffix, ptx=False)


def test_an_arch_specific_target_gets_every_feature_macro() -> None:
    got = target_macros(_t(120, "a"), (13, 0))
    assert got["__CUDA_ARCH__"] == "1200"
    assert got["__CUDA_ARCH_SPECIFIC__"] == "1200"
    assert got["__CUDA_ARCH_FAMILY_SPECIFIC__"] == "1200"
    assert got["__CUDA_ARCH_FEAT_SM120_ALL"] == "1"
    for m in ("SM120_SUPPORTED", "SM120_ENABLED", "SM120A_ENABLED", "SM120F_ENABLED"):
        assert got[f"CUTLASS_ARCH_MMA_{m}"] == "1"
    # CUDA 13.0: SM110 and SM121 supported, SM101 gone (renamed sm_110)
    assert "CUTLASS_ARCH_MMA_SM110_SUPPORTED" in got
    assert "CUTLASS_ARCH_MMA_SM121_SUPPORTED" in got
    assert "CUTLASS_ARCH_MMA_SM101_SUPPORTED" not in got
    assert "__CUDA_ARCH_FEAT_SM121_ALL" not in got


def test_plain_and_family_targets_get_fewer() -> None:
    plain = target_macros(_t(120), (13, 0))
    assert plain["__CUDA_ARCH__"] == "1200"
    assert not {"__CUDA_ARCH_SPECIFIC__", "__CUDA_ARCH_FAMILY_SPECIFIC__"} & plain.keys()
    assert "__CUDA_ARCH_FEAT_SM120_ALL" not in plain
    assert "CUTLASS_ARCH_MMA_SM120A_ENABLED" not in plain
    family = target_macros(_t(121, "f"), (13, 0))
    assert family["__CUDA_ARCH_FAMILY_SPECIFIC__"] == "1210"
    assert "__CUDA_ARCH_SPECIFIC__" not in family
    assert "CUTLASS_ARCH_MMA_SM121F_ENABLED" in family
    assert "CUTLASS_ARCH_MMA_SM121A_ENABLED" not in family


def test_without_a_toolkit_only_what_every_capable_toolkit_defines() -> None:
    got = target_macros(_t(120, "a"), None)
    assert "__CUDACC_VER_MAJOR__" not in got
    for sm in (90, 100, 120):
        assert f"CUTLASS_ARCH_MMA_SM{sm}_SUPPORTED" in got
    for sm in (101, 103, 110, 121):  # depend on the toolkit's version: not guessed
        assert f"CUTLASS_ARCH_MMA_SM{sm}_SUPPORTED" not in got
    assert target_macros(None, (13, 0)) == {}


def test_which_target_counts() -> None:
    build = (_t(90, "a"), _t(100, "a"), _t(120, "a"), Target(sm=120, suffix="a", ptx=True))
    assert build_target(_t(120), build) == _t(120, "a")
    assert build_target(_t(121), (_t(120, "f"),)) == _t(120, "f")
    assert build_target(None, build) is None  # several and no GPU named: none guessed
    assert build_target(None, (_t(100, "a"),)) == _t(100, "a")
    assert named_target("sm_120a") == _t(120, "a")
    assert named_target("rtx-5090") == _t(120)


def test_the_data_agrees_with_cutlass_config_h(flashinfer_root: Any) -> None:
    """The `!CUTLASS_CLANG_CUDA` guards of the vendored config.h (CUTLASS 4.5.0, FlashInfer
    0.7.4), evaluated by the TU front end's reader, give the same SUPPORTED set as the data."""
    include = flashinfer_root("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    for version in ((12, 8), (12, 9), (13, 0), (13, 1)):
        from_header = {
            f.removeprefix("-D").removesuffix("=1") for f in supported_macros([include], *version)
        }
        ours = {
            m
            for m in target_macros(_t(120), version)
            if m.endswith("_SUPPORTED") and m != "CUTLASS_ARCH_MMA_SM90_SUPPORTED"
        }
        assert ours == from_header, version


def _verdicts(**options: Any) -> list[Verdict]:
    result = api.check([FIXTURE], api.CheckOptions(cutlass_version="4.2.0", **options))
    return [r.verdict for f in result.files for r in f.instantiations]


def test_example_79_guard_is_active_for_its_target() -> None:
    before = _verdicts()  # no target said: the guard reads as the define set alone
    assert before == [Verdict.INACTIVE, Verdict.INACTIVE]
    by_gpu = _verdicts(arch="sm_120")
    assert by_gpu[0] is not Verdict.INACTIVE and by_gpu[1] is Verdict.INACTIVE
    cmd = "nvcc -gencode arch=compute_120a,code=sm_120a -c x.cu"
    assert _verdicts(compile_command=cmd)[0] is not Verdict.INACTIVE
    # the user's -U wins over what the target implies
    off = ("CUTLASS_ARCH_MMA_SM120_SUPPORTED", "CUTLASS_ARCH_MMA_SM121_SUPPORTED")
    undone = _verdicts(arch="sm_120", undefines=off)
    assert undone[0] is Verdict.INACTIVE


@pytest.mark.parametrize(
    ("before", "define", "found"),
    [
        (100, "#define CUDA_VERSION 12080\n", (12, 8)),
        (70_000, "#define CUDA_VERSION 13000\n", (13, 0)),  # past the part read first
        ((1 << 16) - 25, "#define CUDA_VERSION 12090\n", (12, 9)),  # its digits cut there
        (100, "/* no version */\n", None),
    ],
)
def test_the_local_toolkit_is_the_version_its_cuda_h_defines(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    before: int,
    define: str,
    found: tuple[int, int] | None,
) -> None:
    include = tmp_path / "include"
    include.mkdir()
    (include / "cuda_runtime.h").write_text("")
    (include / "cuda.h").write_text("/" * before + "\n" + define + "int x;\n" * 10)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    local_toolkit.cache_clear()
    try:
        assert local_toolkit() == found
    finally:
        local_toolkit.cache_clear()
