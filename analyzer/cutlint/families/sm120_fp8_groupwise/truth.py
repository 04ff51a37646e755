"""Compiler truth of the SM120 FP8 groupwise GEMM and grouped GEMM: the rows nvcc's jit-module probe recorded, compared as every
CUTLASS 3.x JIT-module family's are (cutlint.families.jit_module_truth)."""

from __future__ import annotations

from cutlint.families.jit_module_truth import kernel_comparison
from cutlint.families.sm120_fp8_groupwise import model
from cutlint.families.truth import Comparison, Row, Truth


def compare(row: Row) -> Comparison | str:
    return kernel_comparison(model, row)


TRUTH = Truth(compare)
