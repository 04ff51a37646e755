"""The baseline: findings a project has accepted, so that CI reports only new ones.

`cutlint check --write-baseline --baseline FILE` writes the current findings' fingerprints
(engine/fingerprint.py, the same ones SARIF's partialFingerprints carry); `--baseline FILE` then
leaves out every finding whose fingerprint is in it and counts them as "N in baseline". The file
is JSON with a version (docs/ci.md#baseline-file):

    {"version": 1, "tool": "cutlint", "fingerprint_version": 1,
     "findings": [{"fingerprint": "3f0c...:1", "rule": "CUT101", "name": "...", "path": "...",
                   "line": 53, "message": "..."}]}

Only `fingerprint` is matched; the other fields are there for the reviewer of the file. Input that
cannot be read (CUT001, CUT002, CUT007: exit code 2) is never baselined: it is not a finding
about the code but a run that did not see all of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from cutlint import inputs, output_target
from cutlint.engine.fingerprint import FINGERPRINT_VERSION, relative_path
from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import FailsAt, Kind
from cutlint.records import CheckResult, Diagnostic, FileResult

BASELINE_VERSION: Final = 1


class BaselineError(Exception):
    """The baseline file is missing, not JSON, or not in this version's format; names the file."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class BaselineEntry(_Strict):
    fingerprint: str
    rule: str
    name: str
    path: str
    line: int | None
    message: str


class Baseline(_Strict):
    version: Literal[1] = BASELINE_VERSION
    tool: Literal["cutlint"] = "cutlint"
    fingerprint_version: int = FINGERPRINT_VERSION
    findings: tuple[BaselineEntry, ...] = ()

    @property
    def fingerprints(self) -> frozenset[str]:
        return frozenset(e.fingerprint for e in self.findings)


def baselinable(d: Diagnostic) -> bool:
    """Everything but the input problems that make the run exit 2."""
    rule = rules_by_id()[d.rule]
    return not (rule.kind is Kind.INPUT and rule.fails_at is FailsAt.PARSE)


def _findings(f: FileResult) -> Iterator[Diagnostic]:
    yield from f.diagnostics
    for r in f.instantiations:
        yield from r.diagnostics


def from_result(result: CheckResult) -> Baseline:
    """The baseline that accepts every current finding (sorted, so that diffs stay small)."""
    root = Path(result.root) if result.root else Path.cwd()
    return from_entries([e for f in result.files for e in entries(f, root)])


def entries(f: FileResult, root: Path) -> Iterator[BaselineEntry]:
    """One file's entries of the baseline that accepts its findings (paths relative to
    `root`): what a streamed `--write-baseline` gathers file by file."""
    for d in _findings(f):
        if d.fingerprint is not None and baselinable(d):
            yield BaselineEntry(
                fingerprint=d.fingerprint,
                rule=d.rule,
                name=d.name,
                path=relative_path(d.path, root),
                line=d.line,
                message=d.message,
            )


def from_entries(found: Iterable[BaselineEntry]) -> Baseline:
    """The baseline of these entries, sorted, so that diffs stay small."""
    ordered = sorted(found, key=lambda e: (e.path, e.line or 0, e.rule, e.fingerprint))
    return Baseline(findings=tuple(ordered))


def dumps(baseline: Baseline) -> str:
    return json.dumps(baseline.model_dump(mode="json"), indent=2) + "\n"


def write(baseline: Baseline, path: Path, checked: Iterable[str] = ()) -> None:
    """Write the file whole or not at all, through the one safe output path (output_target): a
    temporary file beside it, renamed over it; never over one of the `checked` inputs, a FIFO, a
    device or a file in /proc. Raises BaselineError."""
    try:
        output_target.write_text(path, dumps(baseline), checked, what="the baseline")
    except output_target.OutputError as e:
        raise BaselineError(f"baseline {e}") from None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load(path: Path) -> Baseline:
    """Read a baseline through cutlint.inputs (a regular file, at most 64 MiB, numbers and
    nesting bounded). Raises BaselineError, one line that names the file."""
    try:
        data = inputs.load_json(path, inputs.BASELINE)
    except inputs.InputError as e:
        if e.why == "does not exist":
            raise BaselineError(
                f"baseline {path} does not exist; write it with `cutlint check --write-baseline`"
            ) from None
        raise BaselineError(f"baseline {path} cannot be read: {e.why}") from None
    if isinstance(data, dict) and data.get("version") != BASELINE_VERSION:
        raise BaselineError(
            f"baseline {path} has version {_short(data.get('version'))}; this cutlint reads "
            f"version {BASELINE_VERSION}: write it again with `cutlint check --write-baseline`"
        )
    try:
        baseline = Baseline.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
        raise BaselineError(
            f"baseline {path} is not a cutlint baseline: {where}: {first['msg']}{more}"
        ) from None
    if baseline.fingerprint_version != FINGERPRINT_VERSION:
        raise BaselineError(
            f"baseline {path} holds fingerprints of version {baseline.fingerprint_version}; this "
            f"cutlint computes version {FINGERPRINT_VERSION}: write it again with --write-baseline"
        )
    return baseline


def apply(result: CheckResult, baseline: Baseline) -> CheckResult:
    """`result` without the findings the baseline accepts; they move to `result.baselined`."""
    known = baseline.fingerprints
    suppressed: list[Diagnostic] = list(result.baselined)
    files = []
    for f in result.files:
        kept, left_out = apply_file(f, known)
        files.append(kept)
        suppressed.extend(left_out)
    return result.model_copy(update={"files": tuple(files), "baselined": tuple(suppressed)})


def apply_file(f: FileResult, known: frozenset[str]) -> tuple[FileResult, tuple[Diagnostic, ...]]:
    """One file without the findings whose fingerprints are `known` (a baseline's), and those
    findings: its instantiations' first, then its own. A streamed check applies it where the
    file is judged (cli/commands/check.py `ToReport`), so no whole result is needed."""
    suppressed: list[Diagnostic] = []

    def keep(diags: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
        kept = []
        for d in diags:
            if d.fingerprint in known and baselinable(d):
                suppressed.append(d)
            else:
                kept.append(d)
        return tuple(kept)

    rows = tuple(
        r.model_copy(update={"diagnostics": keep(r.diagnostics)}) for r in f.instantiations
    )
    kept = f.model_copy(update={"diagnostics": keep(f.diagnostics), "instantiations": rows})
    return kept, tuple(suppressed)


def unmatched_warning(baseline: Baseline, baselined: int, path: Path | None) -> str | None:
    """A warning when a baseline with entries accepts none of this run's findings (`baselined`:
    how many it accepted): its fingerprints hold paths relative to the root it was written from
    (--root, else the config's directory, else the working directory), so one written elsewhere
    matches nothing, and every finding it meant to accept comes back with nothing to say why
    (issue 25, item 20)."""
    if not baseline.findings or baselined:
        return None
    return (
        f"cutlint: warning: the baseline {path} matched 0 of its {len(baseline.findings):,} "
        "entries: fingerprints are made from paths relative to the root (--root, else the "
        "config file's directory, else the working directory); run from where it was written, "
        "or pass --root"
    )
