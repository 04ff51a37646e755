"""What every CUTLASS 2.x family says the same way: the stage count is a template argument (no
builder), its per-stage terms are the mainloop's operand tiles, the variants are the same kernel
with fewer stages, and its element types read alike. Each family passes its own kernel's numbers
(families/cutlass2_*)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cutlint.cutlass.layout import Block
from cutlint.model.context import ModelContext
from cutlint.records import Shape3, StageCount, StageTerm, Variant

OPERANDS = ("operand_A", "operand_B")
"""MmaBase::SharedStorage's per-stage tiles (cutlass/gemm/threadblock/mma_base.h)."""


def fixed_stage_count(
    stages: int,
    mma: Block,
    ctx: ModelContext,
    stages_argument: str,
    operands: Sequence[str] = OPERANDS,
) -> StageCount:
    """`Stages` as the kernel's template argument gives it (`stages_argument`: which one); the
    per-stage terms are `mma`'s `operands` tiles divided by the stage count."""
    per_stage = tuple(
        StageTerm(
            name=p.name.rsplit(".", 1)[-1],
            bytes=p.size // stages,
            source=p.source,
            derived_from=p.derived_from,
        )
        for p in mma.flat()
        if p.name.rsplit(".", 1)[-1] in operands
    )
    return StageCount(
        stages=stages,
        capacity=ctx.arch.smem_optin,
        reductions=(),
        carveout=0,
        stage_budget=ctx.arch.smem_optin,
        per_stage=per_stage,
        stage_bytes=sum(t.bytes for t in per_stage),
        formula=f"{stages_argument}: Stages (as cutlass_library's tile description gives it)",
        capacity_source="the arch's opt-in shared memory per block (model/data/arches.toml)",
        fixed=True,
    )


def fewer_stages(
    stages: int,
    tile: Shape3,
    ctx: ModelContext,
    smem_with: Callable[[int], int],
    lowest: int = 2,
) -> tuple[Variant, ...]:
    """The kernel with one stage fewer at a time, down to `lowest` (the fewest its mainloop
    takes), up to the first that fits; `smem_with(n)` is its SharedStorage with n stages."""
    out = []
    for n in range(stages - 1, lowest - 1, -1):
        smem = smem_with(n)
        fits = smem <= ctx.arch.smem_optin
        out.append(Variant(label=f"{n}-stage", tile=tile, stages=n, smem_bytes=smem, fits=fits))
        if fits:
            break
    return tuple(out)


def element_types(a: str, c: str, accumulator: str) -> str:
    """`half_t` when A, C and the accumulator agree, else `A -> C (accumulator)`."""
    a, c, accumulator = (e.replace("cutlass::", "") for e in (a, c, accumulator))
    return a if a == c == accumulator else f"{a} -> {c} ({accumulator})"
