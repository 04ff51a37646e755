"""The command group lists its commands from a table, so that `cutlint --help` imports none of
them: the table must say what each command says of itself, and name every command there is."""

from __future__ import annotations

import dataclasses
import inspect
import pkgutil
import subprocess
import sys

import click
import pytest

from cutlint import cli
from cutlint.cli import COMMANDS, commands


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_says_what_the_command_says(name: str) -> None:
    command = cli.command(name)
    assert command.name == name
    assert command.short_help == COMMANDS[name].short_help


def test_every_command_module_is_in_the_table() -> None:
    modules = {m.name for m in pkgutil.iter_modules(commands.__path__)}
    assert modules == {entry.module.rsplit(".", 1)[1] for entry in COMMANDS.values()}


def _leaves(command: click.Command) -> list[click.Command]:
    if isinstance(command, click.Group):
        return [leaf for sub in command.commands.values() for leaf in _leaves(sub)]
    return [command]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_hands_down_one_record_of_its_flags(name: str) -> None:
    """Each command's callback takes its flags as one record whose fields are click's parameter
    names, so that no function below it takes more than a handful of arguments."""
    for leaf in _leaves(cli.command(name)):
        params = {p.name for p in leaf.params}
        if not params:
            continue
        assert leaf.callback is not None
        module = sys.modules[leaf.callback.__module__]
        records = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj)
            and dataclasses.is_dataclass(obj)
            and obj.__module__ == module.__name__
            and {f.name for f in dataclasses.fields(obj)} == params
        ]
        assert len(records) == 1, f"{leaf.name}: no record with the fields {sorted(params)}"
        assert records[0].__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_help_imports_no_command_module() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import contextlib, io, sys\nfrom cutlint.cli import main\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['--help'])\n"
            "print(' '.join(sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert not [m for m in done.stdout.split() if m.startswith("cutlint.cli.commands.")]
