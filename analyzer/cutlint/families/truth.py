"""What a family tells the test harness about its compiler truth, in the family's own folder
(`<family>/truth.py`, found through the registry: `registry.truth_of`).

Compiler truth rows are what `cutlint verify` (or a probe of tests/tools) recorded from nvcc: one
JSON object per kernel, with the sizes the compiler laid out (`sizeof(SharedStorage)`, the stage
count, member offsets in `members`). A family's `TRUTH` says which files hold its rows, which rows
of a file are its own, and how its model computes the same numbers for one row (`compare`): the
harness (cutlint.testing.truth) loads the rows and asserts both sides are equal, for every family
at once. The family's claims about what its rows cover (every release, every stratum) stay in its
own test module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from cutlint.cutlass.layout import Block

Row = Mapping[str, Any]
"""One compiler truth row, as recorded (JSON)."""


@dataclass(frozen=True)
class Comparison:
    """The model's numbers for one row and the compiler's, under the same keys."""

    model: Mapping[str, object]
    compiler: Mapping[str, object]

    def differences(self) -> dict[str, tuple[object, object]]:
        """key -> (model, compiler) for every key where they differ or one side lacks it."""
        keys = [*self.compiler, *(k for k in self.model if k not in self.compiler)]
        missing = object()
        out: dict[str, tuple[object, object]] = {}
        for key in keys:
            got, want = self.model.get(key, missing), self.compiler.get(key, missing)
            if got != want:
                out[key] = (
                    "(absent)" if got is missing else got,
                    "(absent)" if want is missing else want,
                )
        return out


@dataclass(frozen=True)
class Truth:
    """A family's compiler truth: where its rows are and how to compare one (`TRUTH` in its
    `truth.py`)."""

    compare: Callable[[Row], Comparison | str]
    """The model's numbers beside the row's; a string when the model does not compute this row
    (a failure: every recorded row of the family is one it models)."""
    also: tuple[str, ...] = ()
    """Further truth files beside the data file's `truth` (repository-relative paths)."""
    owns: Callable[[Row], bool] | None = None
    """Which rows of a file are this family's, where a file holds several families' rows or rows
    the family leaves out on purpose (None: every row)."""


def pick(row: Row, keys: tuple[str, ...] | list[str]) -> dict[str, object]:
    """The row's values of `keys`: the compiler's side of the plain fields."""
    return {key: row[key] for key in keys}


class Staged(Protocol):
    """A kernel record that knows its stage count (every CUTLASS 2.x family's)."""

    @property
    def stages(self) -> int: ...


K = TypeVar("K", bound=Staged)

STORAGE_FIELDS = (
    "kernel_smem",
    "kernel_align",
    "mainloop_smem",
    "epilogue_smem",
    "stages",
    "threads",
)
"""The fields of a CUTLASS 2.x row: the kernel's SharedStorage (sizeof, alignof), the mainloop's
and the epilogue's, the stage count and the threads per block."""


def storage_truth(
    kernel: Callable[[Row], tuple[K, str | None]],
    kernel_storage: Callable[[K], Block],
    mainloop: Callable[[K], Block],
    epilogue: Callable[[K], Block],
    threads: Callable[[K], int],
    *,
    also: tuple[str, ...] = (),
    owns: Callable[[Row], bool] | None = None,
) -> Truth:
    """The truth of a family whose rows hold `STORAGE_FIELDS` (the CUTLASS 2.x families): its
    kernel read from a row with why it is out of the model (None: in it), and the model's parts."""

    def compare(row: Row) -> Comparison | str:
        k, reason = kernel(row)
        if reason is not None:
            return reason
        parts = (kernel_storage(k), mainloop(k), epilogue(k))
        got = {
            "kernel_smem": parts[0].size,
            "kernel_align": parts[0].align,
            "mainloop_smem": parts[1].size,
            "epilogue_smem": parts[2].size,
            "stages": k.stages,
            "threads": threads(k),
        }
        return Comparison(got, pick(row, STORAGE_FIELDS))

    return Truth(compare, also=also, owns=owns)
