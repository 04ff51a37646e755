"""`cutlint families`: the registered kernel families in claim order, one line each, with the
rule groups each joins. The registry is the list (families/registry.py); no doc page keeps a copy,
so a new family is its folder and one registry line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class FamiliesFlags:
    """What `cutlint families`'s command line said."""

    fmt: str
    groups: tuple[str, ...]


@click.command(
    "families", short_help="List the kernel families in claim order, with their rule groups."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text: a table; json: one object per family.",
)
@click.option(
    "--group",
    "groups",
    multiple=True,
    metavar="GROUP",
    help="Only the families that join this rule group (smem-at-initialize, tmem, ...; "
    "a rule's page names its groups); repeatable.",
)
def families(**flags: Any) -> None:
    """List the kernel families in claim order: the first that claims a form owns it. Each with
    the rule groups it joins (a rule selects families by group and arch) and its doc page."""
    run(FamiliesFlags(**flags))


def run(flags: FamiliesFlags) -> None:
    import json

    from tabulate import tabulate

    from cutlint.families.base import family_data
    from cutlint.families.groups import RuleGroup
    from cutlint.families.registry import families as registered

    known = {g.value for g in RuleGroup}
    unknown = sorted(set(flags.groups) - known)
    if unknown:
        raise click.UsageError(f"unknown rule group(s) {unknown}; known: {sorted(known)}")
    rows = []
    for family in registered():
        joins = sorted(g.value for g in family.joins)
        if flags.groups and not set(joins) & set(flags.groups):
            continue
        data = family_data(family.package)
        rows.append({"family": family.name, "groups": joins, "title": data.title, "doc": data.doc})
    if flags.fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    table = [(r["family"], ", ".join(r["groups"]), r["doc"]) for r in rows]
    click.echo(tabulate(table, headers=("family", "rule groups", "page"), tablefmt="simple"))
