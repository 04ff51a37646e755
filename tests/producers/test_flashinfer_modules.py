"""What each FlashInfer JIT module compiles, with which defines, and the launcher bodies a define
compiles out: the release data (releases.toml `jit_modules`, `launcher_guards`) and what `check`
makes of it on real caches."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.api import CheckOptions
from cutlint.producers.flashinfer.modules import module_dev
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.producers.flashinfer.wheel import generate_cache
from cutlint.records import CheckResult, Verdict

FPA_INTB = "sm90_generic_mixed_gemm_kernelLauncher"
HOPPER = "COMPILE_HOPPER_TMA_GEMMS"


def test_every_release_has_its_modules_and_the_fpa_intb_guard() -> None:
    for version, release in flashinfer_releases().items():
        devs = {m.dev for m in release.jit_modules}
        assert {"120", "100", "90", "89"} <= devs, version
        sm120, sm90 = release.jit_module("120"), release.jit_module("90")
        assert sm120 is not None and sm90 is not None
        assert "COMPILE_BLACKWELL_SM120_TMA_GROUPED_GEMMS" in sm120.defined, version
        assert HOPPER not in sm120.defined and HOPPER in sm90.defined, version
        assert release.jit_module_compiles == "output_dir.rglob('*.generated.cu')", version
        guard = release.launcher_guard(f"tensorrt_llm::kernels::{FPA_INTB}")
        assert guard is not None and guard.define == HOPPER, version
        assert "fpA_intB_launcher_sm90.inl:" in guard.source
        # every module's dev is the one get_cutlass_fused_moe_module sends some device to
        assert {d for _, d in release.moe_dev} <= devs, version


@pytest.mark.parametrize("version", ["0.6.3", "0.7.4"])
def test_the_guard_line_is_the_wheels(version: str, flashinfer_root: Any) -> None:
    guard = flashinfer_releases()[version].launcher_guard(FPA_INTB)
    assert guard is not None
    path, line = guard.source.split(" ", 1)[0].rsplit(":", 1)
    text = (flashinfer_root(version) / path).read_text().splitlines()
    assert text[int(line) - 1].strip() == f"#ifdef {HOPPER}"


def test_module_dev_is_read_off_the_path() -> None:
    assert (
        module_dev("/c/flashinfer/0.7.4/120f/generated/cutlass_instantiations/120/gemm/90/x.cu")
        == "120"
    )
    assert (
        module_dev("csrc/nv_internal/tensorrt_llm/cutlass_instantiations/103/gemm_grouped/100/x.cu")
        == "103"
    )
    assert module_dev("/tmp/gemm/90/cutlass_kernel_file_gemm_sm90_M128_group0.generated.cu") is None


def _counts(result: CheckResult) -> Counter[tuple[str, str]]:
    return Counter(
        (r.instantiation.name.rsplit("::", 1)[-1], r.verdict.value)
        for f in result.files
        for r in f.instantiations
    )


@pytest.mark.parametrize("version", ["0.6.3", "0.7.2.post1", "0.7.4"])
def test_the_sm120_module_compiles_the_fpa_intb_bodies_out(version: str, real_cache: Any) -> None:
    cache = real_cache(version).parent.parent  # cutlass_instantiations/120
    result = api.check([cache])
    counts = _counts(result)
    assert counts[(FPA_INTB, Verdict.INACTIVE.value)] == 378
    assert not any(v == Verdict.NOT_MODELED.value for _, v in counts)
    assert sum(n for (name, _), n in counts.items() if name.startswith("sm80_")) == 60
    reasons = {
        r.not_modeled.reason
        for f in result.files
        for r in f.instantiations
        if r.verdict is Verdict.INACTIVE and r.not_modeled
    }
    assert len(reasons) == 1
    (reason,) = reasons
    assert f"#ifdef {HOPPER}" in reason and "fused_moe_120" in reason
    assert "fpA_intB_launcher_sm90.inl" in reason


def test_a_define_given_on_the_command_line_brings_the_bodies_back(real_cache: Any) -> None:
    gemm90 = real_cache("0.7.4").parent.parent / "gemm" / "90"
    result = api.check([gemm90], CheckOptions(defines={"ENABLE_FP4": "1", HOPPER: "1"}))
    # compiled, and judged: an sm_90a kernel in an SM120 cache cannot run there (class E)
    assert set(_counts(result)) == {(FPA_INTB, Verdict.FAILS_RUN.value)}


def test_on_an_sm90_cache_the_bodies_are_compiled(
    flashinfer_root: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.mktemp("sm90-cache")
    grouped = generate_cache(flashinfer_root("0.7.4"), "0.7.4", base, sm=90)
    result = api.check([grouped.parent.parent / "gemm" / "90"])
    counts = _counts(result)
    # the sm90-mixed-gemm family models all of them: 346 fit, 32 with 0 B slack
    fits = counts[(FPA_INTB, Verdict.FITS.value)] + counts[(FPA_INTB, Verdict.ZERO_SLACK.value)]
    assert fits == 378
    assert counts[(FPA_INTB, Verdict.INACTIVE.value)] == 0


def test_outside_a_jit_cache_no_module_is_assumed(real_cache: Any, tmp_path: Path) -> None:
    files = sorted((real_cache("0.7.4").parent.parent / "gemm" / "90").glob("*.cu"))
    shutil.copy(files[0], tmp_path / files[0].name)
    result = api.check([tmp_path])
    # no module, so no define compiles the body out: judged (sm_90 from the file name)
    assert {v for _, v in _counts(result)} <= {Verdict.FITS.value, Verdict.ZERO_SLACK.value}
