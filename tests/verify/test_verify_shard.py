"""`cutlint verify --shard K/N`: N machines given the same input verify disjoint parts that
together are the whole; a malformed shard is a usage error, before any compile."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.records import (
    CheckResult,
    Diagnostic,
    FileResult,
    FormKind,
    Instantiation,
    InstantiationResult,
    Severity,
    SourceSpan,
    Verdict,
)
from cutlint.verify.run import Shard


def _file(path: str, instantiations: int = 1) -> FileResult:
    rows = tuple(
        InstantiationResult(
            instantiation=Instantiation(
                form=FormKind.MACRO_CALL,
                name="M",
                args=(str(i),),
                span=SourceSpan(path=path, line=i + 1, column=1, end_line=i + 1),
            ),
            resources=None,
            verdict=Verdict.NOT_MODELED,
        )
        for i in range(instantiations)
    )
    return FileResult(path=path, instantiations=rows)


def test_an_unreadable_file_is_in_exactly_one_shard() -> None:
    bad = FileResult(
        path="bad.cu",
        diagnostics=(
            Diagnostic(
                rule="CUT001",
                name="unreadable-input",
                severity=Severity.ERROR,
                path="bad.cu",
                line=None,
                message="cannot read",
            ),
        ),
    )
    checked = CheckResult(files=(bad, _file("a.cu"), _file("b.cu")))
    holders = [k for k in (1, 2) if any(f.diagnostics for f in Shard(k, 2).take(checked).files)]
    assert len(holders) == 1


def test_shards_are_disjoint_and_cover_every_file() -> None:
    files = [_file(f"f{i:02d}.cu") for i in range(11)] + [_file("empty.cu", 0)]
    checked = CheckResult(files=tuple(reversed(files)))
    parts = [Shard(k, 3).take(checked) for k in (1, 2, 3)]
    paths = [[f.path for f in p.files] for p in parts]
    assert sorted(p for part in paths for p in part) == [f"f{i:02d}.cu" for i in range(11)]
    assert [len(p) for p in paths] == [4, 4, 3]  # dealt in turn: sizes differ by one at most
    assert Shard(1, 1).take(checked).files == tuple(f for f in checked.files if f.instantiations)


@pytest.mark.parametrize(("text", "shard"), [("1/4", Shard(1, 4)), (" 2 / 2 ", Shard(2, 2))])
def test_parse(text: str, shard: Shard) -> None:
    assert Shard.parse(text) == shard


@pytest.mark.parametrize("text", ["0/4", "5/4", "1", "a/b", "1/0", "-1/2"])
def test_malformed_shard_is_a_usage_error(text: str) -> None:
    result = CliRunner().invoke(main, ["verify", "x.cu", "--shard", text])
    assert result.exit_code == 2
    assert "--shard" in result.stderr and "Traceback" not in result.stderr
