"""The fixture grammar: a `.cu` file under fixtures/ carries its own expectations, and passes only
when every finding and every annotation is matched (docs/testing.md).

    // cutlint-fixture: flashinfer=0.6.3 cutlass=4.2.1 arch=sm_120 targets=sm_120a
    // expect: [CUT101 smem-exceeds-optin] "102,400"     the next code line gets this finding
    // expect-file: [CUT006 unknown-release]              the file gets it (no line)
    // ok: CUT101                                         the next code line does not get it
    // model: smem.total == 102400                        a number of the resource model
    // verdict: fails initialize()                        the next code line's verdict
    // todo-expect: [CUT101 smem-exceeds-optin] "..."     a known gap: should fire, does not yet
    // todo-ok: CUT101                                    a known false positive: fires, should not

A `todo-` annotation keeps a known gap visible where the test is, as semgrep's `todoruleid:` and
`todook:` do: the fixture passes while the gap is open and fails, naming what to write instead,
once the rule's behaviour changes (a gap closed is a change someone should see).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cutlint import api
from cutlint.engine.judge import facts_for
from cutlint.families.registry import family_of
from cutlint.records import Diagnostic, FileResult, InstantiationResult

EXPECT = re.compile(r'//\s*(todo-)?expect(-file)?:\s*\[(CUT\d{3}) ([a-z0-9-]+)\](?:\s*"([^"]*)")?')
OK = re.compile(r"//\s*(todo-)?ok:\s*(CUT\d{3})")
MODEL = re.compile(r"//\s*model:\s*([a-z][a-z0-9_.]*)\s*==\s*(\S+)")
VERDICT = re.compile(r"//\s*verdict:\s*(.+?)\s*$")
HEADER = re.compile(r"//\s*cutlint-fixture:(.*)")
EXPECTED = re.compile(r"//\s*expect(?:-file)?:\s*\[(CUT\d{3})")
"""A rule a fixture expects (not a `todo-expect`): what counts as the rule's fixture."""


@dataclass(frozen=True)
class Finding:
    """An expected finding: `[rule name] "text"` (text: a part of its message or why)."""

    rule: str
    name: str
    text: str | None

    def matches(self, d: Diagnostic) -> bool:
        return (
            d.rule == self.rule
            and d.name == self.name
            and (self.text is None or self.text in f"{d.message} {d.why or ''}")
        )

    def __str__(self) -> str:
        return f"[{self.rule} {self.name}]" + (f" {self.text!r}" if self.text else "")


@dataclass
class Expectations:
    """The annotations above one code line (`line`: its number, 1-based)."""

    line: int
    expect: list[Finding] = field(default_factory=list)
    ok: list[str] = field(default_factory=list)
    todo_expect: list[Finding] = field(default_factory=list)
    todo_ok: list[str] = field(default_factory=list)
    model: list[tuple[str, str]] = field(default_factory=list)
    verdict: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.expect or self.ok or self.todo_expect or self.todo_ok or self.model or self.verdict
        )


@dataclass(frozen=True)
class Fixture:
    """A fixture's annotations, read."""

    header: dict[str, str]
    """The `cutlint-fixture:` header's key=value pairs."""
    file_level: list[Finding]
    todo_file_level: list[Finding]
    lines: list[Expectations]


def read_fixture(text: str) -> Fixture:
    header: dict[str, str] = {}
    file_level: list[Finding] = []
    todo_file_level: list[Finding] = []
    out: list[Expectations] = []
    pending = Expectations(0)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if m := HEADER.match(line):
            for kv in m[1].split():
                key, _, value = kv.partition("=")
                header[key] = value
        elif m := EXPECT.match(line):
            finding = Finding(m[3], m[4], m[5])
            if m[2]:
                (todo_file_level if m[1] else file_level).append(finding)
            else:
                (pending.todo_expect if m[1] else pending.expect).append(finding)
        elif m := OK.match(line):
            (pending.todo_ok if m[1] else pending.ok).append(m[2])
        elif m := MODEL.match(line):
            pending.model.append((m[1], m[2]))
        elif m := VERDICT.match(line):
            pending.verdict = m[1]
        elif line and not line.startswith("//") and pending:
            pending.line = n
            out.append(pending)
            pending = Expectations(0)
    return Fixture(header, file_level, todo_file_level, out)


def check_options(header: dict[str, str]) -> api.CheckOptions:
    """The check a real cache path would get, from the fixture's header."""
    return api.CheckOptions(
        arch=header.get("arch"),
        cutlass_version=header.get("cutlass"),
        flashinfer_version=header.get("flashinfer"),
        # `targets=sm_120a,sm_90a`: the build's code objects, as a compile command gives them
        compile_command=" ".join(
            f"-gencode arch=compute_{t[3:]},code={t}" for t in header["targets"].split(",")
        )
        if "targets" in header
        else None,
    )


def run_fixture(path: Path, fixture: Fixture) -> FileResult:
    result = api.check([path], check_options(fixture.header))
    assert len(result.files) == 1, [f.path for f in result.files]
    return result.files[0]


def _at(result: FileResult, line: int) -> InstantiationResult | None:
    return next((r for r in result.instantiations if r.instantiation.span.line == line), None)


class _Findings:
    """The file's findings not yet matched by an annotation."""

    def __init__(self, result: FileResult) -> None:
        self.left: list[Diagnostic] = [*result.diagnostics]
        self.left += [d for r in result.instantiations for d in r.diagnostics]

    def take(self, d: Diagnostic) -> None:
        self.left.remove(d)


def _check_line(e: Expectations, result: FileResult, left: _Findings) -> list[str]:
    problems: list[str] = []
    r = _at(result, e.line)
    diags = [d for d in result.diagnostics if d.line == e.line]
    diags += list(r.diagnostics) if r is not None else []
    seen = [(d.rule, d.message, d.why) for d in diags]
    for finding in e.expect:
        hit = [d for d in diags if finding.matches(d) and d in left.left]
        if hit:
            left.take(hit[0])
        else:
            problems.append(f"line {e.line}: expected {finding}; got {seen}")
    for finding in e.todo_expect:
        hit = [d for d in diags if finding.matches(d) and d in left.left]
        if hit:
            left.take(hit[0])
            problems.append(
                f"line {e.line}: gap closed: {finding} now fires; turn `todo-expect` into `expect`"
            )
    for rule in e.ok:
        if any(d.rule == rule for d in diags):
            problems.append(f"line {e.line}: {rule} fired but the fixture says ok")
    for rule in e.todo_ok:
        fired = [d for d in diags if d.rule == rule and d in left.left]
        if fired:
            for d in fired:
                left.take(d)
        else:
            problems.append(
                f"line {e.line}: false positive gone: {rule} no longer fires; "
                "turn `todo-ok` into `ok`"
            )
    if (e.model or e.verdict) and r is None:
        return [*problems, f"line {e.line}: no instantiation starts here"]
    if e.verdict and r is not None and r.verdict.value != e.verdict:
        problems.append(f"line {e.line}: verdict {r.verdict.value!r}, fixture says {e.verdict!r}")
    if e.model and r is not None:
        if r.resources is None or r.recipe is None:
            return [*problems, f"line {e.line}: not modeled: {r.not_modeled}"]
        facts = facts_for(family_of(r.recipe), r.recipe, r.resources)
        for metric, value in e.model:
            if str(facts[metric]) != value:
                problems.append(f"line {e.line}: {metric} = {facts[metric]}, fixture says {value}")
    return problems


def check_fixture(path: Path) -> list[str]:
    """What does not match between the fixture's annotations and cutlint's check of it (empty:
    the fixture passes)."""
    fixture = read_fixture(path.read_text())
    result = run_fixture(path, fixture)
    left = _Findings(result)
    problems: list[str] = []
    for finding in fixture.file_level:
        hit = [d for d in result.diagnostics if finding.matches(d) and d in left.left]
        if hit:
            left.take(hit[0])
        else:
            problems.append(f"file-level {finding} not found in {result.diagnostics}")
    for finding in fixture.todo_file_level:
        hit = [d for d in result.diagnostics if finding.matches(d) and d in left.left]
        if hit:
            left.take(hit[0])
            problems.append(
                f"gap closed: file-level {finding} now fires; turn it into `expect-file`"
            )
    for e in fixture.lines:
        problems += _check_line(e, result, left)
    if left.left:
        problems.append(
            f"findings the fixture does not expect: {[(d.rule, d.line) for d in left.left]}"
        )
    return problems


def expected_rules(paths: Sequence[Path]) -> set[str]:
    """Every rule some fixture of `paths` expects (a `todo-expect` does not count)."""
    return {m[1] for p in paths for m in EXPECTED.finditer(p.read_text())}
