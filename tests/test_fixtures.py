"""Every fixture under fixtures/ carries its expectations; a fixture passes only when every finding
and every annotation is matched (fixtures/README.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cutlint import api
from cutlint.engine.judge import facts_for
from cutlint.engine.loader import load_rules
from cutlint.families.registry import family_of
from cutlint.records import FileResult, InstantiationResult

FIXTURES = Path(__file__).parent.parent / "fixtures"
EXPECT = re.compile(r'//\s*expect(-file)?:\s*\[(CUT\d{3}) ([a-z0-9-]+)\](?:\s*"([^"]*)")?')
OK = re.compile(r"//\s*ok:\s*(CUT\d{3})")
MODEL = re.compile(r"//\s*model:\s*([a-z][a-z0-9_.]*)\s*==\s*(\S+)")
VERDICT = re.compile(r"//\s*verdict:\s*(.+?)\s*$")
HEADER = re.compile(r"//\s*cutlint-fixture:(.*)")


@dataclass
class Expectations:
    line: int
    expect: list[tuple[str, str, str | None]] = field(default_factory=list)
    ok: list[str] = field(default_factory=list)
    model: list[tuple[str, str]] = field(default_factory=list)
    verdict: str | None = None


def read_expectations(
    text: str,
) -> tuple[dict[str, str], list[tuple[str, str, str | None]], list[Expectations]]:
    header: dict[str, str] = {}
    file_level: list[tuple[str, str, str | None]] = []
    out: list[Expectations] = []
    pending = Expectations(0)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if m := HEADER.match(line):
            header.update(kv.split("=", 1) for kv in m[1].split())
        elif m := EXPECT.match(line):
            (file_level if m[1] else pending.expect).append((m[2], m[3], m[4]))
        elif m := OK.match(line):
            pending.ok.append(m[1])
        elif m := MODEL.match(line):
            pending.model.append((m[1], m[2]))
        elif m := VERDICT.match(line):
            pending.verdict = m[1]
        elif (
            line
            and not line.startswith("//")
            and (pending.expect or pending.ok or pending.model or pending.verdict)
        ):
            pending.line = n
            out.append(pending)
            pending = Expectations(0)
    return header, file_level, out


FIXTURE_FILES = sorted(
    p for p in FIXTURES.rglob("*.cu") if "tu" not in p.relative_to(FIXTURES).parts
)
TU_FIXTURE_FILES = sorted((FIXTURES / "tu").rglob("*.cu"))
"""Translation units `cutlint tu` reads with their flags (tests/parse/tu/test_tu_front.py), not
`check`: their expectations count for the rules, their checking is done there."""


def run(path: Path, header: dict[str, str]) -> FileResult:
    options = api.CheckOptions(
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
    result = api.check([path], options)
    assert len(result.files) == 1
    return result.files[0]


def _at(result: FileResult, line: int) -> InstantiationResult | None:
    return next((r for r in result.instantiations if r.instantiation.span.line == line), None)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture(path: Path) -> None:
    header, file_level, expectations = read_expectations(path.read_text())
    result = run(path, header)
    unmatched = [(d.rule, d.line) for d in result.diagnostics]
    unmatched += [(d.rule, d.line) for r in result.instantiations for d in r.diagnostics]
    for rule, name, text in file_level:
        hit = [
            d
            for d in result.diagnostics
            if d.rule == rule and d.name == name and (text is None or text in d.message)
        ]
        assert hit, f"file-level {rule} {name} {text!r} not found in {result.diagnostics}"
        unmatched.remove((hit[0].rule, hit[0].line))
    for e in expectations:
        diags = [d for d in result.diagnostics if d.line == e.line]
        r = _at(result, e.line)
        if r is not None:
            diags += list(r.diagnostics)
        for rule, name, text in e.expect:
            hit = [
                d
                for d in diags
                if d.rule == rule
                and d.name == name
                and (text is None or text in f"{d.message} {d.why or ''}")
            ]
            assert hit, (
                f"line {e.line}: expected [{rule} {name}] {text!r}; got {[(d.rule, d.message, d.why) for d in diags]}"
            )
            unmatched.remove((hit[0].rule, hit[0].line))
        for rule in e.ok:
            assert not [d for d in diags if d.rule == rule], (
                f"line {e.line}: {rule} fired but the fixture says ok"
            )
        if e.model or e.verdict:
            assert r is not None, f"line {e.line}: no instantiation starts here"
        if e.verdict:
            assert r is not None and r.verdict.value == e.verdict, (
                f"line {e.line}: verdict {r.verdict.value if r else None!r}"
            )
        if e.model:
            assert r is not None and r.resources is not None, (
                f"line {e.line}: not modeled: {r.not_modeled if r else None}"
            )
            assert r.recipe is not None
            facts = facts_for(family_of(r.recipe), r.recipe, r.resources)
            for metric, value in e.model:
                assert str(facts[metric]) == value, (
                    f"line {e.line}: {metric} = {facts[metric]}, fixture says {value}"
                )
    assert not unmatched, f"findings the fixture does not expect: {unmatched}"


EXERCISED_ELSEWHERE = {
    "CUT001",
    "CUT002",
    "CUT007",
    "CUT012",
    "CUT207",
    "CUT108",
    "CUT109",
    "CUT110",
    "CUT111",
}
"""Rules whose inputs are made at test time (tests/test_bad_input.py, tests/test_hostile_inputs.py):
symlink loops, binary files, libclang crashes and cutlint's own bugs (CUT012) cannot live as
annotated fixtures; CUT207 is a finding on a runner's tactics against a whole module, not on a
line (tests/producers/test_runner_tactics.py, tests/explain/test_explain_gemm_runner.py,
tests/pregen/test_pregen_flashinfer.py drop an instantiation from real rendered modules).
CUT108-CUT111 need registers and spills the source does not decide for any family modeled today
(every CUTLASS 3.x kernel fits its launch bounds; 2.x registers are ptxas's): they fire on
binaries compiled at test time (tests/binaries/test_judge.py) and on the model's register split
(tests/model/test_register_rules.py)."""


def test_every_rule_has_a_fixture() -> None:
    files = FIXTURE_FILES + TU_FIXTURE_FILES
    expected = {m[2] for p in files for m in EXPECT.finditer(p.read_text())}
    missing = {r.id for r in load_rules()} - expected - EXERCISED_ELSEWHERE
    assert not missing, f"rules without a fixture that expects them: {sorted(missing)}"
