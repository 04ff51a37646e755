"""Compiler truth of the SM90 mixed-input GEMM: a stratified sample of the instantiations (every
tile/cluster/schedule and every type/quantization combination, two releases): stages, the three
SharedStorage sizes, the block size and every member of the mainloop's interleaved tensors."""

from __future__ import annotations

from types import ModuleType

from cutlint.cutlass import sm90_mixed_input as mixed
from cutlint.cutlass.layout import Block
from cutlint.families.sm90_mixed_gemm import model
from cutlint.families.truth import Comparison, Row, Truth


def mixed_comparison(m: ModuleType, t: object, tensors: Block, row: Row) -> Comparison:
    """The comparison both SM90 mixed-input families make (`m`: the family's model, `t` its
    tactic, `tensors` its mainloop's tensor storage); the members compared are the ones the
    probe reported."""
    stages = m.stage_count(t).stages
    got: dict[str, object] = {
        "stages": stages,
        "mainloop_size": m.mainloop_shared_storage(t, stages).size,
        "epilogue_size": m.epilogue_shared_storage(t).size,
        "smem_size": m.kernel_shared_storage(t, stages).size,
        "max_threads_per_block": m.max_threads_per_block(t),
    }
    want: dict[str, object] = {key: row[key] for key in got}
    mine = {"mainloop.tensors.sizeof": tensors.size, "mainloop.tensors.alignof": tensors.align}
    for piece in tensors.flat():
        name = piece.name.rsplit(".", 1)[-1]
        mine[f"mainloop.tensors.{name}.offset"] = piece.offset
        mine[f"mainloop.tensors.{name}.size"] = piece.size
    members: dict[str, int] = row["members"]
    got |= {k: mine.get(k, "(not modeled)") for k in members}
    return Comparison(got, want | members)


def compare(row: Row) -> Comparison | str:
    t = model.tactic_of(tuple(row["args"]))
    if not isinstance(t, model.Tactic):
        return str(t)
    stages = model.stage_count(t).stages
    tensors = mixed.interleaved_tensor_storage(**model._mainloop_args(t, stages))
    comparison = mixed_comparison(model, t, tensors, row)
    # the GEMM's probe reports every member of the tensors: none the model lays out is missing
    return Comparison(
        {**comparison.model, "members": sorted(k for k in row["members"])},
        {**comparison.compiler, "members": sorted(_member_keys(tensors))},
    )


def _member_keys(tensors: Block) -> list[str]:
    keys = ["mainloop.tensors.sizeof", "mainloop.tensors.alignof"]
    for piece in tensors.flat():
        name = piece.name.rsplit(".", 1)[-1]
        keys += [f"mainloop.tensors.{name}.offset", f"mainloop.tensors.{name}.size"]
    return keys


TRUTH = Truth(compare)
