"""The compiler truth comparison the CUTLASS 3.x JIT-module families share (`<family>/truth.py`
of sm120-fp4-group-gemm, sm120-fp8-groupwise, sm120-svdquant, sm90-segment-gemm): a model module
with `evaluate`, `tactic_of`, `register_plan` and the three SharedStorage functions, against a
row `cutlint verify`'s jit-module probe recorded."""

from __future__ import annotations

import inspect
from types import ModuleType

from cutlint.families.truth import KERNEL_FIELDS, Comparison, Row, kernel_fields


def kernel_comparison(model: ModuleType, row: Row) -> Comparison | str:
    """Stages, the three SharedStorage sizes, alignment, threads, the register split where the
    kernel reconfigures registers (setmaxnreg) and the mainloop tensors' offset in the kernel's
    storage."""
    k = model.evaluate(row["name"], tuple(row["args"]), row["version"], row.get("label", "default"))
    if isinstance(k, str):
        return k
    t = model.tactic_of(row["name"], tuple(row["args"]))
    if isinstance(t, str):
        return t
    # a model whose parts depend on the release's CUTLASS takes its recipe (`recipe_for`)
    recipe = (
        (model.recipe_for(row["version"]),)
        if "recipe" in inspect.signature(model.mainloop_shared_storage).parameters
        else ()
    )
    plan = model.register_plan(t, *recipe)
    members = row["members"]
    blocks = {p.name.removeprefix("SharedStorage."): p for p in k.layout.flat()}
    got: dict[str, object] = {
        **kernel_fields(
            k,
            model.mainloop_shared_storage(t, k.stages, *recipe),
            model.epilogue_shared_storage(t),
        ),
        "kernel.tensors.mainloop.offset": blocks["tensors.mainloop.smem_A"].offset,
    }
    want = {key: row[key] for key in KERNEL_FIELDS}
    want["kernel.tensors.mainloop.offset"] = members["kernel.tensors.mainloop.offset"]
    if plan.reconfigured:
        got["registers"] = (plan.load_warpgroup_registers, plan.mma_warpgroup_registers)
        want["registers"] = (
            members["kernel.LoadRegisterRequirement"],
            members["kernel.MmaRegisterRequirement"],
        )
    return Comparison(got, want)
