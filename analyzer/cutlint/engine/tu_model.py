"""A family's model for each kernel a translation unit instantiates, beside clang's measurement.

The TU front end measures every kernel (clang's `sizeof(SharedStorage)`); this explains the
ones a family claims. Each kernel's builder chain, as clang resolved it, becomes the source form
families claim (`cutlint.parse.tu.forms`: the same `using` chain a scanner reads off a file), and
the first family of the registry that claims it computes its stage count and layout for the TU's
target and CUTLASS release (the one its include path holds). The result goes beside the
measurement, never instead of it: a model that differs from clang's layout is a defect of the
model, shown as such (`TuModel.equals`).
"""

from __future__ import annotations

from collections.abc import Sequence

from cutlint.cutlass.versions import CutlassModel, cutlass_model, read_version_h
from cutlint.families import registry
from cutlint.families.base import Unreadable
from cutlint.model.arch import arch_for
from cutlint.model.context import ModelContext
from cutlint.parse.tu.forms import instantiation
from cutlint.parse.tu.headers import include_dirs
from cutlint.records import Resources
from cutlint.tu_records import TuKernel, TuModel, TuPart, TuRead


def cutlass_of(read: TuRead) -> CutlassModel | None:
    """The CUTLASS release the TU's include path holds (its `cutlass/version.h`)."""
    for d in include_dirs(read.command.args):
        version = read_version_h(d)
        if version is not None:
            return cutlass_model(version, f"{d / 'cutlass' / 'version.h'}")
    return None


def context(read: TuRead) -> ModelContext | None:
    cutlass = cutlass_of(read)
    if cutlass is None:
        return None
    return ModelContext(arch=arch_for(read.arch), cutlass=cutlass)


def parts(res: Resources) -> tuple[TuPart, ...]:
    """The layout's members a level down from `SharedStorage` (`pipelines`, `scheduler`, and
    the union `tensors` as its `mainloop` and `epilogue`), each the span of its regions: the
    byte breakdown in a few lines."""
    spans: dict[tuple[str, int], tuple[int, int]] = {}
    for r in res.layout.regions:
        names = r.name.split(".")
        top = ".".join(names[:2]) if names[0] == "tensors" else names[0]
        # each gap its own line: one span over two paddings would cover the members between them
        key = (top, r.offset if top.startswith("(") else 0)
        start, end = spans.get(key, (r.offset, r.offset))
        spans[key] = (min(start, r.offset), max(end, r.offset + r.size))
    return tuple(TuPart(name=n, offset=a, size=b - a) for (n, _), (a, b) in spans.items())


def _stage_words(res: Resources) -> str:
    sc = res.stage_count
    if sc.fixed:
        return f"{sc.stages} stages (StageCount<{sc.stages}>)"
    return (
        f"({sc.capacity:,} - {sc.capacity - sc.carveout - sc.stage_budget:,} reserved"
        f" - {sc.carveout:,} carveout) / {sc.stage_bytes:,} B a stage = {sc.stages} stages"
    )


def model_kernel(kernel: TuKernel, ctx: ModelContext) -> TuModel | None:
    """The model of the family that claims the kernel; None when none claims it."""
    inst = instantiation(kernel)
    if inst is None:
        return None
    claimed = registry.claim(inst, ctx)
    if claimed is None:
        return None
    family, recipe = claimed
    if recipe is None:
        return None
    if isinstance(recipe, Unreadable):
        why = "; ".join(m for _, m in recipe.problems)
        return TuModel(family=family.name, reason=f"its arguments cannot be read: {why}")
    title = family.title(recipe)
    reason = family.covers(recipe, ctx)
    if reason is not None:
        return TuModel(family=family.name, title=title, reason=str(reason))
    res = family.resources(recipe, ctx)
    return TuModel(
        family=family.name,
        title=title,
        shared_storage=res.layout.size,
        stages=res.stage_count.stages,
        stage_formula=_stage_words(res),
        parts=parts(res),
    )


def model(read: TuRead) -> Sequence[TuModel | None]:
    """Each kernel's model, in `read.kernels`' order."""
    ctx = context(read)
    if ctx is None:
        return [None] * len(read.kernels)
    return [model_kernel(k, ctx) for k in read.kernels]


__all__ = ["context", "cutlass_of", "model", "model_kernel", "parts"]
