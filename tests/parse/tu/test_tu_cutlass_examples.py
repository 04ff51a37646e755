"""CUTLASS's own examples 68 (SM90 FP8 blockwise grouped GEMM, `sm_90a`), 80a and 80b (SM120
MXFP8 and NVFP4 block-scaled sparse GEMMs, `sm_120a`), read by `cutlint tu` as CUTLASS's CMake
builds them for their arch: the upstream sources of the nvidia-cutlass 4.2.0 wheel (it ships
`examples/`), fetched into cutlint's wheel cache at test time, never committed. Slow: three TUs
with full CUTLASS headers.

No kernel stops the build: clang instantiates each without an error (no `static_assert` fires),
each fits its target's opt-in limit, and each is modeled equal to clang's layout. CUTLASS
4.7.0's sources (the NVIDIA/cutlass tag) give the same numbers for 68 and 80b (docs/tu.md)."""

from __future__ import annotations

import pytest

from cutlint.engine.tu_judge import FITS, judge
from cutlint.parse.tu import from_flags, read_tu
from cutlint.tu_records import TuRead

pytestmark = pytest.mark.slow
pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

EX68 = (
    "68_hopper_fp8_warp_specialized_grouped_gemm_with_blockwise_scaling/"
    "68_hopper_fp8_warp_specialized_grouped_gemm_with_blockwise_scaling.cu"
)
EX80B = "80_blackwell_geforce_sparse_gemm/80b_blackwell_geforce_nvfp4_nvfp4_sparse_gemm.cu"
EX80A = "80_blackwell_geforce_sparse_gemm/80a_blackwell_geforce_mxfp8_bf16_sparse_gemm.cu"


def _read(example: str, arch: str) -> TuRead:
    from cutlint.producers.cutlass_library.generate import download

    try:
        source = download() / "cutlass_library" / "source"  # 4.2.0.0
    except Exception as err:  # no network: say so
        pytest.skip(f"nvidia-cutlass 4.2.0 unavailable: {err}")
    # CUTLASS's CMake (cutlass_example_add_executable): include/, tools/util/include/, examples/
    # and examples/common/, C++17, the example's arch as -gencode.
    flags = [
        f"-I{source / 'include'}",
        f"-I{source / 'tools' / 'util' / 'include'}",
        f"-I{source / 'examples'}",
        f"-I{source / 'examples' / 'common'}",
        "-std=c++17",
        "-gencode",
        f"arch=compute_{arch},code=sm_{arch}",
    ]
    return read_tu(from_flags(source / "examples" / example, flags), use_cache=False)


def test_example_68_is_modeled_for_sm90a() -> None:
    read = _read(EX68, "90a")
    (v,) = judge(read)
    k = v.kernel
    assert k.compile_error is None
    assert (k.tile, k.cluster, k.elements) == (
        "128x128x128",
        "1x2x1",
        "float_e4m3_t x float_e4m3_t -> float_e4m3_t",
    )
    assert (k.shared_storage, k.stages) == (228352, 6)
    assert v.verdict == FITS
    # The FP8 blockwise pointer-array chain: claimed and modeled equal to clang's layout.
    assert v.model is not None and v.model.family == "sm90-collective-builder"
    assert v.model.equals(k)


def test_example_80b_is_modeled_for_sm120a() -> None:
    """The SM120 kernel is active (nvcc's host pass defines CUTLASS_ARCH_MMA_SM120_SUPPORTED for
    sm_120a), measured, and modeled: the block-scaled sparse builder's 3 stages (StagesA =
    StagesB = StagesE, the metadata in shared memory) and the asymmetric-DMA shell's layout equal
    clang's to the byte."""
    read = _read(EX80B, "120a")
    (v,) = judge(read)
    k = v.kernel
    assert k.compile_error is None
    assert (k.tile, k.cluster) == ("128x128x256", "1x1x1")
    assert k.elements == "float_e2m1_t x float_e2m1_t -> float_e2m1_t"
    assert k.shared_storage == 98304
    assert v.verdict == FITS
    assert v.model is not None and v.model.family == "sm120-collective-builder"
    assert v.model.reason is None, v.model.reason
    assert (v.model.shared_storage, v.model.stages) == (98304, 3)
    assert v.model.equals(k)


def test_example_80a_is_modeled_for_sm120a() -> None:
    """Example 80a (MXFP8 x MXFP8 -> bf16) takes the same builder's other branch: 1.5 stages of
    B (StagesA = 2, StagesB = 3, the metadata in global memory), 99,328 B."""
    read = _read(EX80A, "120a")
    (v,) = judge(read)
    k = v.kernel
    assert k.compile_error is None
    assert k.shared_storage == 99328
    assert v.verdict == FITS
    assert v.model is not None and v.model.family == "sm120-collective-builder"
    assert v.model.reason is None, v.model.reason
    assert (v.model.shared_storage, v.model.stages) == (99328, 2)
    assert v.model.equals(k)
