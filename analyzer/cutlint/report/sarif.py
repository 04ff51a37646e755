"""SARIF 2.1.0 output, in the subset GitHub code scanning reads (docs/ci.md).

One run; `tool.driver.rules` lists every rule (so a rule's `ruleIndex` does not depend on what a
run found), each with its page from docs/rules/ as `help`. A result's level comes from the rule's
severity, its `partialFingerprints` from engine/fingerprint.py, and its URI is relative to the
project root (`uriBaseId` SRCROOT, declared in `originalUriBaseIds`). A file-level finding has a
location without a region.

`check -p BUILD_DIR --tu`: a kernel the TU front end read with a finding (CUT211, CUT212) is a
result like any other, at the source line that chose it, its fingerprint's subject the kernel's
type as written on its dispatch path. A fitting kernel is no result (a fitting instantiation is
none either); every kernel, fitting or not, with its dispatch condition, numbers, verdict and
model, is in the run's `properties.translationUnits` (the JSON report's `translation_units`).

`check` streams it (report.STREAMED): each file's results are made as text where the file is
judged (`Parts`), and the `Stream` spools them and keeps the counts (report/tally.py `Tally`:
the files per context are the one run-level property the files give); `finish` writes the
document around them. `render` of a whole result is the same `Stream`.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from cutlint import __version__
from cutlint.context.render import ranked
from cutlint.engine.loader import load_rules
from cutlint.engine.schema import Rule
from cutlint.records import CheckResult, Diagnostic, FileResult, Severity, SourceSpan
from cutlint.report import NO_END, Ending
from cutlint.report.located import file_findings, path_of, root_of
from cutlint.report.rule_docs import render_rule
from cutlint.report.style import Shown
from cutlint.report.tally import FileParts, Spooled
from cutlint.report.tu import section_data, tu_diagnostics

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def _project_url() -> str:
    """`[project.urls] Homepage` of pyproject.toml, as the installed metadata carries it."""
    try:
        for entry in metadata.metadata("cutlint").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() == "homepage":
                return str(url).strip()
    except metadata.PackageNotFoundError:
        pass
    return "https://github.com/cutlint/cutlint"


PROJECT_URL = _project_url()
"""Where the tool and its rule pages live (`informationUri`, each rule's `helpUri`)."""
SRCROOT = "SRCROOT"
FINGERPRINT_KEY = "cutlint/v1"
"""cutlint's own name for the fingerprint. GitHub matches alerts on `primaryLocationLineHash`
only, so the same value goes there too: an alert then follows its instantiation when lines move."""

LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    Severity.NOTE: "note",
}
"""SARIF's `level` from cutlint's severity (SARIF has no `info`)."""
PROBLEM_SEVERITY = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "recommendation",
    Severity.NOTE: "recommendation",
}
"""GitHub's `problem.severity` rule property."""


def help_uri(rule: Rule) -> str:
    return f"{PROJECT_URL}/blob/main/docs/rules/{rule.id}.md"


def _first_sentence(text: str) -> str:
    """Up to the first `. ` outside a code span (`...`)."""
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch == "." and not in_code and text[i + 1 : i + 2] in (" ", ""):
            return text[: i + 1]
    return text


def _rule(rule: Rule) -> dict[str, Any]:
    doc = rule.doc
    tags = ["cutlass", f"fails-at-{rule.fails_at.value}"]
    if rule.failure_class != "-":
        tags.append(f"failure-class-{rule.failure_class}")
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": _first_sentence(doc.what)},
        "fullDescription": {"text": doc.what},
        "help": {
            "text": f"{doc.what}\n\nWhy it fails: {doc.why}\n\nHow to fix: {doc.fix}",
            "markdown": render_rule(rule),
        },
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": tags, "problem.severity": PROBLEM_SEVERITY[rule.severity]},
    }


def _artifact(d: Diagnostic, root: Path) -> dict[str, Any]:
    path = path_of(d, root)
    # Percent-encoded from the bytes on disk (os.fsencode): a file name that is not UTF-8 is
    # carried by Python as lone surrogates, which neither quote() nor as_uri() can encode.
    if Path(path).is_absolute():
        return {"uri": "file://" + quote(os.fsencode(path), safe="/")}
    return {"uri": quote(os.fsencode(path), safe="/"), "uriBaseId": SRCROOT}


def _region(d: Diagnostic, span: SourceSpan | None) -> dict[str, Any] | None:
    if d.line is None:
        return None
    region: dict[str, Any] = {"startLine": d.line}
    if span is not None and span.line == d.line:
        region["startColumn"] = span.column
        if span.end_line > span.line:
            region["endLine"] = span.end_line
    return region


def _result(
    d: Diagnostic, span: SourceSpan | None, index: dict[str, int], root: Path
) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact(d, root)}
    region = _region(d, span)
    if region is not None:
        physical["region"] = region
    out: dict[str, Any] = {
        "ruleId": d.rule,
        "ruleIndex": index[d.rule],
        "level": LEVEL[d.severity],
        "message": {"text": f"{d.message}\n{d.why}" if d.why else d.message},
        "locations": [{"physicalLocation": physical}],
    }
    if d.fingerprint is not None:
        out["partialFingerprints"] = {
            "primaryLocationLineHash": d.fingerprint,
            FINGERPRINT_KEY: d.fingerprint,
        }
    if d.fix:
        out["properties"] = {"fix": d.fix}
    return out


RESULT_INDENT = " " * 8
"""Where a result stands in `json.dumps(document, indent=2)`: an item of `runs[0].results`, at
the fourth level."""
NO_RESULTS = '\n      "results": []'
"""`results` in the indented document while it is empty: where the spooled results go. Only the
indent writes a newline (a string's is `\\n`), so this text is the key and nowhere else."""


def _result_text(d: Diagnostic, span: SourceSpan | None, index: dict[str, int], root: Path) -> str:
    """One result as the indented document writes it (`json.dumps(..., indent=2)`), less the
    `,` or newline between results."""
    text = json.dumps(_result(d, span, index, root), indent=2)
    return RESULT_INDENT + text.replace("\n", "\n" + RESULT_INDENT)


def _rule_index() -> dict[str, int]:
    """A rule's `ruleIndex`: its place in `tool.driver.rules`, which lists every rule."""
    return {r.id: i for i, r in enumerate(load_rules())}


def _document(
    root: Path, contexts: list[tuple[str, int]], baselined: int, tus: TuSection | None
) -> dict[str, Any]:
    """The SARIF document with no results: the run's head and its properties."""
    driver = {
        "name": "cutlint",
        "version": __version__,
        "informationUri": PROJECT_URL,
        "rules": [_rule(r) for r in load_rules()],
    }
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri().rstrip("/") + "/"}},
        "results": [],
        "properties": {
            "baselined": baselined,
            # Each distinct build context (cutlint.context), with the files it holds for.
            "contexts": [{"context": text, "files": n} for text, n in contexts],
            "translationUnits": section_data(tus),
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


class Parts(FileParts):
    """Each file's results, in line order, as the document writes them (`_result_text`)."""

    def __init__(self, shown: Shown) -> None:
        super().__init__(shown)
        self._index = _rule_index()

    def text(self, f: FileResult, folded: bool) -> str | None:
        root = self.shown.root or Path.cwd()
        return ",\n".join(_result_text(d, span, self._index, root) for d, span in file_findings(f))


class Stream(Spooled):
    """The SARIF of a check whose results are not held: each file's results are spooled as its
    result comes, and only the counts are kept (of which the document needs the files per
    context); `finish` writes the document, byte for byte `json.dumps(..., indent=2)` of the
    whole run."""

    between = ",\n"
    parts_of = Parts

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        """`end.tus` (`check -p BUILD_DIR --tu`): a TU kernel's finding is a result after the
        files', at the line that chose the kernel; every kernel is in `translationUnits`."""
        root, tus = self.shown.root or Path.cwd(), end.tus
        document = json.dumps(
            _document(root, ranked(self.tally.contexts), end.baselined, tus), indent=2
        )
        index = _rule_index()
        tu_results = [_result_text(d, None, index, root) for d, _ in tu_diagnostics(tus, root)]
        if not self.spooled and not tu_results:
            out.write(document + "\n")
            return
        head, found, tail = document.partition(NO_RESULTS)
        assert found, "the document has no empty results"
        out.write(head + '\n      "results": [\n')
        self.copy_to(out)
        if tu_results:
            out.write((",\n" if self.spooled else "") + ",\n".join(tu_results))
        out.write("\n      ]" + tail + "\n")


def render(result: CheckResult, tus: TuSection | None = None) -> str:
    return Stream.rendered(result, Shown(root=root_of(result)), tus)
