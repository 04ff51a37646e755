"""`python -m cutlint` and the `cutlint` command: a `check` is handed to a running daemon for this
cutlint and environment (cutlint/daemon), and one whose answer is kept is replayed, and
`--version` answered, before click and the commands are imported; anything else is the command
group (cutlint.cli). The process ends here (`_exit_now`), without Python's teardown of its heap.
In-process callers use the command group (cutlint.cli.main) or the API, never `main`.

The daemon's own process starts here too (`serve`): it imports what a check uses, then runs each
check handed to it through `main`, in a fork of itself."""

from __future__ import annotations

import atexit
import os
import sys

NO_CACHE = "CUTLINT_NO_CACHE"
"""engine/tool.py's ENV_OFF, spelled here so that a run with the cache off imports neither."""
REPLAY_LOG = "CUTLINT_REPLAY_LOG"
"""engine/replay.py's ENV_LOG."""


def main() -> None:
    """The process's entry point: runs the command line, then ends the process."""
    try:
        _command(sys.argv[1:])
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            _exit_now(done.code or 0)
        raise  # a message (Python's exit prints it), or one `_exit_now` could not end with
    _exit_now(0)


_served = False
"""Whether this process is a daemon's run of a check (`serve`): it runs the check itself."""


def _command(argv: list[str]) -> None:
    if argv in (["--version"], ["-V"]):
        from cutlint.about import version_text

        sys.stdout.write(version_text() + "\n")
        return
    if argv[:1] == ["check"] and not _served:
        _hand_over(argv)
    if argv[:1] == ["check"] and not _cache_off(argv):
        _replay(argv)
    from cutlint import cli

    if _served:  # the daemon imported it, before this run's environment was set
        cli.command_process()
    cli.main()


def _exit_now(code: int) -> None:
    """End the process with `code` as Python's own exit would, less its teardown: after a check,
    freeing every record, schema and module one by one (with collections in between) took
    50-100 ms on the 2-core machine (what the process leaves behind, the system frees at once).
    What an exit owes is done first: the atexit handlers (multiprocessing's waits for the parser
    workers), then stdout and stderr flushed. Where that is not all (a thread that an exit would
    wait for, an output that cannot be flushed), this returns, and Python's own exit runs."""
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t is not threading.main_thread() and not t.daemon and t.is_alive()
        for t in threading.enumerate()
    ):
        return
    atexit._run_exitfuncs()  # and forgets them: an exit that follows does not run them twice
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # as Python's exit reports it (a closed pipe: "Exception ignored", status 120)
    os._exit(code)


def _cache_off(argv: list[str]) -> bool:
    """Whether replay.answer would only say that the cache is off (`--no-cache`, or
    CUTLINT_NO_CACHE set): then engine/replay.py is not imported, and the command finds no
    Recorder (4 ms of a one-file `check --no-cache`, measured on the 2-core machine). Where
    CUTLINT_REPLAY_LOG asks for its line, it is imported to write it."""
    off = "--no-cache" in argv or bool(os.environ.get(NO_CACHE))
    return off and not os.environ.get(REPLAY_LOG)


def _hand_over(argv: list[str]) -> None:
    """Exit with the status of `argv` run by this cutlint's daemon, if one is running for this
    environment; else return (a listing of the daemon directory, when no daemon was started)."""
    from cutlint.daemon import address

    if not address.may_run():
        return
    from cutlint.daemon import client

    try:
        code = client.handed_over(argv)
    except KeyboardInterrupt:  # before the run began: this process's own, as at its start
        from cutlint import exit_codes

        exit_codes.interrupted()
    if code is not None:
        sys.exit(code)


PRELOADED = (
    "cutlint.cli.commands.check",
    "cutlint.api",
    "cutlint.binaries",
    "cutlint.context",
    "cutlint.cutlass",
    "cutlint.engine",
    "cutlint.families",
    "cutlint.model",
    "cutlint.parse",
    "cutlint.producers",
    "cutlint.report",
    "cutlint.runners",
    "cutlint.sources",
)
"""What a daemon imports before it serves: the check's command and every package a check may
import, each module of them (which families and formats a run needs depends on its files and
flags). Not the other commands' packages (verify, pregen, explain, testing)."""


def serve(key: str, path: str, idle_s: float) -> None:
    """The daemon's process (`cutlint daemon start` runs it): import what a check uses, build the
    records' validators and load libclang, then serve at `path` until idle for `idle_s` seconds.
    `key` is what the starter computed; a daemon whose own key differs (its environment is not
    the starter's) would answer for no one, and stops."""
    import gc
    import importlib
    import pkgutil
    from pathlib import Path

    from cutlint.daemon import address
    from cutlint.daemon.server import Server

    for name in PRELOADED:
        module = importlib.import_module(name)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), f"{name}."):
            try:
                importlib.import_module(info.name)
            except ImportError:
                pass  # an optional dependency: a run that needs the module imports it, as alone
    from cutlint.parse import libclang, pool

    pool.build_records()
    try:
        libclang.preload()
    except libclang.ParserFailure:
        pass  # the first file with an #if reports it, in its run
    own = address.key()
    if own != key:
        sys.stderr.write(f"cutlint daemon: this process's key {own} is not {key}; stopping\n")
        sys.exit(2)
    os.chdir("/")  # each run goes to its caller's; the daemon pins no directory of its starter's
    gc.collect()
    gc.freeze()  # the runs are forks: what is alive now is their start, never collected there
    Server(Path(path), key, idle_s, _run_served).serve()


def _run_served() -> None:
    """A daemon's run: `main` for the command line the client sent (server._become set it)."""
    global _served
    _served = True
    main()


def _replay(argv: list[str]) -> None:
    """Exit with the kept run's code if engine/replay.py replays `argv`; else return (the
    command then keeps its run)."""
    from cutlint import exit_codes
    from cutlint.engine import replay

    try:
        code = replay.answer(argv)
    except replay.WriteFailed as err:
        from cutlint.cli.errors import usage_error

        usage_error(str(err))
    except KeyboardInterrupt:
        exit_codes.interrupted()
    except BrokenPipeError:
        exit_codes.pipe_closed()
    except Exception as err:  # writing the kept report failed half-way: as the command says it
        from cutlint.cli.errors import internal_error

        internal_error(err)
    if code is not None:
        sys.exit(code)


if __name__ == "__main__":
    main()
