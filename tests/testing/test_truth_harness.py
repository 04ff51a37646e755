"""The truth harness says what disagrees (cutlint.testing.truth): a recorded row with one number
changed fails, naming the key and both values; a row the model does not compute fails, saying so."""

from __future__ import annotations

import dataclasses

from cutlint.testing.truth import disagreement, rows, truth_cases


def test_a_changed_number_is_named_with_both_values() -> None:
    case = next(c for c in truth_cases() if c.family == "cutlass2-gemm-universal")
    assert disagreement(case) is None
    wrong = dataclasses.replace(case, row={**case.row, "kernel_smem": case.row["kernel_smem"] + 16})
    problem = disagreement(wrong)
    assert problem is not None
    assert (
        f"kernel_smem: model {case.row['kernel_smem']}, compiler {case.row['kernel_smem'] + 16}"
        in problem
    )


def test_a_row_the_model_does_not_compute_fails() -> None:
    case = next(c for c in truth_cases() if c.family == "sm120-fp4-gemm")
    row = {**case.row, "args": ["half", "1", "2", "3"]}
    problem = disagreement(dataclasses.replace(case, row=row))
    assert problem is not None and "does not compute" in problem


def test_rows_are_the_familys_own() -> None:
    """A file two families share is split by `owns`: BLAS-3 and planar-complex strata."""
    shared = "tests/data/nvcc_cutlass2_blas3_planar_truth_all_kernels.json"
    blas3, planar = rows("cutlass2-blas3", shared), rows("cutlass2-gemm-planar-complex", shared)
    assert blas3 and planar and len(blas3) + len(planar) == 225
