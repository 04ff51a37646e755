"""Every command a doc shows in a `console` block is run and its shown output compared (issue 25,
item 21): a doc cannot drift from the tool. `python -m tests.tools.update_doc_snapshots`
rewrites them when the output legitimately changes (tests/tools/update_doc_snapshots.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _tool() -> ModuleType:
    path = Path(__file__).parent / "tools" / "update_doc_snapshots.py"
    spec = importlib.util.spec_from_file_location("update_doc_snapshots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


TOOL = _tool()
COMMANDS = [c for doc in TOOL.docs() for c in TOOL.commands(doc)]


def _id(c: object) -> str:
    return f"{c.doc.name}:{c.line}"  # type: ignore[attr-defined]


def test_the_docs_show_commands_to_run() -> None:
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize(
    "command",
    [pytest.param(c, marks=[pytest.mark.slow] if c.slow else []) for c in COMMANDS],
    ids=_id,
)
def test_a_doc_shows_what_the_command_prints(command: object) -> None:
    shown = command.shown  # type: ignore[attr-defined]
    slow = command.slow  # type: ignore[attr-defined]
    now = TOOL.run(command.command, TOOL.SLOW_TIMEOUT if slow else 600)  # type: ignore[attr-defined]
    assert TOOL.matches(shown, now), (
        f"{_id(command)}: the output changed; if that is right, run "
        "`python -m tests.tools.update_doc_snapshots` and read the diff"
    )


def test_an_ellipsis_stands_for_any_lines() -> None:
    now = "a\nb\nc\nd\n[exit 1]\n"
    assert TOOL.matches("a\n...\nd\n[exit 1]\n", now)
    assert TOOL.matches("...\nc\n...\n", now)
    assert TOOL.matches("│   ...\nb\nc\n...\n", now)
    assert not TOOL.matches("a\n...\nc\n", now)  # the end is anchored unless `...` ends it
    assert not TOOL.matches("b\n...\n", now)  # and the start
    assert not TOOL.matches("...\nc\nb\n...\n", now)  # in order


def test_an_update_keeps_the_ellipses() -> None:
    shown = "head\n...\nrow 19 fails\n...\n"
    now = "head\nx\nrow 20 fails\ny\n"
    assert TOOL.refit(shown, now) == "head\n...\nrow 20 fails\n...\n"
    assert TOOL.refit("a\nb\n", "c\n") == "c\n"


def test_volatile_parts_become_placeholders() -> None:
    assert TOOL.run("echo $PWD; echo 'took 12.5 s'") == "[ROOT]\ntook [T] s\n"
