"""The fixture grammar's known-gap annotations (cutlint.testing.fixtures): `todo-expect` passes while
the rule is silent and fails, saying so, once it fires; `todo-ok` passes while the false positive
fires and fails once it is gone. Each case rewrites the annotations of a real fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.testing.fixtures import check_fixture, expected_rules, read_fixture

FIXTURE = (
    Path(__file__).parents[2] / "fixtures/cutlass2-gemm-grouped/CUT101-cutlass-library-sm120.cu"
)
EXPECT = '// expect: [CUT101 smem-exceeds-optin] "122,896"'
OK = "// ok: CUT101"


def rewritten(tmp_path: Path, old: str, new: str) -> Path:
    text = FIXTURE.read_text()
    assert text.count(old) == 1
    path = tmp_path / FIXTURE.name
    path.write_text(text.replace(old, new))
    return path


def test_the_fixture_passes_as_written() -> None:
    assert check_fixture(FIXTURE) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        # the rule fires where a gap was recorded: the gap is closed
        (EXPECT, EXPECT.replace("expect", "todo-expect"), "gap closed"),
        # a recorded false positive no longer fires
        (OK, "// todo-ok: CUT101", "false positive gone"),
    ],
    ids=["todo-expect-fires", "todo-ok-silent"],
)
def test_a_changed_gap_fails_and_says_what_to_write(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    problems = check_fixture(rewritten(tmp_path, old, new))
    assert len(problems) == 1 and problem in problems[0], problems


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # an open gap: the rule should fire on the kernel that fits, and does not
        (OK, '// todo-expect: [CUT101 smem-exceeds-optin] "no such text"'),
        # a known false positive: the finding fires and is accounted for
        (EXPECT, "// todo-ok: CUT101"),
    ],
    ids=["todo-expect-silent", "todo-ok-fires"],
)
def test_an_open_gap_passes(tmp_path: Path, old: str, new: str) -> None:
    assert check_fixture(rewritten(tmp_path, old, new)) == []


def test_a_todo_expect_is_no_fixture_for_its_rule(tmp_path: Path) -> None:
    path = rewritten(tmp_path, EXPECT, EXPECT.replace("expect", "todo-expect"))
    assert "CUT101" not in expected_rules([path])
    fixture = read_fixture(path.read_text())
    assert [str(f) for e in fixture.lines for f in e.todo_expect] == [
        "[CUT101 smem-exceeds-optin] '122,896'"
    ]
