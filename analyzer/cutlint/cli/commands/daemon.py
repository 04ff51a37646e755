"""`cutlint daemon start|stop|status`: a resident process with cutlint loaded, so that a `cutlint
check` run from the same environment starts without importing anything (cutlint/daemon).

`start` runs the daemon as a new session, detached from the terminal, and returns once it
answers; it stops by itself after `--idle-timeout` seconds without a check. A daemon serves the
cutlint and the environment it was started from: after an upgrade, an edit of a model or rule,
or in another environment, checks run in their own process again, and `start` starts one for the
new state (the old one stops when idle). Its log is the socket's name with `.log`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from cutlint.cli.errors import usage_error
from cutlint.daemon import client

START_S = 120.0
"""How long `start` waits for the daemon to answer: it imports every module a check may use and
loads libclang (2-4 s on the 2-core machine; far longer on a cold file system)."""

_SERVE = (
    "import json, sys\n"
    "sys.path[:] = json.loads(sys.argv[1])\n"  # the starter's module path, for the same imports
    "from cutlint.__main__ import serve\n"
    "serve(sys.argv[2], sys.argv[3], float(sys.argv[4]))\n"
)


@dataclass(frozen=True)
class StartFlags:
    """What `cutlint daemon start`'s command line said."""

    idle_s: float


@dataclass(frozen=True)
class StatusFlags:
    """What `cutlint daemon status`'s command line said."""

    as_json: bool


@click.group("daemon", short_help="Keep cutlint loaded in a process, so that checks start at once.")
def daemon() -> None:
    """Keep cutlint loaded in a resident process, so that each `cutlint check` run from this
    environment starts at once (Unix only). CUTLINT_NO_DAEMON=1 makes a check run in its own
    process all the same."""


@daemon.command("start")
@click.option(
    "--idle-timeout",
    "idle_s",
    type=click.FloatRange(min=1.0),
    default=900.0,
    show_default=True,
    metavar="SECONDS",
    help="Stop after this long without a check.",
)
def start(**flags: Any) -> None:
    """Start the daemon for this cutlint and environment, unless it runs already."""
    run_start(StartFlags(**flags))


def run_start(flags: StartFlags) -> None:
    import socket

    from cutlint.daemon import address

    if not hasattr(os, "fork") or not hasattr(socket, "AF_UNIX"):
        usage_error("the daemon needs a Unix system (fork and Unix sockets)")
    refused = address.refused_options()
    if refused:
        usage_error(
            f"the daemon serves no check run with {' '.join(refused)} (what -X, -W and -u change "
            "happens at an interpreter's start); start it, and run checks, without them"
        )
    key = address.key()
    try:
        path = address.usable(address.socket_path(key))
    except address.AddressError as err:
        usage_error(str(err))
    running = client.ask(path, "status")
    if running is not None:
        click.echo(f"cutlint daemon: already running (pid {running['pid']}): {path}")
        return
    log = address.log_path(path)
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                *address.interpreter_options(),  # the same sys.flags: they are in the key
                "-c",
                _SERVE,
                json.dumps(sys.path),
                key,
                str(path),
                repr(flags.idle_s),
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        answer = client.ask(path, "status")
        if answer is not None and answer.get("key") == key:
            click.echo(
                f"cutlint daemon: started (pid {answer['pid']}; stops after {flags.idle_s:g} s "
                f"without a check): {path}"
            )
            return
        if process.poll() is not None:
            break
        time.sleep(0.05)
    else:
        process.kill()
    tail = _tail(log)
    usage_error(f"the daemon did not start (its log, {log}, ends: {tail})")


@dataclass(frozen=True)
class StopFlags:
    """What `cutlint daemon stop`'s command line said."""

    every: bool


@daemon.command("stop")
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Every daemon of this user in the daemon directory: those of an older cutlint or "
    "another environment too.",
)
def stop(**flags: Any) -> None:
    """Stop the daemon for this cutlint and environment, if it runs."""
    run_stop(StopFlags(**flags))


def run_stop(flags: StopFlags) -> None:
    from cutlint.daemon import address

    paths = [_path()]
    if flags.every:
        try:
            where = address.directory()
            paths = sorted(p for p in where.iterdir() if p.suffix == address.SUFFIX)
        except OSError:
            paths = []
    stopped = 0
    for path in paths:
        answer = client.ask(path, "stop")
        if answer is not None:
            stopped += 1
            click.echo(f"cutlint daemon: stopped (pid {answer['pid']}): {path}")
    if not stopped:
        click.echo(
            "cutlint daemon: none running"
            + ("" if flags.every else " for this cutlint and environment")
        )


@daemon.command("status")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def status(**flags: Any) -> None:
    """Whether the daemon for this cutlint and environment runs: its pid, socket, the checks it
    ran and how long it has been idle. Exit code 0 when it runs, 1 when not."""
    run_status(StatusFlags(**flags))


def run_status(flags: StatusFlags) -> None:
    path = _path()
    answer = client.ask(path, "status")
    if flags.as_json:
        click.echo(json.dumps({"running": answer is not None, **(answer or {})}, sort_keys=True))
    elif answer is None:
        click.echo(f"cutlint daemon: not running ({path})")
    else:
        click.echo(
            f"cutlint daemon: running (pid {answer['pid']}, {answer['served']} checks, idle "
            f"{answer['idle_for_s']:.0f} s of {answer['idle_s']:g} s): {answer['socket']}"
        )
    sys.exit(0 if answer is not None else 1)


def _path() -> Path:
    from cutlint.daemon import address

    return address.socket_path(address.key())


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(unreadable)"
    return lines[-1] if lines else "(empty)"
