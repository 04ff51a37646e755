"""CUT213 no-kernel-for-capability: a source's dispatch on compute capability that leaves the
named GPU without a kernel (parse/dispatch.py, engine/dispatch_gaps.py). The fixture is
fixtures/input/CUT213-no-kernel-for-capability.cu (tests/test_fixtures.py runs it); here the
parser's records, the guessed-GPU rule and vLLM 0.34.0's own entry file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint import api
from cutlint.parse.extract import parse_source

FIXTURE = Path(__file__).parent.parent.parent / "fixtures/input/CUT213-no-kernel-for-capability.cu"


def _cut213(result: api.CheckResult) -> list[str]:
    return [d.message for f in result.files for d in f.diagnostics if d.rule == "CUT213"]


def test_the_parser_reads_each_branch_with_its_range_and_guard() -> None:
    parsed = parse_source(str(FIXTURE), FIXTURE.read_bytes())
    by_name = {d.function: d for d in parsed.dispatches}
    assert set(by_name) == {"dispatch_gemm", "dispatch_moe", "dispatch_any"}
    gemm = by_name["dispatch_gemm"]
    assert [(b.low, b.high, b.call) for b in gemm.branches] == [
        (120, None, "gemm_sm120"),
        (100, 120, "gemm_sm100"),
        (90, 100, "gemm_sm90"),
    ]
    assert [b.guard.active if b.guard else None for b in gemm.branches] == [False, True, True]
    assert gemm.message == "No compiled gemm for CUDA device capability: {}"


def test_a_guessed_gpu_says_nothing_a_named_one_a_warning() -> None:
    assert _cut213(api.check([FIXTURE])) == []  # cutlint's default GPU: a guess
    named = _cut213(api.check([FIXTURE], api.CheckOptions(arch="sm_120")))
    assert len(named) == 2
    # on sm_100 and sm_90 a compiled branch takes each dispatch
    for arch in ("sm_100", "sm_90"):
        assert _cut213(api.check([FIXTURE], api.CheckOptions(arch=arch))) == []
    # the build's switch, given, compiles the branch
    on = api.CheckOptions(arch="sm_120", defines={"ENABLE_GEMM_SM120": "1"})
    assert len(_cut213(api.check([FIXTURE], on))) == 1  # dispatch_moe has no branch at all


def test_vllm_scaled_mm_entry_without_the_sm120_build() -> None:
    """vLLM 0.34.0's scaled_mm_entry.cu (the sdist fetched at test time): built for 9.0a and
    10.0a only, `cutlass_scaled_mm` has no kernel on an RTX 5090; with vLLM's 12.0f define it
    has. `cutlass_moe_mm` takes 90 and 100-109 only: "No compiled cutlass_scaled_mm for CUDA
    device capability: 120" (its own message) whatever the build."""
    from cutlint.producers.vllm.sdist import SdistError, download_sdist

    try:
        vllm = download_sdist("0.34.0")
    except SdistError as err:
        pytest.skip(f"vLLM sdist unavailable: {err}")
    entry = vllm / "csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu"
    hopper_blackwell = {"ENABLE_SCALED_MM_SM90": "1", "ENABLE_SCALED_MM_SM100": "1"}
    opts = api.CheckOptions(arch="rtx-5090", defines=hopper_blackwell)
    found = _cut213(api.check([entry], opts))
    scaled = next(m for m in found if "`cutlass_scaled_mm` fails" in m)
    assert "`-DENABLE_SCALED_MM_SM120=1` would compile it" in scaled
    moe = next(m for m in found if "`cutlass_moe_mm` fails" in m)
    assert "No compiled cutlass_scaled_mm for CUDA device capability: 120" in moe
    with_sm120 = api.CheckOptions(arch="sm_120", defines={"ENABLE_SCALED_MM_SM120": "1"})
    after = _cut213(api.check([entry], with_sm120))
    assert not any("`cutlass_scaled_mm` fails" in m for m in after)
    assert any("`cutlass_moe_mm` fails" in m for m in after)
    # from a compile command's -D, as `-p BUILD_DIR` gives it
    cmd = f"nvcc -DENABLE_SCALED_MM_SM120=1 -gencode arch=compute_120f,code=sm_120f -c {entry}"
    by_command = _cut213(api.check([entry], api.CheckOptions(compile_command=cmd)))
    assert not any("`cutlass_scaled_mm` fails" in m for m in by_command)


def test_the_message_says_whose_define_set_it_is() -> None:
    guessed = _cut213(api.check([FIXTURE], api.CheckOptions(arch="sm_120")))
    assert any("which the define set does not hold" in m for m in guessed)
    cmd = f"nvcc -DENABLE_GEMM_SM90=1 -gencode arch=compute_90a,code=sm_90a -c {FIXTURE}"
    built = _cut213(api.check([FIXTURE], api.CheckOptions(arch="sm_120", compile_command=cmd)))
    assert any("which this build does not define" in m for m in built)
