"""CUT301: the SM90 TMA builders' alignment static_assert, read from the chain's own alignments
(fixtures/sm90-collective-builder/CUT301-tma-global-alignment.cu holds the annotated form)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.families.sm90_collective_builder import model
from cutlint.families.sm90_collective_builder.recipe import (
    Sm90CollectiveBuilderRecipe,
    claim,
    tactic_of,
)
from cutlint.parse.extract import parse_source

FIXTURE = (
    Path(__file__).parents[2]
    / "fixtures"
    / "sm90-collective-builder"
    / "CUT301-tma-global-alignment.cu"
)


def _recipe(path: Path, kernel: str) -> Sm90CollectiveBuilderRecipe:
    insts = parse_source(str(path), path.read_bytes()).instantiations
    inst = next(i for i in insts if i.chain and i.chain[0].name == kernel)
    r = claim(inst)
    assert isinstance(r, Sm90CollectiveBuilderRecipe), r
    return r


@pytest.mark.parametrize(
    ("align_a", "align_b", "schedule", "misaligned"),
    [
        ("8", "8", "cutlass::gemm::KernelTmaWarpSpecializedCooperative", ""),
        ("4", "8", "cutlass::gemm::KernelTmaWarpSpecializedCooperative", "A 8 B (4 x 16 bits)"),
        ("8", "2", "cutlass::gemm::KernelTmaWarpSpecializedCooperative", "B 4 B (2 x 16 bits)"),
    ],
)
def test_the_alignment_each_operand_promises(
    align_a: str, align_b: str, schedule: str, misaligned: str
) -> None:
    r = _recipe(FIXTURE, "tma_align8_f16")
    mainloop = list(r.mainloop)
    mainloop[4], mainloop[7], mainloop[12] = align_a, align_b, schedule
    t = tactic_of(r.model_copy(update={"mainloop": tuple(mainloop)}))
    assert isinstance(t, model.Tactic), t
    assert (t.tma_misaligned.split(" not ")[0] if t.tma_misaligned else "") == misaligned


def test_a_cp_async_schedule_has_no_tma_to_misalign() -> None:
    r = _recipe(FIXTURE, "tma_align4_f16")
    mainloop = list(r.mainloop)
    mainloop[12] = "cutlass::gemm::KernelCpAsyncWarpSpecializedCooperative"
    t = tactic_of(r.model_copy(update={"mainloop": tuple(mainloop)}))
    assert not isinstance(t, model.Tactic) or t.tma_misaligned == ""
