"""Compiler truth of the SM90 segment GEMM: every kernel (both weight layouts) of the instantiations
the JIT module gemm_sm90 renders, for each vendored CUTLASS; compared as every CUTLASS 3.x
JIT-module family's are (cutlint.families.jit_module_truth), and member by member."""

from __future__ import annotations

from cutlint.families.jit_module_truth import kernel_comparison
from cutlint.families.sm90_segment_gemm import model
from cutlint.families.truth import Comparison, Row, Truth

MEMBERS = {
    "kernel.tensors.epilogue": "tensors.epilogue",
    "kernel.pipelines.scheduler": "pipelines.scheduler",
    "kernel.pipelines.mainloop": "pipelines.mainloop",
    "kernel.pipelines.load_order": "pipelines.load_order",
    "kernel.scheduler_response": "scheduler_response",
    "kernel.tensormaps": "tensormaps.mainloop.smem_tensormap_A",
    "mainloop.tensors.smem_B": "tensors.mainloop.smem_B",
}
"""nvcc's member offsets -> the model's SharedStorage regions (offset of the first piece)."""


def compare(row: Row) -> Comparison | str:
    kernel = kernel_comparison(model, row)
    if isinstance(kernel, str):
        return kernel
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row["label"])
    if isinstance(k, str):
        return k
    pieces = {p.name.removeprefix("SharedStorage."): p for p in k.layout.flat()}
    return Comparison(
        {**kernel.model, **{f"{m}.offset": pieces[p].offset for m, p in MEMBERS.items()}},
        {**kernel.compiler, **{f"{m}.offset": row["members"][f"{m}.offset"] for m in MEMBERS}},
    )


TRUTH = Truth(compare)
