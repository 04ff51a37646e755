"""What the commands share of their flags: the choices, the defaults, the options several
commands spell the same way, and the checks a flag's value passes before any work.

Only click and the standard library are imported here: `cutlint --help` builds on it."""

from __future__ import annotations

from collections.abc import Callable

import click

from cutlint.cli.errors import printable

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
FAIL_ON = ["error", "warning", "info", "note", "never"]
FORMATS = ("concise", "github", "json", "sarif", "text")
"""cutlint.report.FORMATS, written out so that building the command imports no reporter."""
DEFAULT_TACTIC = {"act": "e2m1", "weight": "e2m1", "out": "bf16"}
"""`explain`'s tactic types when not given: api.check_tactic's defaults (a test keeps them so)."""


text_or_json = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
"""`--format text|json`, for the commands whose report is a text or a JSON document."""

quiet_progress = click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
"""`-q`: for the commands that say on stderr what they download and write."""


def finite(value: float, option: str) -> float:
    """NaN passes click's FloatRange (every comparison with it is false)."""
    if value != value:
        raise click.BadParameter("nan is not a number of seconds", param_hint=option)
    return value


def check_target(arch: str | None, cutlass_version: str | None) -> None:
    """Reject bad --arch / --cutlass-version before any work, as a usage error."""
    if arch is not None:
        from cutlint.model.arch import arch_for, arches

        try:
            arch_for(arch)
        except KeyError:
            raise click.BadParameter(
                printable(f"unknown arch {arch[:40]!r}; known: {' '.join(arches())}"),
                param_hint="--arch",
            ) from None
    if cutlass_version is not None:
        from cutlint.cutlass.versions import check_cutlass_version

        try:
            check_cutlass_version(cutlass_version)
        except ValueError as e:
            raise click.BadParameter(printable(str(e)), param_hint="--cutlass-version") from None


def progress_say(quiet: bool) -> Callable[[str], None] | None:
    """The `cutlint: ...` progress lines on stderr, or none under -q."""
    return None if quiet else (lambda m: click.echo(f"cutlint: {m}", err=True))
