"""`python -m cutlint` and the `cutlint` command: a `check` whose answer is kept is replayed, and
`--version` answered, before click and the commands are imported; anything else is the command
group (cutlint.cli)."""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-V"]):
        from cutlint.about import version_text

        sys.stdout.write(version_text() + "\n")
        return
    if argv[:1] == ["check"]:
        _replay(argv)
    from cutlint.cli import main as group

    group()


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
