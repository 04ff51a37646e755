"""`cutlint rules`: every rule, one line each."""

from __future__ import annotations

import click


@click.command("rules", short_help="List every rule: id, name, severity, when it fails.")
def rules() -> None:
    """List every rule: id, name, severity, when it fails."""
    from cutlint import rule_list
    from cutlint.engine.loader import checked_rules

    click.echo(rule_list.render(checked_rules()), nl=False)
