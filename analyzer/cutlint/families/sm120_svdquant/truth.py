"""Compiler truth of the SM120 NVFP4 SVDQuant GEMM: the rows nvcc's jit-module probe recorded,
compared as every CUTLASS 3.x JIT-module family's are (cutlint.families.jit_module_truth), and
the mainloop's members at nvcc's offsets within its storage: smem_A/B/SFA/SFB (SFA padded to 128
rows for a 64-row tile), the row80 side slot's smem_D/smem_L1 and its two pipelines."""

from __future__ import annotations

from cutlint.families.jit_module_truth import kernel_comparison
from cutlint.families.sm120_svdquant import model
from cutlint.families.truth import Comparison, Row, Truth


def compare(row: Row) -> Comparison | str:
    kernel = kernel_comparison(model, row)
    t = model.tactic_of(row["name"], tuple(row["args"]))
    if isinstance(kernel, str) or isinstance(t, str):
        return kernel if isinstance(kernel, str) else str(t)
    storage = model.mainloop_shared_storage(t, row["stages"])
    pieces = {p.name.removeprefix("CollectiveMainloop::SharedStorage."): p for p in storage.flat()}
    members = row["members"]
    reported = {
        key.removeprefix("mainloop.").rsplit(".", 1)[0]
        for key in members
        if key.startswith("mainloop.") and key.endswith(".offset")
    }
    got: dict[str, object] = {}
    want: dict[str, object] = {}
    for name in sorted(reported):
        if name == "pipeline_storage" and t.row80:
            continue  # a struct: its two members are compared
        piece = pieces.get(name) or pieces.get(f"{name}.mainloop")
        key = f"mainloop.{name}"
        got[key] = (piece.offset, piece.size) if piece else "(not modeled)"
        want[key] = (members[f"{key}.offset"], members[f"{key}.size"])
    return Comparison({**kernel.model, **got}, {**kernel.compiler, **want})


TRUTH = Truth(compare)
