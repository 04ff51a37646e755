"""Compiler truth of the SM100 TGV GEMM: every file FlashInfer's gen_tgv_gemm_sm10x_module renders
for bf16 and fp16: sizeof, alignof and every member offset and size of SharedStorage, the stage
count and the launcher's block size. The kernel has one SharedStorage, no epilogue storage."""

from __future__ import annotations

from cutlint.families.sm100_tgv_gemm import model
from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, Truth, kernel_fields, pick

MEMBERS = (
    "A",
    "B",
    "tma_mma_full_barrier",
    "tma_mma_empty_barrier",
    "tma_epilog_full_barrier",
    "mma_epilog_full_barrier",
    "tmem_base_ptr",
)


def compare(row: Row) -> Comparison | str:
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"])
    if isinstance(k, str):
        return k
    t = model.tactic_of(row["name"], tuple(row["args"]))
    if isinstance(t, str):
        return t
    got = kernel_fields(
        k, model.mainloop_shared_storage(t, k.stages), model.epilogue_shared_storage(t)
    )
    want = pick(row, KERNEL_FIELDS)
    offsets = {p.name: (p.offset, p.size) for p in k.layout.pieces}
    for m in MEMBERS:
        got[m] = offsets[m]
        want[m] = (row["members"][f"kernel.{m}.offset"], row["members"][f"kernel.{m}.size"])
    return Comparison(got, want)


TRUTH = Truth(compare)
