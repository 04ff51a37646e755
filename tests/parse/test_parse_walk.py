"""Expanding paths: order, recursion, and every way a path can be unreadable (CUT001)."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from cutlint.parse import parse_paths
from cutlint.parse.walk import expand, natural_key

GOOD = (
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, EpilogueOpDefault,"
    " NONE, 128, 128, 128, 1, 1, 1, false, false, false, false);\n"
)


def _tree(root: Path) -> None:
    (root / "b").mkdir()
    (root / "a").mkdir()
    (root / "a" / "z.cu").write_text(GOOD)
    (root / "a" / "y.cu").write_text(GOOD)
    (root / "b" / "x.cu").write_text(GOOD)
    (root / "b" / "notes.txt").write_text("not a source")
    (root / "top.cu").write_text(GOOD)


def test_directories_give_sorted_cu_files(tmp_path: Path) -> None:
    _tree(tmp_path)
    entries = expand([tmp_path])
    assert [Path(e.path).relative_to(tmp_path).as_posix() for e in entries] == [
        "a/y.cu",
        "a/z.cu",
        "b/x.cu",
        "top.cu",
    ]
    assert all(e.problem is None for e in entries)


def test_a_file_named_on_the_command_line_is_parsed_whatever_its_name(tmp_path: Path) -> None:
    f = tmp_path / "kernels.inc"
    f.write_text(GOOD)
    assert [e.path for e in expand([f])] == [str(f)]


def test_same_file_twice_is_parsed_once(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "b" / "link.cu").symlink_to(tmp_path / "top.cu")
    paths = [e.path for e in expand([tmp_path / "top.cu", tmp_path])]
    assert paths.count(str(tmp_path / "top.cu")) == 1
    assert str(tmp_path / "b" / "link.cu") not in paths


def _problem(entries: list, path: Path) -> str:  # type: ignore[type-arg]
    hits = [e.problem for e in entries if e.path == str(path) and e.problem is not None]
    assert len(hits) == 1, entries
    assert hits[0].code == "CUT001" and hits[0].path == str(path)
    return str(hits[0].message)


def test_missing_path(tmp_path: Path) -> None:
    missing = tmp_path / "gone.cu"
    assert "does not exist" in _problem(expand([missing]), missing)


def test_directory_named_like_a_source(tmp_path: Path) -> None:
    d = tmp_path / "trap.cu"
    d.mkdir()
    (d / "inner.cu").write_text(GOOD)
    entries = expand([tmp_path])
    assert "is a directory" in _problem(entries, d)
    assert str(d / "inner.cu") in [e.path for e in entries if e.problem is None]
    named = expand([d])  # named on the command line: the same problem, and walked all the same
    assert "is a directory" in _problem(named, d)
    assert [e.path for e in named if e.problem is None] == [str(d / "inner.cu")]


def test_symlink_loops(tmp_path: Path) -> None:
    (tmp_path / "a.cu").symlink_to(tmp_path / "b.cu")
    (tmp_path / "b.cu").symlink_to(tmp_path / "a.cu")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path)
    entries = expand([tmp_path])
    assert "symlink loop" in _problem(entries, tmp_path / "a.cu")
    assert "symlink loop" in _problem(entries, tmp_path / "b.cu")
    assert "symlink loop" in _problem(entries, tmp_path / "sub" / "up")
    assert "symlink loop" in _problem(expand([tmp_path / "a.cu"]), tmp_path / "a.cu")


def test_dangling_symlink_and_fifo(tmp_path: Path) -> None:
    (tmp_path / "dangling.cu").symlink_to(tmp_path / "nowhere.cu")
    os.mkfifo(tmp_path / "pipe.cu")  # reading it would block the run forever
    entries = expand([tmp_path])
    assert "dangling" in _problem(entries, tmp_path / "dangling.cu")
    assert "not a regular file" in _problem(entries, tmp_path / "pipe.cu")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_permission_denied(tmp_path: Path) -> None:
    locked_dir = tmp_path / "locked"
    locked_dir.mkdir()
    locked_file = tmp_path / "secret.cu"
    locked_file.write_text(GOOD)
    locked_file.chmod(0)
    locked_dir.chmod(0)
    try:
        results = {r.path: r for r in parse_paths([tmp_path], jobs=1)}
        assert results[str(locked_file)].problems[0].code == "CUT001"
        assert results[str(locked_dir)].problems[0].code == "CUT001"
    finally:
        locked_dir.chmod(0o755)
        locked_file.chmod(0o644)


def test_unreadable_inputs_do_not_stop_the_run(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "loop.cu").symlink_to(tmp_path / "loop.cu")
    results = parse_paths([tmp_path / "missing", tmp_path], jobs=1)
    assert [r.problems[0].code for r in results if r.problems] == ["CUT001", "CUT001"]
    assert sum(len(r.instantiations) for r in results) == 4


def test_a_directory_without_sources_is_said_out_loud(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a source")
    [only] = parse_paths([tmp_path])
    assert [p.code for p in only.problems] == ["CUT006"]
    assert "no `*.cu` or header" in only.problems[0].message


def _runs(name: str) -> tuple[tuple[int, str], ...]:
    """The natural order as a tuple of runs: `(-1, text)` or `(number, "")`."""
    parts = re.split(r"([0-9]+)", name)
    return tuple((int(p), "") if i % 2 else (-1, p) for i, p in enumerate(parts) if p)


def test_the_natural_key_sorts_as_the_tuple_of_runs() -> None:
    """natural_key is one string that orders names as the tuple of their text and number runs:
    text before number, a shorter text before a longer one that starts the same, numbers by
    value (`01` ties with `1`, and the sort keeps their order)."""
    names = ["a1", "a01", "a", "ab", "a1b", "a10", "a2", "1", "01", "b", "a1a", "a1b2", "a1b10"]
    names += ["x0", "x00", "x", "x_", "x-1", "a\x01", "a5", "g²", "group10", "group9", "0007z"]
    rng = random.Random(7)
    names += ["".join(rng.choice("a0192_.") for _ in range(rng.randint(1, 9))) for _ in range(500)]
    for _ in range(5):
        rng.shuffle(names)
        assert sorted(names, key=natural_key) == sorted(names, key=_runs)


def test_a_symlinked_file_is_found_through_the_listing(tmp_path: Path) -> None:
    """Whether a name is a symlink comes from the directory's listing: a linked source is
    checked once, under the name that reaches it without a link."""
    (tmp_path / "real.cu").write_text(GOOD)
    (tmp_path / "alias.cu").symlink_to(tmp_path / "real.cu")
    [entry] = expand([tmp_path])
    assert entry.path.endswith("real.cu") and not entry.via_link
