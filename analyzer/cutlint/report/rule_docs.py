"""A rule's documentation page, rendered from its rule file (docs/rules/ is generated from this)."""

from __future__ import annotations

from cutlint.engine.schema import Kind, Rule

BANNER = (
    "*Generated from `rules/` by `python -m cutlint.report.rule_docs docs/rules`; do not edit.*\n\n"
)


def applies_to(rule: Rule) -> str:
    """Where the rule holds: its rule groups (each a mechanism of the compiled code that the
    families joining it have) and the arches. Which families join a group is the registry's to
    say (`cutlint families --group G`), not the page's: a new family changes no rule page."""
    from cutlint.families.groups import GROUPS

    scope = rule.applies_to
    lines = [f"- rule group `{g.value}`: {GROUPS[g].what}" for g in scope.groups]
    if not lines:
        lines = ["- every family"]
    if scope.arches:
        lines.append("- on " + ", ".join(f"sm_{a}" for a in scope.arches))
    if scope.groups:
        wanted = " ".join(f"--group {g.value}" for g in scope.groups)
        lines.append(f"- the families that join: `cutlint families {wanted}`")
    return "\n".join(lines)


def _scope(rule: Rule) -> str:
    """The Applies-to section of a resource rule (the other kinds hold for every input)."""
    if rule.kind is not Kind.RESOURCE:
        return ""
    return f"\n## Applies to\n\n{applies_to(rule)}\n"


def render_rule(rule: Rule, banner: bool = True) -> str:
    """The rule's page: with the generated-file banner for docs/rules/, without it for
    `cutlint explain CUT101`."""
    doc = rule.doc
    refs = "\n".join(f"- {r}" for r in doc.references)
    return f"""# {rule.id} {rule.name}

{BANNER if banner else ""}| severity | fails at | failure class |
|---|---|---|
| {rule.severity.value} | {rule.fails_at.value} | {rule.failure_class} |

## What it predicts

{doc.what}
{_scope(rule)}
## Why it fails

{doc.why}

## Example

```cpp
{doc.example.strip()}
```

## How to fix

{doc.fix}

## References

{refs}
"""


def index(rules: tuple[Rule, ...]) -> str:
    rows = "\n".join(
        f"| [{r.id}]({r.id}.md) | {r.name} | {r.severity.value} | {r.fails_at.value} |"
        for r in rules
    )
    return f"""# Rules

*Generated from `rules/`; do not edit.*

| id | name | severity | fails at |
|---|---|---|---|
{rows}
"""


def pages() -> dict[str, str]:
    from cutlint.engine.loader import load_rules

    rules = load_rules()
    out = {f"{r.id}.md": render_rule(r) for r in rules}
    out["README.md"] = index(rules)
    return out


if __name__ == "__main__":
    import sys
    from pathlib import Path

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")
    target.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (target / name).write_text(text, encoding="utf-8")
