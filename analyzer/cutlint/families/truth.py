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
from types import ModuleType
from typing import Any, Protocol

from cutlint.cutlass.layout import Block
from cutlint.families.kernel_numbers import KernelNumbers

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


KERNEL_FIELDS = (
    "stages",
    "mainloop_smem",
    "epilogue_smem",
    "kernel_smem",
    "kernel_align",
    "max_threads_per_block",
)
"""The fields of a CUTLASS 3.x row: the stage count, sizeof of the mainloop's and the epilogue's
SharedStorage, the kernel's SharedStorageSize and alignof, MaxThreadsPerBlock."""


def kernel_fields(k: KernelNumbers, mainloop: Block, epilogue: Block) -> dict[str, object]:
    """The model's side of `KERNEL_FIELDS`, from its kernel numbers and collective storages."""
    return {
        "stages": k.stages,
        "mainloop_smem": mainloop.size,
        "epilogue_smem": epilogue.size,
        "kernel_smem": k.smem,
        "kernel_align": k.layout.align,
        "max_threads_per_block": k.max_threads_per_block,
    }


def pick(row: Row, keys: tuple[str, ...] | list[str]) -> dict[str, object]:
    """The row's values of `keys`: the compiler's side of the plain fields."""
    return {key: row[key] for key in keys}


class Staged(Protocol):
    """A kernel record that knows its stage count (every CUTLASS 2.x family's)."""

    @property
    def stages(self) -> int: ...


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


def _arguments(row: Row) -> tuple[Any, ...]:
    return (tuple(row["args"]),)


def storage_truth(
    model: ModuleType,
    *,
    arguments: Callable[[Row], tuple[Any, ...]] = _arguments,
    kernel: Callable[[Row], tuple[Staged, str | None]] | None = None,
    parts: ModuleType | None = None,
    also: tuple[str, ...] = (),
    owns: Callable[[Row], bool] | None = None,
) -> Truth:
    """The truth of a family whose rows hold `STORAGE_FIELDS` (the CUTLASS 2.x families). Its
    kernel is `model.kernel_of(*arguments(row))` and why it is out of the model
    `model.scope_reason(kernel)` (or `kernel(row)` gives both); the numbers are its
    `kernel_shared_storage`, `mma_shared_storage`, `epilogue_shared_storage` and
    `threads_per_block`, the model's own or, where it has none, `parts`' (the universal GEMM's,
    which the sparse and grouped GEMMs build on)."""

    def part(name: str) -> Any:
        return getattr(model, name, None) or getattr(parts, name)

    def read(row: Row) -> tuple[Staged, str | None]:
        if kernel is not None:
            return kernel(row)
        k = model.kernel_of(*arguments(row))
        return k, model.scope_reason(k)

    def compare(row: Row) -> Comparison | str:
        k, reason = read(row)
        if reason is not None:
            return reason
        storage = part("kernel_shared_storage")(k)
        got = {
            "kernel_smem": storage.size,
            "kernel_align": storage.align,
            "mainloop_smem": part("mma_shared_storage")(k).size,
            "epilogue_smem": part("epilogue_shared_storage")(k).size,
            "stages": k.stages,
            "threads": part("threads_per_block")(k),
        }
        return Comparison(got, pick(row, STORAGE_FIELDS))

    return Truth(compare, also=also, owns=owns)
