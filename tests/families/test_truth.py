"""Every family's model against its recorded compiler truth, byte for byte: one harness for all
(cutlint.testing.truth), driven by the registry; each family's `truth.py` says where its rows are
and what it compares. What a family's rows cover is claimed in its own test module."""

from __future__ import annotations

import pytest

from cutlint.testing.truth import TruthCase, disagreements, families_without_truth, truth_sets

SETS = truth_sets()


@pytest.mark.parametrize("cases", SETS.values(), ids=SETS.keys())
def test_model_equals_compiler(cases: list[TruthCase]) -> None:
    """Every row of one family's truth file (`family:file`); a failure lists each row that
    disagrees, by `family:file:index:kernel`, with the model's and the compiler's values."""
    wrong = disagreements(cases)
    assert not wrong, f"{len(wrong)} of {len(cases)} rows disagree:\n" + "\n".join(wrong[:20])


STILL_OWN_HARNESS = frozenset(
    {
        "sm120-collective-builder",
        "sm90-collective-builder",
        "sm100-collective-builder",
    }
)
"""Families whose rows are still compared by a test module of their own (as semgrep's
`todoruleid:`): the test fails for a new family without a `truth.py`, and once one of these has
one, so the list only shrinks."""


def test_every_family_has_its_truth_here_or_is_a_known_gap() -> None:
    without = set(families_without_truth())
    assert without - STILL_OWN_HARNESS == set(), "give the family a truth.py"
    assert STILL_OWN_HARNESS - without == set(), "a family has a truth.py: take it off the list"
