"""What the two SM90 mixed-input families (sm90-mixed-gemm, sm90-mixed-moe) share: their
Resources from the model's parts, computed once per storage tactic, and how they print a template
argument. Their models expose the same functions (stage_count, kernel_shared_storage,
mainloop_shared_storage, epilogue_shared_storage, max_threads_per_block, register_plan,
epilogue_tile)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from cutlint.families.base import smem_layout
from cutlint.model.context import ModelContext
from cutlint.records import Resources

_RESOURCES: dict[tuple[object, ...], Resources] = {}


def resources(model: ModuleType, t: Any, ctx: ModelContext, tma_descriptors: int) -> Resources:
    """One Resources per storage tactic and context: the instantiations that differ only in
    their cluster share it (a cache holds each tile in up to four clusters)."""
    key = (model.__name__, t, ctx.key)
    if key not in _RESOURCES:
        stage_count = model.stage_count(t)
        stages = stage_count.stages
        block = model.kernel_shared_storage(t, stages)
        _RESOURCES[key] = Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=stage_count,
            layout=smem_layout(
                block,
                model.mainloop_shared_storage(t, stages).size,
                model.epilogue_shared_storage(t).size,
            ),
            max_threads_per_block=model.max_threads_per_block(t),
            tma_descriptors=tma_descriptors,
            registers=model.register_plan(t),
            epilogue=model.epilogue_tile(t),
        )
    return _RESOURCES[key]


def short(arg: str) -> str:
    """A template argument without its namespaces (`cutlass::half_t` -> `half_t`)."""
    return arg.rsplit("::", 1)[-1]


def dims(model: ModuleType, shape: str) -> str:
    """A `cute::Shape<_M, _N, _K>` argument as `MxNxK` (as written when it is not static)."""
    s = model._shape(shape)
    return shape if s is None else str(s)
