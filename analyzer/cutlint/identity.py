"""Answers kept by an object's identity.

A run shares its records as one object each: one `BuildContext` per directory and compile
command (context/resolve.py), one `ArchLimits` per arch (model/arch.py), one `CheckOptions` per
run. An answer computed from such a record is kept by its identity, not its value, where the
value has no hash (a frozen record holding a dict) or where hashing it costs more than the
answer (a pydantic record's hash hashes every field: 0.5 s of a hundred-thousand-kernel run for
the model contexts alone). The object is held with its answer, so that its id is not taken by
another object while the answer is kept."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """Answers by (an object's identity, other hashable parts), at most `bound` of them: all are
    forgotten at the bound (the repeats of a run lie near one another: a directory's files, a
    tactic's kernels). `bound=None`: no bound (its owner clears it)."""

    def __init__(self, bound: int | None) -> None:
        self.bound = bound
        self._held: dict[tuple[Hashable, ...], tuple[object, V]] = {}

    def get(self, obj: object, compute: Callable[[], V], *parts: Hashable) -> V:
        """The answer kept for `obj` and `parts`, else `compute()`, kept. `parts` must hold
        everything `compute` reads besides `obj`."""
        key = (id(obj), *parts)
        held = self._held.get(key)
        if held is not None and held[0] is obj:
            return held[1]
        value = compute()
        if self.bound is not None and len(self._held) >= self.bound:
            self._held.clear()
        self._held[key] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._held)

    def clear(self) -> None:
        self._held.clear()
