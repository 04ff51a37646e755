"""vLLM 0.34.0's hand-written SM120 FP8 `cutlass_scaled_mm` as its CMake build compiles it:
the sdist fetched at test time into cutlint's cache (never committed), CUTLASS headers from
FlashInfer 0.7.4's wheel (4.5.0; vLLM pins v4.7.1, which no wheel carries). Slow: one TU with
full CUTLASS headers is about 20 s of CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.engine.tu_judge import FITS, judge
from cutlint.parse.tu import from_flags, read_tu

pytestmark = pytest.mark.slow
pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")


def test_scaled_mm_sm120_fp8_every_config_with_its_dispatch() -> None:
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import SdistError, cmake_flags, download_sdist

    try:
        vllm = download_sdist("0.34.0")
        include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    except (SdistError, Exception) as err:  # no network: say so
        pytest.skip(f"inputs unavailable: {err}")
    tu = vllm / "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8.cu"
    read = read_tu(from_flags(tu, cmake_flags(vllm, include, "12.0a")), use_cache=False)
    assert any(h.startswith("torch/") for h in read.missing_headers)
    verdicts = judge(read)
    measured = {
        (v.kernel.tile, v.kernel.elements, v.kernel.stages, v.kernel.shared_storage)
        for v in verdicts
        if v.verdict == FITS
    }
    # sm120_fp8_config_{M16,M32,M64,default} x {bfloat16_t, half_t} (libclang, CUTLASS 4.5.0)
    for out in ("bfloat16_t", "half_t"):
        e = f"float_e4m3_t x float_e4m3_t -> {out}"
        assert ("16x64x128", e, 9, 96256) in measured
        assert ("32x64x128", e, 7, 92160) in measured
        assert ("64x64x128", e, 5, 92160) in measured
        assert ("128x128x128", e, 2, 75776) in measured
    m16 = next(v.kernel for v in verdicts if v.kernel.tile == "16x64x128")
    assert "M <= 16" in m16.conditions(m16.paths[0])
    # ScaledEpilogue and ScaledEpilogueBias, both output types: 16 kernels, all within 101,376 B.
    assert len(verdicts) == 16
    assert all(v.verdict == FITS for v in verdicts)
    # Every builder chain is read off clang's sugar, claimed by sm120-dense-gemm and modeled
    # equal to clang's layout (bytes and stages).
    assert all(v.model and v.model.family == "sm120-dense-gemm" for v in verdicts)
    assert all(v.model and v.model.equals(v.kernel) for v in verdicts)


def _inputs() -> tuple[Path, Path]:
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import download_sdist

    try:
        vllm = download_sdist("0.34.0")
        include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    except Exception as err:  # no network: say so
        pytest.skip(f"inputs unavailable: {err}")
    return vllm, include


@pytest.mark.parametrize(
    ("tu", "arch", "count", "family"),
    [
        (
            "w8a8/cutlass/c3x/scaled_mm_blockwise_sm120_fp8.cu",
            "12.0a",
            6,
            "sm120-collective-builder",
        ),
        ("w8a8/cutlass/c3x/scaled_mm_sm90_fp8.cu", "9.0a", 28, "sm90-collective-builder"),
        ("w8a8/cutlass/c3x/scaled_mm_sm100_fp8.cu", "10.0a", 20, "sm100-collective-builder"),
        # the grouped (ptr-array) mixed-input W4A8 MoE GEMMs
        ("cutlass_w4a8/w4a8_grouped_mm_entry.cu", "9.0a", 11, "sm90-collective-builder"),
    ],
)
def test_every_kernel_is_modeled_equal_to_the_measured_layout(
    tu: str, arch: str, count: int, family: str
) -> None:
    """`cutlint tu`'s seam: each kernel's builders as clang resolved them, claimed by a family,
    whose model equals clang's SharedStorage and stage count (nvcc agrees with clang on all of
    them: tests/data/nvcc_tu_vllm_truth.json)."""
    from cutlint.producers.vllm.sdist import cmake_flags

    vllm, include = _inputs()
    path = vllm / "csrc/quantization" / tu
    read = read_tu(from_flags(path, cmake_flags(vllm, include, arch)), use_cache=False)
    verdicts = judge(read)
    assert len(verdicts) == count
    assert all(v.model and v.model.family == family for v in verdicts)
    assert all(v.model and v.model.equals(v.kernel) for v in verdicts), [
        (v.kernel.type_expr, v.model)
        for v in verdicts
        if not (v.model and v.model.equals(v.kernel))
    ]


@pytest.mark.parametrize("tu", ["w4a8_mm_entry.cu", "w4a8_grouped_mm_entry.cu"])
def test_w4a8_kernels_list_every_dispatch_path(tu: str) -> None:
    """vLLM's W4A8 `mm` calls `mm_dispatch` twice: with the schedule asked for (under
    `maybe_schedule`) and with the one its heuristic picked (after `if (maybe_schedule) {
    return ...; }`); `mm_dispatch` is an entry point of its own too. Every kernel is listed
    under all three paths, each with its conditions."""
    from cutlint.producers.vllm.sdist import cmake_flags

    vllm, include = _inputs()
    path = vllm / "csrc/quantization/cutlass_w4a8" / tu
    read = read_tu(from_flags(path, cmake_flags(vllm, include, "9.0a")), use_cache=False)
    assert len(read.kernels) == {"w4a8_mm_entry.cu": 10, "w4a8_grouped_mm_entry.cu": 11}[tu]
    for k in read.kernels:
        calls = [[s.call.split("(")[0] for s in p[:-1]] for p in k.paths]
        assert calls == [[], ["mm_dispatch"], ["mm_dispatch"]], k.type_expr
        last = k.chosen_by.conditions
        assert [k.conditions(p) for p in k.paths] == [
            last,
            ("maybe_schedule", *last),
            ("!(maybe_schedule)", *last),
        ]
        assert all(p[-1] == k.chosen_by for p in k.paths)
