"""CUT109 and CUT110 on the model's own numbers: the register split of a real tactic, and the
same split edited so that it no longer fits the block's allocation.

No family modeled today produces a split above its allocation (CUTLASS's constants are written for
its thread counts: 128 x 40 + 256 x 232 = 64,512 = 384 x 168); this is the rule's arithmetic on a
kernel shell edited by hand."""

from __future__ import annotations

from cutlint import api
from cutlint.engine.evaluate import diagnose
from cutlint.engine.facts import core_facts
from cutlint.engine.loader import rules_by_id
from cutlint.model.occupancy import with_occupancy
from cutlint.records import Resources

RULES = [rules_by_id()[r] for r in ("CUT108", "CUT109", "CUT110", "CUT111")]


def _resources() -> Resources:
    tactic = api.check_tactic(tile="128x128x128", fusion="NONE")  # e2m1 x e2m1, sm_120
    assert tactic.resources is not None
    return tactic.resources


def test_a_real_split_fits_and_nothing_fires() -> None:
    res = _resources()
    assert res.register_use is not None and res.registers is not None
    assert res.register_use.block == res.registers.block_registers == 64_512
    assert diagnose(RULES, core_facts(res), "f.cu", 1) == []


def test_a_split_above_the_allocation_is_cut109() -> None:
    res = _resources()
    assert res.registers is not None
    bigger = res.registers.model_copy(
        update={"mma_warpgroup_registers": 240, "block_registers": 66_560}
    )
    edited = with_occupancy(
        "sm120-blockscaled-grouped", res.model_copy(update={"registers": bigger})
    )
    (d,) = diagnose(RULES, core_facts(edited), "f.cu", 1)
    assert d.rule == "CUT109" and "66,560" in d.message and "64,512" in d.message


def test_zero_occupancy_for_threads_is_cut110_and_not_for_smem() -> None:
    res = _resources()
    wide = with_occupancy(
        "sm120-blockscaled-grouped", res.model_copy(update={"max_threads_per_block": 1280})
    )
    rules = [d.rule for d in diagnose(RULES, core_facts(wide), "f.cu", 1)]
    assert "CUT110" in rules
    assert wide.occupancy is not None and wide.occupancy.limited_by[0] == "warps"
    # above the opt-in limit occupancy is zero too, but that is CUT101's finding, not CUT110's
    big = res.model_copy(update={"layout": res.layout.model_copy(update={"size": 200_000})})
    assert (
        diagnose(RULES, core_facts(with_occupancy("sm120-blockscaled-grouped", big)), "f.cu", 1)
        == []
    )
