"""One compiler-truth harness for every family: the rows each family's `truth.py` names
(cutlint.families.truth), read once, compared with the family's model.

    from cutlint.testing.truth import disagreements, truth_sets
    for name, cases in truth_sets().items():
        assert not disagreements(cases), name

A family without a `truth.py` is not compared here (`families_without_truth` names them: their
comparisons still live in their own test modules)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from cutlint.families.base import Family, family_data
from cutlint.families.registry import families, family_named, truth_of
from cutlint.families.truth import Comparison, Row, Truth

SOURCE_ROOT = Path(__file__).parents[3]
"""The repository root of a source checkout (where tests/data lives), the default `root`."""


@dataclass(frozen=True)
class TruthCase:
    """One recorded row of one family's compiler truth."""

    family: str
    file: str
    """Repository-relative path of the truth file."""
    index: int
    """The row's index in the file's `rows`."""
    row: Row

    @property
    def id(self) -> str:
        """`family:file-stem:index[:kernel]`, as pytest shows it."""
        kernel = self.row.get("kernel")
        name = Path(self.file).stem.removeprefix("nvcc_")
        return f"{self.family}:{name}:{self.index}" + (f":{kernel}" if kernel else "")


@cache
def read_truth(path: Path) -> dict[str, Any]:
    """A truth file as recorded (`rows`, and where the recorder writes them, `compile_errors`).
    A file written in columns (`columns`, each row a list) is read as one mapping per row."""
    data: dict[str, Any] = json.loads(path.read_text())
    if "columns" in data:
        columns = data["columns"]
        data = {**data, "rows": [dict(zip(columns, r, strict=True)) for r in data["rows"]]}
    return data


def truth_files(family: Family) -> tuple[str, ...]:
    """The family's truth files: its data file's `truth`, then its `truth.py`'s `also`."""
    truth = truth_of(family)
    also = truth.also if truth is not None else ()
    return (family_data(family.package).truth, *also)


def rows(family: str, file: str | None = None, root: Path = SOURCE_ROOT) -> list[Row]:
    """The rows of `family` in `file` (default: its data file's `truth`), filtered by what the
    family owns."""
    fam = family_named(family)
    path = root / (file or family_data(fam.package).truth)
    recorded: list[Row] = read_truth(path)["rows"]
    truth = truth_of(fam)
    owns = truth.owns if truth is not None else None
    return [r for r in recorded if owns is None or owns(r)]


def truth_cases(root: Path = SOURCE_ROOT) -> list[TruthCase]:
    """Every row of every family that has a `truth.py`, in registry order."""
    out: list[TruthCase] = []
    for family in families():
        truth = truth_of(family)
        if truth is None:
            continue
        for file in truth_files(family):
            recorded: list[Row] = read_truth(root / file)["rows"]
            out += [
                TruthCase(family.name, file, i, row)
                for i, row in enumerate(recorded)
                if truth.owns is None or truth.owns(row)
            ]
    return out


def truth_sets(root: Path = SOURCE_ROOT) -> dict[str, list[TruthCase]]:
    """Every family's rows by truth file (`family:file-stem`), in registry order: what one test
    compares at a time (a test per row costs pytest more than the comparison does)."""
    out: dict[str, list[TruthCase]] = {}
    for case in truth_cases(root):
        out.setdefault(f"{case.family}:{Path(case.file).stem.removeprefix('nvcc_')}", []).append(
            case
        )
    return out


def disagreements(cases: list[TruthCase]) -> list[str]:
    """What `disagreement` says of each case that disagrees (empty: every row agrees)."""
    return [d for case in cases if (d := disagreement(case)) is not None]


def families_without_truth() -> tuple[str, ...]:
    """Registered families whose truth is still compared by a test module of their own."""
    return tuple(f.name for f in families() if truth_of(f) is None)


def comparison(case: TruthCase) -> Comparison | str:
    truth: Truth | None = truth_of(family_named(case.family))
    assert truth is not None, case.family
    return truth.compare(case.row)


def disagreement(case: TruthCase) -> str | None:
    """None when the model computes the row's numbers exactly; else what differs, or why the
    model does not compute the row."""
    compared = comparison(case)
    if isinstance(compared, str):
        return f"{case.id}: the model does not compute this recorded row: {compared}"
    differences = compared.differences()
    if not differences:
        return None
    lines = [
        f"  {key}: model {got!r}, compiler {want!r}" for key, (got, want) in differences.items()
    ]
    return "\n".join([f"{case.id} ({case.row.get('file', '')}):", *lines])
