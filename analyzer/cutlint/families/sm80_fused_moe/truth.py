"""Compiler truth of the SM80 fused-MoE launcher: the 60 instantiations of each release's
`gemm_grouped/80` files, with the kernel's shared memory and block size, whether it takes the
m16 kernel, and every member of both kernel traits' SharedStorage nvcc reported."""

from __future__ import annotations

from cutlint.families.sm80_fused_moe import model
from cutlint.families.truth import Comparison, Row, Truth

SCOPES = ("base", "m16")
"""The probe's names for the launcher's two kernel traits (the M16 one where it is taken)."""


def compare(row: Row) -> Comparison | str:
    t = model.tactic_of(model.LAUNCHER_NAME, tuple(row["args"]))
    if not isinstance(t, model.Tactic):
        return str(t)
    members = row["members"]
    got: dict[str, object] = {
        "smem_size": model.kernel_smem(t),
        "threads_per_block": model.threads_per_block(t),
        "use_m16": int(model.uses_m16(t)),
    }
    want: dict[str, object] = {
        "smem_size": row["smem_size"],
        "threads_per_block": row["threads_per_block"],
        "use_m16": members["use_m16"],
    }
    for scope, tr in zip(SCOPES, model.kernel_traits(t), strict=False):
        mine = {
            f"{scope}.kTileM": tr.tile_m,
            f"{scope}.kTileN": tr.tile_n,
            f"{scope}.kTileK": tr.tile_k,
            f"{scope}.Stages": tr.stages,
        }
        block = model.traits_shared_storage(tr, t.element)
        mine[f"{scope}.sizeof"] = block.size
        mine[f"{scope}.alignof"] = block.align
        for piece in block.flat():
            name = piece.name.rsplit(".", 1)[-1]
            if not name.startswith("("):
                mine[f"{scope}.{name}.offset"] = piece.offset
                mine[f"{scope}.{name}.size"] = piece.size
                mine[f"{scope}.{name}.align"] = piece.align
        got |= mine
        want |= {k: members[k] for k in mine}
    # every member the compiler reported is one the model laid out
    want |= {k: v for k, v in members.items() if k.endswith(".offset")}
    return Comparison(got, want)


TRUTH = Truth(compare)
