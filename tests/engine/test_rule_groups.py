"""Rules select families by the groups they join (cutlint.families.groups); a rule file still
written with a `families` list loads and applies while it is ported."""

from __future__ import annotations

from cutlint.engine.loader import check_metrics, parse_rule, rule_members
from cutlint.families.groups import RuleGroup
from cutlint.families.registry import family_named

RULE = """
id = "CUT199"
name = "example-rule"
severity = "warning"
kind = "resource"
fails_at = "never"
failure_class = "-"
message = "{{umma.tmem.columns}} columns"
when = {{ metric = "smem.total", gt = 1 }}
applies_to = {scope}
[doc]
what = "w"
why = "y"
example = "e"
fix = "f"
references = ["r"]
"""


def test_a_group_selects_its_members_on_its_arches() -> None:
    rule = parse_rule(
        "CUT199-example-rule.toml", RULE.format(scope='{ groups = ["tmem"], arches = [100] }')
    )
    check_metrics("CUT199-example-rule.toml", rule)  # every TMEM member reports the columns
    tgv = family_named("sm100-tgv-gemm")
    assert RuleGroup.TMEM in tgv.joins and "sm100-tgv-gemm" in rule_members(rule)
    assert rule.applies_to.includes(tgv.name, tgv.joins, 100)
    assert not rule.applies_to.includes(tgv.name, tgv.joins, 120)
    sm120 = family_named("sm120-blockscaled-grouped")
    assert not rule.applies_to.includes(sm120.name, sm120.joins, 100)


def test_a_rule_that_still_lists_families_keeps_working() -> None:
    rule = parse_rule(
        "CUT199-example-rule.toml",
        RULE.format(scope='{ families = ["sm100-jit-gemm"], arches = [100] }'),
    )
    check_metrics("CUT199-example-rule.toml", rule)
    jit = family_named("sm100-jit-gemm")
    assert rule_members(rule) == ["sm100-jit-gemm"]
    assert rule.applies_to.includes(jit.name, frozenset(), 100)
