"""The `cutlint` command. Thin: parse flags, call the API, pick a reporter, choose the exit code.

One module per command under `commands/` (as semgrep's `commands/`), each with a frozen record of
its flags; the flags every command shares are in `options.py`, the way a command says a usage
error in `errors.py`. This module holds only the group: `--version`, the table of commands, and
the last line of defence against an exception nothing foresaw.

Exit codes (docs/usage.md): 0 no finding at or above --fail-on; 1 such findings; 2 a usage error
or input that could not be read (CUT001, CUT002, CUT007) — every other file's result is still
printed.
"""

from __future__ import annotations

import gc
import importlib
import os
from typing import NamedTuple


def command_process() -> None:
    """What the command sets in its own process, once on import and again in each run of a
    daemon (whose environment is the caller's, set after this module was imported).

    A run of the command is short and its objects (imported modules, pydantic's schemas, the
    records) live until it ends: the cyclic collector's default gen-0 threshold of 700 makes it
    walk them hundreds of times during start-up alone. Collect rarely instead (as mypy does);
    reference counting still frees what is not cyclic.

    pydantic looks for plugins (the `pydantic` entry points: a scan of every installed
    package's metadata, 6-12 ms) when it builds its first validator. The command's records use
    none; in the command's own process only, so that a user who wants one sets
    PYDANTIC_DISABLE_PLUGINS= to anything else. The API leaves both to its caller."""
    gc.set_threshold(100_000, 50, 50)
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


command_process()

import click  # noqa: E402

from cutlint import exit_codes  # noqa: E402
from cutlint.cli.errors import internal_error  # noqa: E402
from cutlint.cli.options import CONTEXT, DEFAULT_TACTIC  # noqa: E402

# Everything else is imported where it is used: `cutlint --version` and `cutlint rules` should
# not pay for pydantic's records, and `check` not for networkx or the compiler probe. click
# itself (~25 ms) is the floor.


class Entry(NamedTuple):
    """A command of the group: the module that defines it, and the line `cutlint --help` shows
    for it (the command's own short_help; tests/cli/test_commands.py keeps the two equal), so
    that listing the commands imports none of them."""

    module: str
    attr: str
    short_help: str


COMMANDS: dict[str, Entry] = {
    "binaries": Entry(
        "cutlint.cli.commands.binaries",
        "binaries",
        "Registers, stack and occupancy read from built binaries.",
    ),
    "check": Entry(
        "cutlint.cli.commands.check",
        "check",
        "Check generated CUTLASS instantiation files or directories.",
    ),
    "daemon": Entry(
        "cutlint.cli.commands.daemon",
        "daemon",
        "Keep cutlint loaded in a process, so that checks start at once.",
    ),
    "explain": Entry(
        "cutlint.cli.commands.explain",
        "explain",
        "Explain a rule, a log's failures, or how a verdict was derived.",
    ),
    "families": Entry(
        "cutlint.cli.commands.families",
        "families",
        "List the kernel families in claim order, with their rule groups.",
    ),
    "generate": Entry(
        "cutlint.cli.commands.generate",
        "generate",
        "Write real inputs with a generator's own code.",
    ),
    "pregen": Entry(
        "cutlint.cli.commands.pregen",
        "pregen",
        "Validate a generator's operations before it writes any file.",
    ),
    "rules": Entry(
        "cutlint.cli.commands.rules",
        "rules",
        "List every rule: id, name, severity, when it fails.",
    ),
    "tu": Entry(
        "cutlint.cli.commands.tu",
        "tu",
        "List every CUTLASS kernel a translation unit instantiates, as its build compiles it.",
    ),
    "verify": Entry(
        "cutlint.cli.commands.verify",
        "verify_command",
        "Ask nvcc for the numbers the model predicts and compare them.",
    ),
}
"""Every command, by name. A command's module is imported only when the command runs (or its own
`--help` is asked for): `cutlint check` does not pay for importing the compiler probe."""


def command(name: str) -> click.Command:
    """The command called `name`, its module imported now."""
    entry = COMMANDS[name]
    found: click.Command = getattr(importlib.import_module(entry.module), entry.attr)
    return found


class _Group(click.Group):
    """The command group, over the table of commands above.

    It is also the last line of defence: an exception nothing foresaw becomes one line that says
    what failed and asks for a report, and exit code 2, never a traceback. (Each file's own
    failures are caught where the file is read and judged, so the other files' results are
    printed first.)"""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's own listing, from the table's short help, importing no command."""
        rows = [(name, COMMANDS[name].short_help) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            exit_codes.interrupted()
        except BrokenPipeError:
            exit_codes.pipe_closed()
        except Exception as err:  # the top-level handler: see the class docstring
            internal_error(err)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from cutlint.about import version_text

    click.echo(version_text())
    ctx.exit()


@click.group(cls=_Group, context_settings=CONTEXT)
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version, the CUTLASS versions modeled and the libclang used, and exit.",
)
def main() -> None:
    """Predict which CUTLASS tactics fail to launch, and why, before any GPU."""


def __getattr__(name: str) -> click.Command:
    """`cutlint.cli.check`, `cutlint.cli.explain`, ...: each command, imported when asked for."""
    if name in COMMANDS:
        return command(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "DEFAULT_TACTIC", "command", "main"]
