"""A FlashInfer JIT cache's `generated/` holds every JIT module's sources, not only the fused-MoE
generator's: those with no CUTLASS GEMM instantiation (attention, sampling, norm kernels,
bindings) are skipped and counted in one summary line, never reported file by file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.records import Verdict

# Shaped like what FlashInfer's JIT renders and copies (flashinfer/data/csrc/*.jinja, csrc/*.cu);
# written here by hand, not copied.
ATTENTION = """#include <flashinfer/attention/prefill.cuh>
#include "batch_prefill_config.inc"
namespace flashinfer {
template cudaError_t BatchPrefillWithRaggedKVCacheDispatched<
    /*CTA_TILE_Q=*/16, 128, 128, PosEncodingMode::kNone, false, MaskMode::kNone, false,
    DefaultAttention<false, false, false, false>, RaggedParams>(RaggedParams params, half* tmp_v,
    float* tmp_s, bool enable_pdl, cudaStream_t stream);
};
"""
NORM = """#include <flashinfer/norm.cuh>
#include "tvm_ffi_utils.h"
void rmsnorm(TensorView out, TensorView input, TensorView weight, double eps, bool pdl) {}
"""
GROUPWISE = """#include <flashinfer/gemm/gemm_groupwise_sm120.cuh>
namespace flashinfer { namespace gemm {
template cudaError_t CutlassGroupwiseScaledGEMMSM120<1, 128, 128, true, __nv_fp8_e4m3, half>(
    void* float_buffer, size_t float_buffer_size_in_bytes, __nv_fp8_e4m3* A_ptr,
    __nv_fp8_e4m3* B_ptr, float* SFA_ptr, float* SFB_ptr, half* D_ptr, int m, int n, int k, int l,
    cudaStream_t stream);
} }
"""
FP4_DENSE = """#include "flashinfer/gemm/fp4_gemm_cutlass_template_sm120.h"
namespace flashinfer { namespace gemm {
INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(half, 128, 128, 128, 1, 1, 1, _1SM, true)
} }
"""


def _cache(real_cache: Any, tmp_path: Path) -> Path:
    generated = tmp_path / "flashinfer" / "0.7.4" / "120f" / "generated"
    shutil.copytree(real_cache("0.7.4").parent.parent, generated / "cutlass_instantiations" / "120")
    for rel, text in {
        "batch_prefill_with_kv_cache_dtype_q_f16/batch_prefill_ragged_kernel_mask_0.cu": ATTENTION,
        "norm/norm.cu": NORM,
        "gen_gemm_sm120/gemm_groupwise_sm120_kernel_1.cu": GROUPWISE,
        "gen_fp4_gemm_cutlass_sm120/fp4_gemm_cutlass_half_128_128_128.cu": FP4_DENSE,
    }.items():
        (generated / rel).parent.mkdir(parents=True, exist_ok=True)
        (generated / rel).write_text(text)
    return generated


def test_non_gemm_jit_sources_are_skipped_and_counted(real_cache: Any, tmp_path: Path) -> None:
    generated = _cache(real_cache, tmp_path)
    result = api.check([generated])
    assert sorted(Path(p).name for p in result.skipped) == [
        "batch_prefill_ragged_kernel_mask_0.cu",
        "norm.cu",
    ]
    names = {Path(f.path).name: f for f in result.files}
    assert not {"norm.cu", "batch_prefill_ragged_kernel_mask_0.cu"} & names.keys()
    # a GEMM the model does not cover yet is still a GEMM: reported, not skipped
    (groupwise,) = names["gemm_groupwise_sm120_kernel_1.cu"].instantiations
    assert groupwise.verdict is Verdict.NOT_MODELED
    (fp4,) = names["fp4_gemm_cutlass_half_128_128_128.cu"].instantiations
    assert fp4.instantiation.name == "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER"
    rows = [r for f in result.files for r in f.instantiations]
    assert len(rows) == 526 + 2
    assert not any(d.rule == "CUT006" for d in result.all_diagnostics() if "norm" in d.path)


def test_one_summary_line_says_how_many(real_cache: Any, tmp_path: Path) -> None:
    generated = _cache(real_cache, tmp_path)
    out = CliRunner().invoke(main, ["check", str(generated)])
    skipped = [line for line in out.output.splitlines() if "norm" in line or "skipped" in line]
    assert skipped == [
        "skipped 2 files: FlashInfer JIT sources under generated/ with no CUTLASS GEMM "
        "instantiation (attention, sampling, norm and other modules' kernels, bindings)"
    ]
    data = json.loads(
        CliRunner().invoke(main, ["check", str(generated), "--format", "json"]).output
    )
    assert data["summary"]["skipped"] == 2 and len(data["skipped"]) == 2


def test_outside_a_jit_cache_nothing_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "norm.cu").write_text(NORM)
    result = api.check([tmp_path])
    assert result.skipped == ()
    assert [d.rule for d in result.all_diagnostics()] == ["CUT006"]
