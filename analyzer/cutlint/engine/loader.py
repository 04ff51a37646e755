"""Load and validate the rule files shipped in cutlint.rules (rules/<group>/CUTnnn-name.toml)."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from pydantic import ValidationError

from cutlint.engine.evaluate import TEMPLATE_FIELD, metrics_named
from cutlint.engine.facts import CORE_METRICS
from cutlint.engine.schema import Rule


class RuleFileError(Exception):
    """A rule file does not match the schema; names the file."""


def _rule_files() -> list[Traversable]:
    root = resources.files("cutlint.rules")
    files = [f for group in root.iterdir() if group.is_dir() for f in group.iterdir()]
    return sorted((f for f in files if f.name.endswith(".toml")), key=lambda f: f.name)


def parse_rule(name: str, text: str) -> Rule:
    try:
        rule = Rule.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        raise RuleFileError(f"{name}: {e}") from e
    if not name.startswith(f"{rule.id}-{rule.name}."):
        raise RuleFileError(f"{name}: file name must be {rule.id}-{rule.name}.toml")
    named = metrics_named(rule.when) if rule.when else []
    for template in (rule.message, rule.why or "", rule.fix or ""):
        named += [m[1] for m in TEMPLATE_FIELD.finditer(template)]
    known = vocabulary(rule.applies_to.families)
    unknown = sorted({m for m in named if m not in known})
    if unknown:
        scope = ", ".join(rule.applies_to.families) or "every family"
        raise RuleFileError(
            f"{name}: unknown metric(s) {unknown} for {scope}; known: {sorted(known)}"
        )
    return rule


def vocabulary(families: list[str]) -> dict[str, str]:
    """The metrics a rule scoped to `families` may name: the core metrics and those every one
    of the families provides (an unscoped rule may name only core metrics)."""
    from cutlint.families.registry import FAMILIES, family_named

    try:
        scoped = [family_named(f) for f in families]
    except KeyError as e:
        known = ", ".join(f.name for f in FAMILIES)
        raise RuleFileError(f"applies_to names an unknown family {e}; known: {known}") from e
    shared = dict(CORE_METRICS)
    if scoped:
        common = set.intersection(*(set(f.metrics) for f in scoped))
        shared.update({m: d for m, d in scoped[0].metrics.items() if m in common})
    return shared


@cache
def load_rules() -> tuple[Rule, ...]:
    rules = tuple(parse_rule(f.name, f.read_text(encoding="utf-8")) for f in _rule_files())
    ids = [r.id for r in rules]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise RuleFileError(f"duplicate rule ids: {dupes}")
    return rules


def rules_by_id() -> dict[str, Rule]:
    return {r.id: r for r in load_rules()}
