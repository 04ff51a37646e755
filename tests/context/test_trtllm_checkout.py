"""A TensorRT-LLM checkout: its C++ under `<repo>/cpp/`, its Python package and version file at
`<repo>/tensorrt_llm/version.py`. The version file says who wrote the generated files (context
origin: header), and with it the SM90 mixed-input MoE's W4A16-FP4 calls (half or bfloat16 x
`__nv_fp4_e2m1`), which only FlashInfer 0.5.2-0.6.11.post2's launcher and TensorRT-LLM's build,
are modeled by that recipe, equal to nvcc's numbers for the same calls (FlashInfer 0.6.3's
generator, whose output a TensorRT-LLM build of that time writes; tests/data/
nvcc_sm90_mixed_moe_truth.json). Without the version file the launcher is not decidable: a note,
never a failure (issue 19)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.producers.flashinfer.wheel import load_generator
from cutlint.records import Verdict
from cutlint.testing.truth import rows

W4A16 = "__nv_fp4_e2m1"


@pytest.fixture
def checkout(flashinfer_root: Any, tmp_path: Path) -> Path:
    """An SM90 TensorRT-LLM tree: FlashInfer 0.6.3's generator (TensorRT-LLM's of that time)
    under cpp/tensorrt_llm/kernels/cutlass_kernels/, its CUTLASS as 3rdparty/cutlass."""
    wheel = flashinfer_root("0.6.3")
    repo = tmp_path / "trtllm"  # one per test: the context's file probes are memoized
    out = repo / "cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_instantiations"
    load_generator(wheel).generate_gemm_operations(str(out), "90")
    (repo / "3rdparty").mkdir()
    (repo / "3rdparty" / "cutlass").symlink_to(wheel / "flashinfer" / "data" / "cutlass")
    return repo


def _w4a16(result: api.CheckResult) -> list[Any]:
    return [
        r
        for f in result.files
        for r in f.instantiations
        if "_Mixed_" in f.path and r.instantiation.args[1].strip() == W4A16
    ]


def _norm(args: Any) -> tuple[str, ...]:
    return tuple(" ".join(a.split()) for a in args)


def test_its_version_file_decides_the_launcher(checkout: Path) -> None:
    (checkout / "tensorrt_llm").mkdir()
    (checkout / "tensorrt_llm" / "version.py").write_text('__version__ = "1.2.0"\n')
    result = api.check([checkout / "cpp"], api.CheckOptions(arch="sm_90"))
    assert not [
        r for f in result.files for r in f.instantiations if r.verdict is Verdict.NOT_MODELED
    ]
    w4a16 = _w4a16(result)
    assert len(w4a16) == 152
    assert Counter(r.instantiation.args[0].strip() for r in w4a16) == {
        "half": 76,
        "__nv_bfloat16": 76,
    }
    ctx = next(f.context for f in result.files if "_Mixed_" in f.path)
    assert ctx is not None and ctx.producer is not None and ctx.release is not None
    assert (ctx.producer.value, ctx.release.value, ctx.producer.origin.value) == (
        "tensorrt_llm",
        "1.2.0",
        "header",
    )
    # the compiler's numbers for the same calls (FlashInfer 0.6.3's launcher and CUTLASS)
    truth = {
        _norm(t["args"]): t
        for t in rows("sm90-mixed-moe")
        if "0.6.3" in t["versions"] and t["args"][1] == W4A16
    }
    compared = 0
    for r in w4a16:
        t = truth.get(_norm(r.instantiation.args))
        if t is None:
            continue
        assert r.resources is not None
        assert (r.resources.stage_count.stages, r.resources.layout.size) == (
            t["stages"],
            t["smem_size"],
        )
        compared += 1
    assert compared == len(truth) >= 32


def test_without_it_the_launcher_is_not_decidable(checkout: Path) -> None:
    result = api.check([checkout / "cpp"], api.CheckOptions(arch="sm_90"))
    w4a16 = _w4a16(result)
    assert len(w4a16) == 152
    assert {r.verdict for r in w4a16} == {Verdict.NOT_MODELED}
    assert all("not decidable" in (r.not_modeled.reason if r.not_modeled else "") for r in w4a16)


def test_a_call_with_an_epilogue_fusion_says_so(tmp_path: Path) -> None:
    """A newer TensorRT-LLM's 10-argument call (EpilogueFusion after the epilogue tag): not
    modeled, and the reason names the fusion (not a misread tile)."""
    repo = tmp_path / "repo"
    src = repo / "cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_instantiations/gemm_grouped/90"
    src.mkdir(parents=True)
    (repo / "tensorrt_llm").mkdir()
    (repo / "tensorrt_llm" / "version.py").write_text('__version__ = "1.3.0"\n')
    # written for this test, in the generator's spelling
    (src / "k.cu").write_text(
        "template void sm90_generic_mixed_moe_gemm_kernelLauncher<half, __nv_fp4_e2m1, half,\n"
        "tensorrt_llm::cutlass_extensions::EpilogueOpDefault, EpilogueFusion::NONE,\n"
        "cute::Shape<cute::Int<64>, cute::Int<16>, cute::Int<128>>,\n"
        "cute::Shape<cute::Int<1>, cute::Int<1>, cute::Int<1>>,\n"
        "cutlass::gemm::KernelTmaWarpSpecializedPingpong,\n"
        "cutlass::epilogue::TmaWarpSpecializedCooperative,\n"
        "cutlass::WeightOnlyQuantOp::FINEGRAINED_SCALE_ONLY> (\n"
        "GroupedGemmInput<half, __nv_fp4_e2m1, half, half>inputs, TmaWarpSpecializedGroupedGemmInput"
        " hopper_inputs, int sm_count_, size_t* workspace_size);\n"
    )
    result = api.check([src / "k.cu"], api.CheckOptions(arch="sm_90", cutlass_version="4.5.0"))
    (row,) = [r for f in result.files for r in f.instantiations]
    assert row.verdict is Verdict.NOT_MODELED
    assert row.not_modeled is not None and "EpilogueFusion::NONE" in row.not_modeled.reason
