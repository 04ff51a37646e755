"""`python -m cutlint` and the `cutlint` command: a `check` whose answer is kept is replayed, and
`--version` answered, before click and the commands are imported; anything else is the command
group (cutlint.cli). The process ends here (`_exit_now`), without Python's teardown of its heap.
In-process callers use the command group (cutlint.cli.main) or the API, never `main`."""

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


def _command(argv: list[str]) -> None:
    if argv in (["--version"], ["-V"]):
        from cutlint.about import version_text

        sys.stdout.write(version_text() + "\n")
        return
    if argv[:1] == ["check"] and not _cache_off(argv):
        _replay(argv)
    from cutlint.cli import main as group

    group()


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
