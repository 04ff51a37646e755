"""The CUTLASS 2.x BLAS-3 model equals nvcc, byte for byte, on a stratified sample of a real
cutlass_library 120a build's device::Trmm, Symm, RankK and Rank2K kernels
(tests/data/nvcc_cutlass2_blas3_truth.json, 88 rows: every trmm/80, symm/80, rank_k/80 and
rank_2k/80 directory, real, complex and Gaussian complex, left and right side, 3 and 4 stages).
For Symm and Rank2K, whose kernels hold Mma1 and Mma2, cutlint.verify.alias_probe reports Mma1's
storage and stages as the mainloop's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutlint.families.cutlass2_blas3 import model
from cutlint.testing.truth import read_truth

TRUTH = Path(__file__).parents[1] / "data" / "nvcc_cutlass2_blas3_truth.json"
ROWS = read_truth(TRUTH)["rows"]


def test_the_truth_covers_every_template_and_directory() -> None:
    assert len(ROWS) == 88 and not read_truth(TRUTH)["compile_errors"]
    assert {r["template"] for r in ROWS} == set(model.TEMPLATES)
    assert len({r["file"].rsplit("/", 1)[0] for r in ROWS}) == 7 + 3 * 11
    kernels = [model.kernel_of(r["template"], tuple(r["args"])) for r in ROWS]
    assert {k.element_a for k in kernels} == {*model.REAL, *model.COMPLEX}
    assert {k.stages for k in kernels} == {3, 4}
    assert {"cutlass::SideMode::kLeft", "cutlass::SideMode::kRight"} <= {
        a for r in ROWS for a in r["args"]
    }
    keys = {"kernel_smem", "kernel_align", "mainloop_smem", "epilogue_smem", "stages", "threads"}
    assert all(keys <= set(r) for r in ROWS)


def _with(row: dict[str, Any], at: int, value: str) -> model.Kernel:
    args = list(row["args"])
    args[at] = value
    return model.kernel_of(row["template"], tuple(args))


def test_what_the_truth_does_not_hold_is_not_modeled() -> None:
    row = next(r for r in ROWS if r["template"].endswith("::Trmm"))
    t = model.TEMPLATES[row["template"]]
    simt = model.scope_reason(_with(row, t.opclass, "cutlass::arch::OpClassSimt"))
    assert simt == "OpClassSimt BLAS-3 kernels are not modeled (TensorOp is)"
    sm90 = model.scope_reason(_with(row, t.opclass + 1, "cutlass::arch::Sm90"))
    assert sm90 == "BLAS-3 kernels of ArchTag Sm90 are not modeled (Sm80 is)"
    half = model.scope_reason(_with(row, t.element_a, "cutlass::half_t"))
    assert half is not None and "cutlass::half_t" in half
    two = model.scope_reason(_with(row, t.opclass + 7, "2"))
    assert two is not None and two.startswith("Stages = 2")


def test_too_few_arguments_are_unreadable() -> None:
    with pytest.raises(model.UnreadableType):
        model.kernel_of("cutlass::gemm::device::RankK", ("float",) * 5)
