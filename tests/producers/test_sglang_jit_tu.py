"""SGLang 0.5.23's JIT kernels read as its JIT compiles them (the wheel, FlashInfer 0.7.2.post1's
CUTLASS 4.5.0 and tvm-ffi 0.1.11 fetched at test time, nothing of them committed): the `cuda.cu`
wrapper its loader generates, its nvcc flags for the target, every kernel measured by libclang
and modeled. Slow: each read parses the full CUTLASS headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.engine.tu_model import model
from cutlint.parse.tu import from_flags, read_tu
from cutlint.producers.flashinfer.wheel import FlashInferError
from cutlint.producers.flashinfer.wheel import download_wheel as flashinfer_wheel
from cutlint.producers.sglang import jit
from cutlint.producers.sglang.tu import jit_tu
from cutlint.producers.sglang.wheel import SglangError, download_tvm_ffi, download_wheel

pytest.importorskip("clang.cindex", reason="libclang bindings (libclang-ng) not installed")

CSRC = Path("sglang/kernels/jit/csrc")


@pytest.fixture(scope="module")
def roots() -> tuple[Path, tuple[str, ...]]:
    rel, _ = jit.release("0.5.23")
    try:
        sglang = download_wheel("0.5.23")
        tvm = download_tvm_ffi(rel.tvm_ffi)
        flashinfer = flashinfer_wheel("0.7.2.post1")  # 0.7.2's CUTLASS 4.5.0, as the pin's
    except (SglangError, FlashInferError) as e:
        pytest.skip(f"a wheel is unavailable: {e}")
    return sglang / CSRC, (str(flashinfer), str(tvm))


def test_the_wrapper_is_the_jits(roots: tuple[Path, tuple[str, ...]]) -> None:
    csrc, site = roots
    tu = jit_tu(csrc / "gemm/fp8_blockwise/fp8_blockwise_scaled_mm_sm120.cuh", 120, site)
    assert tu is not None and tu.module == "fp8_blockwise_scaled_mm"
    text = Path(tu.wrapper).read_text()
    assert text.startswith("#include <tvm/ffi/container/tensor.h>\n")
    assert (
        "TVM_FFI_DLL_EXPORT_TYPED_FUNC(fp8_blockwise_scaled_mm, (fp8_blockwise_scaled_mm));" in text
    )
    assert "-gencode=arch=compute_120f,code=sm_120f" in tu.argv
    assert "-DSGL_CUDA_ARCH=1200" in tu.argv
    assert any(a.endswith("tvm_ffi/include") for a in tu.argv)
    assert any(a.endswith("flashinfer/data/cutlass/include") for a in tu.argv)


@pytest.mark.slow
def test_sm120_blockwise_fp8_every_kernel_modeled(roots: tuple[Path, tuple[str, ...]]) -> None:
    csrc, site = roots
    tu = jit_tu(csrc / "gemm/fp8_blockwise/fp8_blockwise_scaled_mm_sm120.cuh", 120, site)
    assert tu is not None
    read = read_tu(from_flags(Path(tu.wrapper), tu.argv, origin="SGLang's JIT"), "sm_120f")
    # tvm-ffi, the JIT's own and CUTLASS's headers are all found (what is stubbed is another
    # platform's: HIP, Windows, emscripten, under #if)
    wanted = ("tvm/", "dlpack/", "sgl_kernel/", "cutlass/", "cute/")
    assert not [h for h in read.missing_headers if h.startswith(wanted)]
    models = model(read)
    rows = sorted(
        (k.chosen_by.line, k.tile, k.stages, k.shared_storage, k.elements) for k in read.kernels
    )
    # swap-AB N32 and N64 (line 428), cooperative StreamK / void (209, 214), pingpong (265),
    # each for a bf16 and an fp16 output
    assert [(line, tile, stages, smem) for line, tile, stages, smem, _ in rows] == [
        (209, "128x128x128", 2, 77_824), (209, "128x128x128", 2, 77_824),
        (214, "128x128x128", 2, 77_824), (214, "128x128x128", 2, 77_824),
        (265, "64x128x128", 3, 84_992), (265, "64x128x128", 3, 84_992),
        (428, "128x32x128", 4, 93_184), (428, "128x32x128", 4, 93_184),
        (428, "128x64x128", 3, 93_184), (428, "128x64x128", 3, 93_184),
    ]  # fmt: skip
    for k, m in zip(read.kernels, models, strict=True):
        assert m is not None and m.family == "sm120-collective-builder", k.type_expr
        assert m.reason is None and m.equals(k), (m.reason, k.chosen_by)


ES_TRAITS = "moe/expert_specialization/es_sm100_mxfp8_blockscaled_moe_group_gemm_traits.cuh"


@pytest.mark.slow
def test_sm100_mxfp8_grouped_modeled(roots: tuple[Path, tuple[str, ...]], tmp_path: Path) -> None:
    """The expert-specialization MXFP8 grouped GEMM (no 0.5.23 loader compiles it): its traits'
    GemmKernel for bf16 and half, named in a TU of the JIT's 10.0a flags, is measured by libclang
    and modeled by the SM100 family's 4.5.0 block-scaled grouped chain (the RC grouped mainloop,
    MoEProblemShape, the EVT fusion): 226,304 B and 8 stages, as nvcc lays it out
    (docs/sglang.md; tests/data/nvcc_sm100_collective_builder_mxfp8_grouped_truth.json)."""
    csrc, site = roots
    traits = "expert_specialization::ExpertSpecializationSm100MXFP8BlockscaledMoeGroupGemmTraits"
    tu = tmp_path / "es.cu"
    tu.write_text(
        f'#include "{csrc / ES_TRAITS}"\n'
        f"using EsBf16 = {traits}<expert_specialization::MMA2SMConfig, cutlass::bfloat16_t>::GemmKernel;\n"
        f"using EsF16 = {traits}<expert_specialization::MMA2SMConfig, cutlass::half_t>::GemmKernel;\n"
    )
    cutlass = Path(site[0]) / "flashinfer" / "data" / "cutlass"
    argv = (
        f"-I{cutlass / 'include'}",
        f"-I{cutlass / 'tools' / 'util' / 'include'}",
        "-std=c++20",
        "-gencode=arch=compute_100a,code=sm_100a",
    )
    read = read_tu(from_flags(tu, argv, origin="test"), "sm_100a")
    assert [(k.stages, k.shared_storage) for k in read.kernels] == [(8, 226_304), (8, 226_304)]
    for k, m in zip(read.kernels, model(read), strict=True):
        assert m is not None and m.family == "sm100-collective-builder", k.type_expr
        assert m.reason is None and m.equals(k), (m.reason, k.chosen_by)


@pytest.mark.slow
def test_convrot_int8_launched_kernels_measured_and_modeled(
    roots: tuple[Path, tuple[str, ...]],
) -> None:
    """convrot_int8's mma.sync path on 12.0f: the 9 kernels it launches, SGLang's CUTLASS 2.x
    `GemmWithEpilogueVisitor<DefaultGemm<...>::GemmKernel::Mma, EpilogueWithVisitor..., Swizzle>`,
    each measured by libclang; the `DefaultGemm<...>::GemmKernel` it takes the parts from is not
    a kernel of its own (it was listed as one, and the launched kernels were not measured: a
    `GemmKernel_::kThreadCount` value read as `typename ...::GemmKernel::kThreadCount`)."""
    csrc, site = roots
    tu = jit_tu(csrc / "gemm/convrot_int8/convrot_int8_entry.cuh", 120, site)
    assert tu is not None and tu.module == "convrot_int8"
    read = read_tu(from_flags(Path(tu.wrapper), tu.argv, origin="SGLang's JIT"), "sm_120f")
    visitor = "cutlass::gemm::kernel::GemmWithEpilogueVisitor<"
    assert all(k.kernel_type.startswith(visitor) for k in read.kernels)
    assert sorted(k.shared_storage or 0 for k in read.kernels) == [
        51_200, 61_440, 73_728, 73_728, 73_728, 73_728, 81_920, 81_920, 81_920,
    ]  # fmt: skip
    # modeled by the 2.x universal family from the kernel's parts (TuBuilt.visitor_kernel)
    for k, m in zip(read.kernels, model(read), strict=True):
        assert m is not None and m.family == "cutlass2-gemm-universal", k.type_expr
        assert m.reason is None and m.equals(k), (m.reason, k.chosen_by)


@pytest.mark.slow
def test_convrot_int8_sm100_kernels_modeled(roots: tuple[Path, tuple[str, ...]]) -> None:
    """convrot_int8 on 10.0a: the SM100 branch's kernels are reached through the launcher's
    `using Gemm = typename Types::template Select<WithBias>::Gemm;` (a config's `Gemm` member),
    measured, and modeled by sm100-collective-builder (int8 x int8, KernelScheduleAuto, an EVT
    epilogue; 1 KiB under the capacity for the 128x256 tile). The SM90 branch's names, read
    from the tokens of an inactive `#if`, stay CUT212."""
    csrc, site = roots
    tu = jit_tu(csrc / "gemm/convrot_int8/convrot_int8_entry.cuh", 100, site)
    assert tu is not None
    read = read_tu(from_flags(Path(tu.wrapper), tu.argv, origin="SGLang's JIT"), "sm_100a")
    measured = [k for k in read.kernels if k.shared_storage is not None]
    assert sorted((k.stages, k.shared_storage) for k in measured) == [
        (8, 231_424), (13, 230_400), (13, 230_656),
    ]  # fmt: skip
    models = dict(zip((k.type_expr for k in read.kernels), model(read), strict=True))
    for k in measured:
        m = models[k.type_expr]
        assert m is not None and m.family == "sm100-collective-builder", k.type_expr
        assert m.reason is None and m.equals(k), (m.reason, k.chosen_by)
    assert all(k.compile_error for k in read.kernels if k.shared_storage is None)


@pytest.mark.slow
def test_convrot_int8_sm90_kernels_modeled(roots: tuple[Path, tuple[str, ...]]) -> None:
    """convrot_int8 on 9.0a: the SM90 branch's 6 kernels (three tiles, with and without bias)
    modeled by sm90-collective-builder, equal to libclang; the SM100 branch's 2 names CUT212."""
    csrc, site = roots
    tu = jit_tu(csrc / "gemm/convrot_int8/convrot_int8_entry.cuh", 90, site)
    assert tu is not None
    read = read_tu(from_flags(Path(tu.wrapper), tu.argv, origin="SGLang's JIT"), "sm_90a")
    measured = [k for k in read.kernels if k.shared_storage is not None]
    assert sorted((k.stages, k.shared_storage) for k in measured) == [
        (6, 214_016), (6, 214_528), (8, 197_120), (8, 197_120), (13, 213_504), (13, 213_504),
    ]  # fmt: skip
    models = dict(zip((k.type_expr for k in read.kernels), model(read), strict=True))
    for k in measured:
        m = models[k.type_expr]
        assert m is not None and m.family == "sm90-collective-builder", k.type_expr
        assert m.reason is None and m.equals(k), (m.reason, k.chosen_by)
    assert len(read.kernels) - len(measured) == 2
