"""Every fixture under fixtures/ carries its expectations; a fixture passes only when every finding
and every annotation is matched (the grammar: cutlint.testing.fixtures, docs/testing.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.engine.loader import load_rules
from cutlint.testing.fixtures import check_fixture, expected_rules

FIXTURES = Path(__file__).parent.parent / "fixtures"
FIXTURE_FILES = sorted(
    p for p in FIXTURES.rglob("*.cu") if "tu" not in p.relative_to(FIXTURES).parts
)
TU_FIXTURE_FILES = sorted((FIXTURES / "tu").rglob("*.cu"))
"""Translation units `cutlint tu` reads with their flags (tests/parse/tu/test_tu_front.py), not
`check`: their expectations count for the rules, their checking is done there."""


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture(path: Path) -> None:
    problems = check_fixture(path)
    assert not problems, "\n".join(problems)


EXERCISED_ELSEWHERE = {
    "CUT001",
    "CUT002",
    "CUT007",
    "CUT012",
    "CUT207",
    "CUT108",
    "CUT109",
    "CUT110",
    "CUT111",
}
"""Rules whose inputs are made at test time (tests/test_bad_input.py, tests/test_hostile_inputs.py):
symlink loops, binary files, libclang crashes and cutlint's own bugs (CUT012) cannot live as
annotated fixtures; CUT207 is a finding on a runner's tactics against a whole module, not on a
line (tests/producers/test_runner_tactics.py, tests/explain/test_explain_gemm_runner.py,
tests/pregen/test_pregen_flashinfer.py drop an instantiation from real rendered modules).
CUT108-CUT111 need registers and spills the source does not decide for any family modeled today
(every CUTLASS 3.x kernel fits its launch bounds; 2.x registers are ptxas's): they fire on
binaries compiled at test time (tests/binaries/test_judge.py) and on the model's register split
(tests/model/test_register_rules.py)."""


def test_every_rule_has_a_fixture() -> None:
    expected = expected_rules(FIXTURE_FILES + TU_FIXTURE_FILES)
    missing = {r.id for r in load_rules()} - expected - EXERCISED_ELSEWHERE
    assert not missing, f"rules without a fixture that expects them: {sorted(missing)}"
