"""A macro call read by the `#define` its build reaches on the include path (issue 20 item 4):
the compile command's `-I` directories or the producer's vendored tree decide a call's argument
count and positions, and the context names each definition with its place."""

from __future__ import annotations

from pathlib import Path

from cutlint import api
from cutlint.engine.cache import ResultCache
from cutlint.records import Verdict

TRTLLM_DEFINE = (
    "#define INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, CTA_M_, CTA_N_, CTA_K_, CGA_M_, "
    "CGA_N_, CGA_K_, XSM_) struct X {};\n"
)
SM100 = "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(Sm100, __nv_bfloat16, 128, 64, 128, 1, 1, 1, _1SM)\n"
SM103 = "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(Sm103, __nv_bfloat16, 128, 128, 256, 1, 1, 1, _1SM)\n"
# The parameter list of FlashInfer 0.5.2's TMA warp-specialized MoE macro (14 parameters:
# moe_gemm_tma_ws_launcher.inl of the 0.5.2 wheel; 0.5.3 on adds EpilogueSchedule_, DYNAMIC_CGA_,
# SWAP_AB_), an empty body: written for this test.
MOE_14 = (
    "#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(ArchTag_, DataType_, WeightType_, "
    "OutputType_, EpilogueTag_, FUSION_, CTA_M_, CTA_N_, CTA_K_, CGA_M_, CGA_N_, CGA_K_, MXFPX_, "
    "BIAS_)\n"
)
MOE_CALL = (
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, EpilogueOpDefault, "
    "NONE, 128, 128, 128, 1, 1, 1, false, false);\n"
)


def _tree(tmp_path: Path, header: str, call: str, angled: bool = False) -> tuple[Path, str]:
    """A file in src/ whose macro is defined in a header of inc/ (not beside it), and the
    command that puts inc/ on the include path."""
    (tmp_path / "inc" / "launchers").mkdir(parents=True)
    (tmp_path / "inc" / "launchers" / "fp4.h").write_text("#pragma once\n" + header)
    (tmp_path / "src").mkdir()
    include = "<launchers/fp4.h>" if angled else '"launchers/fp4.h"'
    f = tmp_path / "src" / "k.cu"
    f.write_text(f"#include {include}\n" + call)
    command = f"nvcc -I{tmp_path / 'inc'} -gencode=arch=compute_100f,code=sm_100f -c {f}"
    return f, command


def _check(f: Path, command: str | None, arch: str = "sm_100") -> api.CheckResult:
    return api.check(
        [f], api.CheckOptions(arch=arch, cutlass_version="4.5.0", compile_command=command)
    )


def test_a_define_on_the_include_path_decides_the_positions(tmp_path: Path) -> None:
    for angled in (False, True):
        base = tmp_path / ("angled" if angled else "quoted")
        f, command = _tree(base, TRTLLM_DEFINE, SM100 + SM103, angled)
        result = _check(f, command, "sm_103")
        rows = [r for x in result.files for r in x.instantiations]
        assert [r.instantiation.parameters[0] for r in rows if r.instantiation.parameters] == [
            "ARCH_",
            "ARCH_",
        ]
        assert all(r.verdict is Verdict.FITS for r in rows), [r.verdict for r in rows]
        assert [r.resources.layout.size for r in rows if r.resources] == [218112, 231040]
        (ctx,) = [x.context for x in result.files]
        assert ctx is not None and ctx.macros is not None
        assert ctx.macros.value == (
            "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(ARCH_, T, CTA_M_, CTA_N_, CTA_K_, CGA_M_, "
            f"CGA_N_, CGA_K_, XSM_) at {base / 'inc' / 'launchers' / 'fp4.h'}:2",
        )


def test_without_the_include_path_the_call_is_read_as_before(tmp_path: Path) -> None:
    f, _ = _tree(tmp_path, TRTLLM_DEFINE, SM100)
    result = _check(f, None)
    (row,) = [r for x in result.files for r in x.instantiations]
    assert row.instantiation.parameters is None  # FlashInfer's (T, ...) assumed: arch as type
    assert row.verdict is not Verdict.FITS


def test_a_call_that_does_not_fit_its_define_is_cut004_naming_it(tmp_path: Path) -> None:
    f, command = _tree(tmp_path, TRTLLM_DEFINE, SM100.replace(", _1SM", ""))
    result = _check(f, command)
    (d,) = [d for x in result.files for r in x.instantiations for d in r.diagnostics
            if d.rule == "CUT004"]  # fmt: skip
    assert "takes 9 arguments" in d.message
    assert f"by its #define at {tmp_path / 'inc' / 'launchers' / 'fp4.h'}:2" in d.message
    assert d.line == 2  # the call's own place


def test_the_moe_macro_by_its_define_not_by_the_release(tmp_path: Path) -> None:
    """FlashInfer 0.5.2's 14-parameter call with no release in sight: read by the #define on the
    include path (before: the 17 parameters of 0.5.3 on were assumed, a CUT004 made a guess)."""
    f, command = _tree(tmp_path, MOE_14, MOE_CALL)
    command = command.replace("compute_100f,code=sm_100f", "compute_120a,code=sm_120a")
    result = _check(f, command, "sm_120")
    (row,) = [r for x in result.files for r in x.instantiations]
    assert not [d for d in row.diagnostics if d.rule == "CUT004"]
    assert row.instantiation.defined_at == f"{tmp_path / 'inc' / 'launchers' / 'fp4.h'}:2"
    assert row.verdict is Verdict.FITS and row.resources is not None


def test_the_cache_key_holds_the_include_path_header(tmp_path: Path) -> None:
    f, command = _tree(tmp_path, TRTLLM_DEFINE, SM100)
    options = api.CheckOptions(arch="sm_100", compile_command=command)
    cache = ResultCache.open(tmp_path / "cache")
    before = cache.key(str(f), options)
    (tmp_path / "inc" / "launchers" / "fp4.h").write_text(
        "#pragma once\n" + TRTLLM_DEFINE.replace("XSM_)", "XSM_, EXTRA_)")
    )
    assert cache.key(str(f), options) != before
