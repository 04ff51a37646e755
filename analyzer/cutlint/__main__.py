"""`python -m cutlint` and the `cutlint` command: a `check` whose answer is kept is replayed, and
`--version` answered, before click and the commands are imported; anything else is the command
group (cutlint.cli)."""

from __future__ import annotations

import os
import sys

NO_CACHE = "CUTLINT_NO_CACHE"
"""engine/tool.py's ENV_OFF, spelled here so that a run with the cache off imports neither."""
REPLAY_LOG = "CUTLINT_REPLAY_LOG"
"""engine/replay.py's ENV_LOG."""


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-V"]):
        from cutlint.about import version_text

        sys.stdout.write(version_text() + "\n")
        return
    if argv[:1] == ["check"] and not _cache_off(argv):
        _replay(argv)
    from cutlint.cli import main as group

    group()


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
