"""A multi-arch build checked for one GPU: the kernels it never dispatches are "not for this GPU",
never failures; the SM80 fused-MoE path, which an sm_120 GPU runs, is judged for sm_120.

TensorRT-LLM's build runs the same generator as FlashInfer (flashinfer/jit/gemm/cutlass/
generate_kernels.py) for all its arches, under cpp/tensorrt_llm/kernels/cutlass_kernels/, and puts
its CUTLASS submodule, 3rdparty/cutlass/include, on the include path (cpp/CMakeLists.txt). This
builds that tree with FlashInfer 0.6.3's generator and vendored CUTLASS (4.2.1)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from cutlint import api
from cutlint.producers.flashinfer.wheel import load_generator
from cutlint.records import Verdict

ARCHES = "80;89;90;100;103;120"


def test_an_all_arch_build_checked_for_sm120(flashinfer_root: Any, tmp_path: Path) -> None:
    wheel = flashinfer_root("0.6.3")
    out = tmp_path / "cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_instantiations"
    load_generator(wheel).generate_gemm_operations(str(out), ARCHES)
    (tmp_path / "3rdparty").mkdir()
    (tmp_path / "3rdparty" / "cutlass").symlink_to(wheel / "flashinfer" / "data" / "cutlass")
    result = api.check([tmp_path / "cpp"], api.CheckOptions(arch="rtx-5090"))
    by: Counter[tuple[str, Verdict]] = Counter()
    for f in result.files:
        kind = "sm80" if "_sm80_" in f.path else "sm120" if "_sm120_" in f.path else "other"
        by.update((kind, r.verdict) for r in f.instantiations)
    assert by[("sm80", Verdict.FAILS_INITIALIZE)] == 20  # judged for the GPU that runs them
    assert by[("sm120", Verdict.FAILS_INITIALIZE)] == 4
    others = {v for (kind, v) in by if kind == "other"}
    assert others == {Verdict.NOT_FOR_GPU}, by
    assert not [v for (kind, v) in by if v is Verdict.NOT_MODELED]
    # its CUTLASS found without --cutlass-version: the tree's 3rdparty/cutlass
    (ctx,) = {f.context for f in result.files if f.context is not None and "_sm80_" in f.path}
    assert ctx.cutlass_version is not None and ctx.cutlass_version.value == "4.2.1"
