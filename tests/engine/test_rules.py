"""Rule files are data: valid against the schema, each with a doc page that is not stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.engine.evaluate import holds, render
from cutlint.engine.loader import RuleFileError, checked_rules, load_rules, parse_rule
from cutlint.engine.schema import Compare
from cutlint.report.rule_docs import pages

DOCS = Path(__file__).parent.parent.parent / "docs" / "rules"
GOOD = """
id = "CUT199"
name = "example-rule"
severity = "warning"
kind = "resource"
fails_at = "never"
failure_class = "-"
message = "{smem.total:,} B"
when = { metric = "smem.total", gt = 1 }
[doc]
what = "w"
why = "y"
example = "e"
fix = "f"
references = ["r"]
"""


def test_rules_load_and_ids_are_grouped_by_hundreds() -> None:
    rules = load_rules()
    assert len(rules) >= 13
    for r in rules:
        group = int(r.id[3:]) // 100
        assert group in (0, 1, 2, 3), r.id  # 3: TMA descriptors (rules/tma)


def test_every_rule_page_is_generated_and_fresh() -> None:
    for name, text in pages().items():
        path = DOCS / name
        assert path.exists(), (
            f"docs/rules/{name} missing: run python -m cutlint.report.rule_docs docs/rules"
        )
        assert path.read_text() == text, (
            f"docs/rules/{name} is stale: run python -m cutlint.report.rule_docs docs/rules"
        )


def test_a_good_rule_parses() -> None:
    rule = parse_rule("CUT199-example-rule.toml", GOOD)
    assert rule.label == "CUT199 example-rule"


@pytest.mark.parametrize(
    "change",
    [
        ('name = "example-rule"', 'name = "Example_Rule"'),
        ('id = "CUT199"', 'id = "X199"'),
        ('metric = "smem.total", gt', 'metric = "smem.totl", gt'),
        ('message = "{smem.total:,} B"', 'message = "{__import__}"'),
        ("gt = 1 }", "gt = 1, lt = 5 }"),
        ('severity = "warning"', 'severity = "fatal"'),
        ('references = ["r"]', "references = []"),
        ('fails_at = "never"', 'fails_at = "never"\nunknown_key = 1'),
    ],
)
def test_bad_rules_are_rejected(change: tuple[str, str]) -> None:
    with pytest.raises(RuleFileError):
        parse_rule("CUT199-example-rule.toml", GOOD.replace(*change))


def test_file_name_must_match_id_and_name() -> None:
    with pytest.raises(RuleFileError):
        parse_rule("CUT198-other.toml", GOOD)


def test_conditions_and_templates_are_data() -> None:
    facts = {"smem.total": 102400, "smem.limit": 101376}
    cond = Compare.model_validate({"metric": "smem.total", "gt": {"metric": "smem.limit"}})
    assert holds(cond, facts)
    assert render("{smem.total:,} > {smem.limit}", facts) == "102,400 > 101376"


def test_every_shipped_rule_reads_only_metrics_its_families_provide() -> None:
    """`check` loads the rules without importing every family they name (families.registry);
    the metrics each reads are checked here instead."""
    assert checked_rules() == load_rules()
