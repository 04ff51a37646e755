"""Every fixture under fixtures/parse/, parsed alone, matches its annotations exactly
(fixtures/parse/README.md): each instantiation and each CUT00x problem is annotated, and each
annotation is matched."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cutlint.parse import PROBLEM_NAMES, parse_source
from cutlint.parse.calls import MOE_MACRO
from cutlint.records import ParsedFile

PARSE_FIXTURES = Path(__file__).parents[2] / "fixtures" / "parse"
INSTANTIATION = re.compile(r"//\s*instantiation:\s*(active|inactive|unguarded)\s*$")
EXPECT = re.compile(r"//\s*expect(-file)?:\s*\[(CUT\d{3}) ([a-z0-9-]+)\]")


@dataclass
class Expected:
    """What the annotations say: (line, state) per instantiation, (line, code, name) per problem."""

    instantiations: list[tuple[int, str]] = field(default_factory=list)
    problems: list[tuple[int | None, str, str]] = field(default_factory=list)


def read(text: str) -> Expected:
    out = Expected()
    pending_states: list[str] = []
    pending_problems: list[tuple[str, str]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if m := INSTANTIATION.match(line):
            pending_states.append(m[1])
        elif (m := EXPECT.match(line)) and m[2] in PROBLEM_NAMES:  # parse problems only
            if m[1]:
                out.problems.append((None, m[2], m[3]))
            else:
                pending_problems.append((m[2], m[3]))
        elif line and not line.startswith("//"):
            if line.startswith(MOE_MACRO):
                # The macro's arch tag (CUT017) is checked by its producer's reader, not here.
                pending_problems = [p for p in pending_problems if p[0] != "CUT017"]
            out.instantiations += [(n, s) for s in pending_states]
            out.problems += [(n, code, name) for code, name in pending_problems]
            pending_states, pending_problems = [], []
    return out


def state(parsed: ParsedFile, index: int) -> tuple[int, str]:
    inst = parsed.instantiations[index]
    if inst.guard is None:
        return inst.span.line, "unguarded"
    return inst.span.line, "active" if inst.guard.active else "inactive"


FILES = sorted(PARSE_FIXTURES.rglob("*.cu"))


def test_there_are_fixtures() -> None:
    assert len(FILES) >= 8


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PARSE_FIXTURES)))
def test_fixture(path: Path) -> None:
    expected = read(path.read_text())
    parsed = parse_source(str(path), path.read_bytes())
    got_instantiations = [state(parsed, i) for i in range(len(parsed.instantiations))]
    got_problems = [(p.line, p.code, PROBLEM_NAMES[p.code]) for p in parsed.problems]
    assert sorted(got_instantiations) == sorted(expected.instantiations)
    assert sorted(got_problems, key=str) == sorted(expected.problems, key=str)
    for p in parsed.problems:
        assert p.path == str(path)
