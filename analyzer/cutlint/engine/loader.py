"""Load and validate the rule files shipped in cutlint.rules (rules/<group>/CUTnnn-name.toml)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from pydantic import TypeAdapter, ValidationError

from cutlint.engine.evaluate import TEMPLATE_FIELD, metrics_named
from cutlint.engine.facts import CORE_METRICS
from cutlint.engine.schema import Rule

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


class RuleFileError(Exception):
    """A rule file does not match the schema; names the file."""


def _rule_files() -> list[Traversable]:
    # importlib.resources only here, where the rules' compiled form is not kept (load_rules)
    from importlib import resources

    root = resources.files("cutlint.rules")
    files = [f for group in root.iterdir() if group.is_dir() for f in group.iterdir()]
    return sorted((f for f in files if f.name.endswith(".toml")), key=lambda f: f.name)


def parse_rule(name: str, text: str, metrics: bool = True) -> Rule:
    """A rule file, validated: its schema, its file name, the families it names, and (with
    `metrics`) every metric it reads against what those families provide."""
    import tomllib  # only where the rules' compiled form is not kept (load_rules)

    try:
        rule = Rule.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        raise RuleFileError(f"{name}: {e}") from e
    if not name.startswith(f"{rule.id}-{rule.name}."):
        raise RuleFileError(f"{name}: file name must be {rule.id}-{rule.name}.toml")
    from cutlint.families.registry import names

    unknown_families = [f for f in rule.applies_to.families if f not in names()]
    if unknown_families:
        raise RuleFileError(
            f"{name}: applies_to names an unknown family {unknown_families[0]!r}; "
            f"known: {', '.join(names())}"
        )
    if metrics:
        check_metrics(name, rule)
    return rule


def check_metrics(name: str, rule: Rule) -> None:
    """Every metric `rule` reads is one its families provide (this imports every family)."""
    named = metrics_named(rule.when) if rule.when else []
    for template in (rule.message, rule.why or "", rule.fix or ""):
        named += [m[1] for m in TEMPLATE_FIELD.finditer(template)]
    members = rule_members(rule)
    known = vocabulary(members)
    unknown = sorted({m for m in named if m not in known})
    if unknown:
        scope = ", ".join(members) or "every family"
        raise RuleFileError(
            f"{name}: unknown metric(s) {unknown} for {scope}; known: {sorted(known)}"
        )


def rule_members(rule: Rule) -> list[str]:
    """The families a rule speaks of: those that join one of its groups (and, while a rule file
    still lists families, those); empty for a rule that speaks of every family."""
    from cutlint.families.registry import families

    scope = rule.applies_to
    return [
        f.name
        for f in families()
        if f.name in scope.families or not f.joins.isdisjoint(scope.groups)
    ]


def vocabulary(families: list[str]) -> dict[str, str]:
    """The metrics a rule scoped to `families` may name: the core metrics and those every one
    of the families provides (an unscoped rule may name only core metrics)."""
    from cutlint.families.registry import family_named, names

    try:
        scoped = [family_named(f) for f in families]
    except KeyError as e:
        known = ", ".join(names())
        raise RuleFileError(f"applies_to names an unknown family {e}; known: {known}") from e
    shared = dict(CORE_METRICS)
    if scoped:
        common = set.intersection(*(set(f.metrics) for f in scoped))
        shared.update({m: d for m, d in scoped[0].metrics.items() if m in common})
    return shared


@cache
def load_rules() -> tuple[Rule, ...]:
    """The shipped rules. Their metrics are checked by `checked_rules()` (the tests, `cutlint
    rules`), not here: that imports every family a rule names, and `check` imports a family only
    when an instantiation needs it (families.registry). Read from their compiled form where the
    cache holds it (`compiled_rules`), else from the rule files."""
    kept = compiled_rules()
    if kept is not None:
        return kept
    rules = tuple(
        parse_rule(f.name, f.read_text(encoding="utf-8"), metrics=False) for f in _rule_files()
    )
    ids = [r.id for r in rules]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise RuleFileError(f"duplicate rule ids: {dupes}")
    _compile(rules)
    return rules


_RULES = TypeAdapter(tuple[Rule, ...])


def _compiled_path() -> Path | None:
    """Where the rules' compiled form is kept: one JSON file per cutlint (its tool key covers
    every rule file's bytes), None when the cache is off."""
    from cutlint.cache_dir import cache_dir
    from cutlint.engine.tool import enabled, tool_key

    return cache_dir() / "rules" / f"{tool_key()}.json" if enabled() else None


def compiled_rules() -> tuple[Rule, ...] | None:
    """The rules as the rule files said them, validated once and kept as one JSON file:
    reading 43 TOML files (tomllib is pure Python) and validating each was a sixth of a
    one-file check's start-up. A kept file that is corrupt or does not validate is ignored."""
    path = _compiled_path()
    if path is None:
        return None
    try:
        return _RULES.validate_json(path.read_bytes())
    except (OSError, ValueError):
        return None


def _compile(rules: tuple[Rule, ...]) -> None:
    path = _compiled_path()
    if path is not None:
        from cutlint import inputs

        inputs.write_atomically(path, _RULES.dump_json(rules, by_alias=True))


@cache
def checked_rules() -> tuple[Rule, ...]:
    """The shipped rules, each metric they read checked against their families."""
    rules = load_rules()
    for rule in rules:
        check_metrics(f"{rule.id}-{rule.name}.toml", rule)
    return rules


def rules_by_id() -> Mapping[str, Rule]:
    """The shipped rules by id (read-only: one table, asked for per judged instantiation)."""
    global _BY_ID
    rules = load_rules()
    if _BY_ID is None or _BY_ID[0] is not rules:
        # Keyed by the identity of `load_rules()`'s tuple, which the slot keeps alive: a new
        # tuple (a test clears the cache) gets a new table.
        _BY_ID = (rules, MappingProxyType({r.id: r for r in rules}))
    return _BY_ID[1]


_BY_ID: tuple[tuple[Rule, ...], Mapping[str, Rule]] | None = None
