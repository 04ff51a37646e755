"""Compiler truth of the dense MXFP8 SM120 GEMM: stages, the three SharedStorage sizes, alignment,
threads, the register split, and every mainloop member's offset and size nvcc reported."""

from __future__ import annotations

from cutlint.families.sm120_mxfp8_gemm import model
from cutlint.families.truth import Comparison, Row, Truth, pick

TENSORS = ("smem_A", "smem_B", "smem_SFA", "smem_SFB")


def compare(row: Row) -> Comparison | str:
    t = model.tactic_of(row["name"], tuple(row["args"]))
    if not isinstance(t, model.Tactic):
        return str(t)
    recipe = model.recipe_for(row["version"])
    if not isinstance(recipe, model.Recipe):
        return f"no recipe for {row['version']}"
    stages = model.stage_count(t, recipe).stages
    kernel = model.kernel_shared_storage(t, stages)
    plan = model.register_plan(t)
    members = row["members"]
    blocks = {p.name.removeprefix("SharedStorage."): p for p in kernel.flat()}
    a = blocks["tensors.mainloop.smem_A"].offset
    got: dict[str, object] = {
        "stages": stages,
        "mainloop_smem": model.mainloop_shared_storage(t, stages).size,
        "epilogue_smem": model.epilogue_shared_storage(t).size,
        "kernel_smem": kernel.size,
        "kernel_align": kernel.align,
        "max_threads_per_block": model.max_threads_per_block(),
        "kernel.LoadRegisterRequirement": plan.load_warpgroup_registers,
        "kernel.MmaRegisterRequirement": plan.mma_warpgroup_registers,
        "kernel.tensors.mainloop.offset": a,
        "kernel.scheduler.offset": blocks["scheduler.pipeline_"].offset,
    }
    for name in TENSORS:
        block = blocks[f"tensors.mainloop.{name}"]
        got[f"mainloop.tensors.{name}.offset"] = block.offset - a
        got[f"mainloop.tensors.{name}.size"] = block.size
    want = pick(row, list(got)[:6]) | {key: members[key] for key in list(got)[6:]}
    return Comparison(got, want)


TRUTH = Truth(compare)
