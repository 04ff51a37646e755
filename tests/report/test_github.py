"""GitHub Actions workflow annotations (`--format github`)."""

from __future__ import annotations

from pathlib import Path

from cutlint.records import CheckResult, Diagnostic, Severity, SourceSpan
from cutlint.report import github


def test_escaping_follows_the_actions_toolkit() -> None:
    assert github.escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    # % first, so that an escape is never escaped twice
    assert github.escape_property("%3A") == "%253A"


def _diag(**kw: object) -> Diagnostic:
    base: dict[str, object] = {
        "rule": "CUT101",
        "name": "smem-exceeds-optin",
        "severity": Severity.ERROR,
        "path": "/repo/gen/k.cu",
        "line": 53,
        "message": "needs 102,400 B; sm_120 allows 101,376 B",
        "why": "3 stages: 100% of it",
    }
    base.update(kw)
    return Diagnostic.model_validate(base)


def test_annotation_with_span_title_and_multiline_message() -> None:
    span = SourceSpan(path="/repo/gen/k.cu", line=53, column=9, end_line=56)
    line = github.annotation(_diag(), span, Path("/repo"))
    assert line == (
        "::error file=gen/k.cu,line=53,endLine=56,col=9,title=CUT101 smem-exceeds-optin"
        "::needs 102,400 B; sm_120 allows 101,376 B%0A3 stages: 100%25 of it"
    )


def test_file_level_annotation_has_no_line_and_properties_are_escaped() -> None:
    d = _diag(
        rule="CUT006",
        name="no-instantiations",
        severity=Severity.NOTE,
        line=None,
        path="/repo/odd,name:x.cu",
        message="is empty",
        why=None,
    )
    assert github.annotation(d, None, Path("/repo")) == (
        "::notice file=odd%2Cname%3Ax.cu,title=CUT006 no-instantiations::is empty"
    )


def test_levels() -> None:
    root = Path("/repo")
    assert github.annotation(_diag(severity=Severity.WARNING), None, root).startswith("::warning ")
    assert github.annotation(_diag(severity=Severity.INFO), None, root).startswith("::notice ")


def test_render_ends_with_the_summary_and_one_annotation_per_finding(
    shared_result: CheckResult,
) -> None:
    out = github.render(shared_result).splitlines()
    annotations = [line for line in out if line.startswith("::")]
    assert len(annotations) == len(shared_result.all_diagnostics())
    assert "instantiations in" in "\n".join(out[len(annotations) :])
    assert all("\n" not in a for a in annotations)
