"""Compiler truth of the dense FP4 SM120 GEMM: every kernel of each instantiation (the default and
the stream-K one): stages, the three SharedStorage sizes, alignment, threads, the register split,
the scheduler's storage and the mainloop tensors' offset."""

from __future__ import annotations

from cutlint.families.sm120_fp4_gemm import model
from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, Truth, kernel_fields, pick


def compare(row: Row) -> Comparison | str:
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row["label"])
    if isinstance(k, str):
        return k
    t = model.tactic_of(row["name"], tuple(row["args"]))
    if not isinstance(t, model.Tactic):
        return str(t)
    plan = model.register_plan(t, model.recipe_for(row["version"]))
    members = row["members"]
    blocks = {p.name.removeprefix("SharedStorage."): p for p in k.layout.flat()}
    scheduler = [p for name, p in blocks.items() if name.startswith("scheduler")]
    got: dict[str, object] = {
        **kernel_fields(
            k, model.mainloop_shared_storage(t, k.stages), model.epilogue_shared_storage(t)
        ),
        "kernel.LoadRegisterRequirement": plan.load_warpgroup_registers,
        "kernel.MmaRegisterRequirement": plan.mma_warpgroup_registers,
        "kernel.scheduler.size": sum(p.size for p in scheduler if p.name != "(padding)"),
        "kernel.tensors.mainloop.offset": blocks["tensors.mainloop.smem_A"].offset,
    }
    want = pick(row, KERNEL_FIELDS) | {key: members[key] for key in list(got)[6:]}
    return Comparison(got, want)


TRUTH = Truth(compare)
