"""What the human formats count over a whole run, kept file by file: the findings by rule and
family that lead the text report, the files of unjudged instantiations folded into a line per
reason, the first predicted failures, and the summary's counts, versions, targets and contexts.

A `Tally` is made of one file where the file is judged (a parser worker, `cli check`'s
streamed run) and merged, in input order, into the run's: so a report of 100,000 kernels holds
these counts and no record (report/text.py `Stream`). Merging file by file gives what one pass
over the whole result gave: every count is a sum, every "first" the first file's, and a group's
sample messages are the first two distinct ones in finding order.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, ClassVar, TextIO

from cutlint.build_context import BuildContext
from cutlint.context.render import line as context_line
from cutlint.families.registry import family_of
from cutlint.records import CheckResult, FileResult, InstantiationResult, Severity, Verdict
from cutlint.report import NO_END, Ending, spool
from cutlint.report.escape import display_path
from cutlint.report.style import Shown

if TYPE_CHECKING:  # a check without -p reads no translation unit
    from cutlint.tu_records import TuSection

NOT_MODELED_RULE = "CUT010"
"""The not-modeled note: said under "not judged", with its reason, not among what to act on."""
ACT_ON = (Severity.ERROR, Severity.WARNING)
"""What `-q` keeps: the failures and the warnings."""
DISPATCH_RULES = frozenset({"CUT213"})
"""File-level findings that are no input problem: a dispatch on compute capability that leaves
the GPU without a kernel (engine/dispatch_gaps.py)."""
FAILING = (Verdict.FAILS_COMPILE, Verdict.FAILS_INITIALIZE, Verdict.FAILS_RUN)
MAX_FAILURE_LINES = 40
"""The predicted failures listed one a line above the summary; the rest are counted."""
UNJUDGED = (Verdict.NOT_MODELED, Verdict.INACTIVE, Verdict.NOT_FOR_GPU)
"""Verdicts with no model behind them."""
UNJUDGED_RULES = frozenset({"CUT010", "CUT021"})
"""The notes of unjudged instantiations: not modeled, not for this GPU."""


@dataclass
class Group:
    """The findings of one rule on one family's instantiations."""

    rule: str
    name: str
    severity: Severity
    family: str
    """The claiming family's name; "input" for a finding about a whole file."""
    count: int = 0
    first: tuple[str, int | None] = ("", None)
    """(path, line) of the first finding, to jump to."""
    messages: list[str] = field(default_factory=list)
    """The first two distinct messages, in finding order."""

    def take(self, message: str) -> None:
        if len(self.messages) < 2 and message not in self.messages:
            self.messages.append(message)


@dataclass
class Unjudged:
    """The instantiations of one unjudged verdict and reason in the folded files."""

    path: str
    """The first file's path (named when it is the only one)."""
    files: int
    count: int


@dataclass(frozen=True)
class Failure:
    """One predicted failure's line, unstyled."""

    where: str
    """`path:line`, the path as the text format prints it."""
    verdict: Verdict
    rules: str
    title: str


def unjudged_only(f: FileResult) -> bool:
    """A file with instantiations, none judged (inactive or not modeled), and nothing else to
    say: no input problem, and no finding but the not-modeled notes themselves."""
    return (
        bool(f.instantiations)
        and not f.diagnostics
        and all(r.verdict in UNJUDGED for r in f.instantiations)
        and all(d.rule in UNJUDGED_RULES for r in f.instantiations for d in r.diagnostics)
    )


def shown_unjudged(r: InstantiationResult) -> bool:
    """A not-modeled instantiation is shown with its CUT010 note; `--ignore CUT010` drops the
    note (engine.judge applies the selection), and with it the line, as in every format."""
    return r.verdict is Verdict.INACTIVE or any(d.rule in UNJUDGED_RULES for d in r.diagnostics)


def rules_of(r: InstantiationResult) -> str:
    """`CUT101,CUT203`: the rules of an instantiation's findings, each once, in order."""
    return ",".join(dict.fromkeys(d.rule for d in r.diagnostics)) or "-"


@dataclass
class Tally:
    """The counts of a run, or of one file (`add`), that the human formats print."""

    quiet: bool = False
    """`-q`: the findings by rule and family count the failures and warnings only."""
    files: int = 0
    instantiations: int = 0
    verdicts: dict[Verdict, int] = field(default_factory=dict)
    inputs: int = 0
    """File-level findings that are input problems (errors and warnings)."""
    input_notes: int = 0
    gaps: int = 0
    """Dispatches with no kernel for the GPU (CUT213)."""
    rules: dict[str, int] = field(default_factory=dict)
    """Findings per rule: what --statistics, JSON's findings_by_rule and SARIF count."""
    groups: dict[tuple[str, str], Group] = field(default_factory=dict)
    unjudged: dict[tuple[Verdict, str], Unjudged] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    failing: int = 0
    versions: set[tuple[str, str]] = field(default_factory=set)
    targets: set[tuple[str, str, int]] = field(default_factory=set)
    contexts: dict[str, int] = field(default_factory=dict)
    """Files per one-line context."""

    def add(
        self, f: FileResult, folded: bool, context: str | None, room: int = MAX_FAILURE_LINES
    ) -> None:
        """Count file `f`; `folded`: its unjudged instantiations are said in the folded lines;
        `context`: its context's one line (`context_line`, which `Lines` remembers); `room`:
        its failures get a line while this tally lists fewer (the others are counted)."""
        self.files += 1
        self.instantiations += len(f.instantiations)
        for d in f.diagnostics:
            self.rules[d.rule] = self.rules.get(d.rule, 0) + 1
            if d.rule in DISPATCH_RULES:
                self.gaps += 1
            elif d.severity in ACT_ON:
                self.inputs += 1
            else:
                self.input_notes += 1
            self._group(d.rule, d.name, d.severity, "input", d.path, d.line, d.message)
        display = None
        for r in f.instantiations:
            self.verdicts[r.verdict] = self.verdicts.get(r.verdict, 0) + 1
            family = r.recipe.family if r.recipe is not None else "unclaimed"
            for d in r.diagnostics:
                self.rules[d.rule] = self.rules.get(d.rule, 0) + 1
                self._group(d.rule, d.name, d.severity, family, d.path, d.line, d.message)
            if r.resources is not None:
                res = r.resources
                self.versions.add((res.cutlass_version, res.cutlass_version_origin))
                self.targets.add((res.arch.name, res.arch.parts, res.arch.smem_optin))
            if r.verdict in FAILING:
                self.failing += 1
                if len(self.failures) < room:
                    display = display or display_path(f.path)
                    title = family_of(r.recipe).title(r.recipe) if r.recipe and r.resources else ""
                    where = f"{display}:{r.instantiation.span.line}"
                    self.failures.append(Failure(where, r.verdict, rules_of(r), title))
        if folded:
            reasons: dict[tuple[Verdict, str], int] = {}
            for r in f.instantiations:
                if shown_unjudged(r):
                    key = (r.verdict, r.not_modeled.reason if r.not_modeled else "?")
                    reasons[key] = reasons.get(key, 0) + 1
            for key, n in reasons.items():
                self._unjudged(key, Unjudged(f.path, 1, n))
        if context is not None:
            self.contexts[context] = self.contexts.get(context, 0) + 1

    def _group(
        self,
        rule: str,
        name: str,
        severity: Severity,
        family: str,
        path: str,
        line: int | None,
        message: str,
    ) -> None:
        if rule == NOT_MODELED_RULE or (self.quiet and severity not in ACT_ON):
            return
        g = self.groups.get((rule, family))
        if g is None:
            g = self.groups[(rule, family)] = Group(
                rule, name, severity, family, first=(path, line)
            )
        g.count += 1
        g.take(message)

    def _unjudged(self, key: tuple[Verdict, str], u: Unjudged) -> None:
        held = self.unjudged.get(key)
        if held is None:
            self.unjudged[key] = Unjudged(u.path, u.files, u.count)
        else:
            held.files += u.files
            held.count += u.count

    def merge(self, other: Tally) -> None:
        """Add the counts of `other`, a tally of the files after this one's."""
        self.files += other.files
        self.instantiations += other.instantiations
        for verdict, n in other.verdicts.items():
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + n
        self.inputs += other.inputs
        self.input_notes += other.input_notes
        self.gaps += other.gaps
        for rule, n in other.rules.items():
            self.rules[rule] = self.rules.get(rule, 0) + n
        for key, g in other.groups.items():
            held = self.groups.get(key)
            if held is None:
                self.groups[key] = Group(
                    g.rule, g.name, g.severity, g.family, g.count, g.first, list(g.messages)
                )
                continue
            held.count += g.count
            for message in g.messages:
                held.take(message)
        for key, u in other.unjudged.items():
            self._unjudged(key, u)
        self.failures.extend(other.failures[: MAX_FAILURE_LINES - len(self.failures)])
        self.failing += other.failing
        self.versions |= other.versions
        self.targets |= other.targets
        for text, n in other.contexts.items():
            self.contexts[text] = self.contexts.get(text, 0) + n


class Lines:
    """The one-line text of each build context, made once per context record: the files of a
    directory share one (engine/run.py), so it is remembered by the record's id, holding the
    record so that the id is not reused."""

    def __init__(self) -> None:
        self._said: dict[int, tuple[BuildContext, str]] = {}

    def of(self, context: BuildContext | None) -> str | None:
        if context is None:
            return None
        held = self._said.get(id(context))
        if held is None:
            held = self._said[id(context)] = (context, context_line(context))
        return held[1]


@dataclass(frozen=True)
class Part:
    """One file's part of a human format's report, made where the file was judged (a parser
    worker, `cli check`'s streamed run): its text, and what it adds to the counts."""

    text: str | None
    """Escaped, as the report writes it: the text format's table and findings (None for a
    file folded into the lines per reason, or with no blocks shown: -q, --no-tables), the
    concise format's lines."""
    tally: Tally


class FileParts:
    """A human format's maker of each file's text and counts, in the process that judged the
    file (report/text.py and concise.py `Parts` say what a file's text is, and whether it is
    folded); it remembers the one-line text of the contexts files share."""

    def __init__(self, shown: Shown) -> None:
        self.shown = shown
        self._lines = Lines()
        self._listed = 0
        """Failure lines this process's parts have listed. The files a process judges come in
        input order, so once it has listed MAX_FAILURE_LINES, every later file's failures come
        after as many in the report: they are counted, and their lines (a family's title each)
        are not made."""

    def folded(self, f: FileResult) -> bool:
        """Whether `f` is said in the lines per unjudged reason, not in a text of its own."""
        return False

    def text(self, f: FileResult, folded: bool) -> str | None:
        """`f`'s text in the report, escaped; None for none."""
        raise NotImplementedError

    def add(self, f: FileResult, tally: Tally) -> str | None:
        """Count `f` into the run's `tally` and give its text."""
        folded = self.folded(f)
        tally.add(f, folded, self._lines.of(f.context))
        return self.text(f, folded)

    def part(self, f: FileResult) -> Part:
        """`f`'s text and counts, to be merged into the run's in another process (`Spooled`)."""
        folded = self.folded(f)
        tally = Tally(quiet=self.shown.quiet)
        tally.add(f, folded, self._lines.of(f.context), MAX_FAILURE_LINES - self._listed)
        self._listed += len(tally.failures)
        return Part(self.text(f, folded), tally)


class Spooled:
    """What a streamed human report keeps while the results come (report/text.py, concise.py
    and github.py `Stream`): each file's text written to `spool` (a temporary file), joined by
    `between`, and the run's tally; the format's `finish` writes the report from them at the
    end. The format's `parts_of` makes a file's text and counts of its result (`add`); a part
    made where the file was judged comes made (`add_piece`). `rendered` is the report of a
    whole result, by the same path."""

    between: ClassVar[str] = ""
    parts_of: ClassVar[type[FileParts]]

    def __init__(self, spool: IO[str], shown: Shown) -> None:
        self._spool = spool
        self._written = False
        self._parts = self.parts_of(shown)
        self.shown = shown
        self.tally = Tally(quiet=shown.quiet)

    @classmethod
    def rendered(cls, result: CheckResult, shown: Shown, tus: TuSection | None = None) -> str:
        """The report of a whole result, as a streamed run writes it."""
        stream = cls(io.StringIO(), shown)
        for f in result.files:
            stream.add(f)
        out = io.StringIO()
        stream.finish(out, Ending.of(result, tus))
        return out.getvalue()

    def finish(self, out: TextIO, end: Ending = NO_END) -> None:
        """Write the report to `out`: the format's head, the spooled texts (`copy_to`), its
        summary and what `end` says."""
        raise NotImplementedError

    def add(self, f: FileResult) -> None:
        self._write(self._parts.add(f, self.tally))

    def add_piece(self, p: Part) -> None:
        self._write(p.text)
        self.tally.merge(p.tally)

    def _write(self, text: str | None) -> None:
        if text:
            self._spool.write((self.between if self._written else "") + text)
            self._written = True

    @property
    def spooled(self) -> bool:
        """Whether any file had a text."""
        return self._written

    def copy_to(self, out: TextIO) -> None:
        """Write the files' texts to `out`."""
        spool.copy(self._spool, out)
