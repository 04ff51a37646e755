"""What the line-oriented formats (SARIF, GitHub annotations) share: each finding with the span
of the instantiation it is about, and its path as the fingerprints see it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cutlint.engine.fingerprint import relative_path
from cutlint.records import CheckResult, Diagnostic, FileResult, SourceSpan


def findings(result: CheckResult) -> Iterator[tuple[Diagnostic, SourceSpan | None]]:
    """Every finding in report order (file by file, each file's in line order), with the span of
    its instantiation: a file-level finding at an instantiation's first line gets it."""
    for f in result.files:
        yield from file_findings(f)


def file_findings(f: FileResult) -> list[tuple[Diagnostic, SourceSpan | None]]:
    """One file's findings in line order, each with its instantiation's span (`findings`)."""
    starts = {r.instantiation.span.line: r.instantiation.span for r in f.instantiations}
    located: list[tuple[Diagnostic, SourceSpan | None]] = [
        (d, starts.get(d.line) if d.line is not None else None) for d in f.diagnostics
    ]
    located += [(d, r.instantiation.span) for r in f.instantiations for d in r.diagnostics]
    return sorted(located, key=lambda pair: pair[0].line or 0)


def root_of(result: CheckResult) -> Path:
    return Path(result.root) if result.root else Path.cwd()


def path_of(d: Diagnostic, root: Path) -> str:
    """Relative to the root (posix) when under it, else absolute: the fingerprint's path."""
    return relative_path(d.path, root)
