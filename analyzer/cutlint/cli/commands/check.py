"""`cutlint check`: the files' instantiations judged, one report, the exit code.

Exit codes (docs/usage.md): 0 no finding at or above --fail-on; 1 such findings; 2 a usage error
or input that could not be read (CUT001, CUT002, CUT007) — every other file's result is still
printed."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from cutlint.cli.errors import printable, usage_error
from cutlint.cli.options import FAIL_ON, FORMATS, check_target, finite
from cutlint.exit_codes import FINDINGS, OK, USAGE

if TYPE_CHECKING:
    from cutlint import api
    from cutlint import config as config_file
    from cutlint.baseline import Baseline, BaselineEntry
    from cutlint.engine.replay import Recorder
    from cutlint.engine.selection import Selection
    from cutlint.records import Diagnostic, FileResult
    from cutlint.report import Ending, Stream
    from cutlint.report.style import Shown
    from cutlint.tu_records import TuSection


@dataclass(frozen=True)
class CheckFlags:
    """What `cutlint check`'s command line said, as click parsed it: one record, built once,
    handed down. The config file's values are merged later, where `api.CheckOptions` is built."""

    paths: tuple[Path, ...]
    arch: str | None
    fmt: str | None
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    exclude: tuple[str, ...]
    define: tuple[str, ...]
    undefine: tuple[str, ...]
    cutlass_version: str | None
    build_dir: Path | None
    compile_command: str | None
    site_packages: tuple[Path, ...]
    flashinfer_version: str | None
    fail_on: str | None
    exit_zero: bool
    quiet: bool
    tables: bool
    show_unjudged: bool
    output_file: Path | None
    statistics: bool
    color: str
    jobs: int | None
    binaries: tuple[Path, ...]
    parse_timeout: float
    config_path: Path | None
    no_config: bool
    no_cache: bool
    baseline_path: Path | None
    write_baseline: bool
    root: Path | None
    tu: bool = False
    """`--tu`: with -p, read the TUs whose sources hold CollectiveBuilder code with the TU front
    end (engine/tu_check.py) and report their kernels as `cutlint tu` does."""


@click.command(short_help="Check generated CUTLASS instantiation files or directories.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--arch",
    help="Target GPU: an arch (sm_120, 12.1) or a GPU name (rtx-5090, h200, b200, dgx-spark). "
    "Default: the GPU the build compiles each file for (its compile command), else its path.",
)
@click.option(
    "--format",
    "--output-format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format: text (tables), concise (path:line:col: RULE severity: message), json, "
    "sarif, github (Actions annotations).  [default: text]",
)
@click.option(
    "--select",
    multiple=True,
    help="Only these rules: ids, id prefixes (CUT1) or names, any case; repeatable or "
    "comma-separated. An unknown one is an error. Never changes a verdict, only what is shown.",
)
@click.option(
    "--ignore", multiple=True, help="Not these rules (ids, prefixes or names, as --select)."
)
@click.option(
    "--exclude",
    multiple=True,
    help="Skip files and directories found inside a directory that match this glob: a name "
    "(`*group1*`) or a path (`build/*`). Repeatable or comma-separated; a file named on the "
    "command line is always checked.",
)
@click.option(
    "-D", "define", multiple=True, help="Define a macro for #if evaluation (NAME or NAME=VALUE)."
)
@click.option(
    "-U",
    "undefine",
    multiple=True,
    help="Undefine a macro (default set: ENABLE_FP4, ENABLE_FP8, ENABLE_BF16).",
)
@click.option(
    "--cutlass-version",
    help="CUTLASS version (4.5.0) or a CUTLASS include dir with cutlass/version.h.",
)
@click.option(
    "-p",
    "--build-dir",
    "build_dir",
    type=click.Path(path_type=Path, exists=True),
    help="A build directory with compile_commands.json (or the file): each file's include "
    "path, defines and -gencode targets come from its command (as clang-tidy -p).",
)
@click.option(
    "--compile-command",
    help='The nvcc command line that builds the files ("nvcc -gencode ... -I ... -D ..."): '
    "its include path, defines and targets decide the context.",
)
@click.option(
    "--site-packages",
    "site_packages",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="The build's Python environment (a site-packages directory or a venv/prefix): the "
    "flashinfer-python / tensorrt_llm installed there say the release and CUTLASS (default: "
    "the environment cutlint runs in).",
)
@click.option(
    "--flashinfer-version",
    help="The FlashInfer release that wrote the files, where their build does not say.",
)
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default=None,
    help="Lowest severity that makes the exit code 1.  [default: error]",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when there are findings (input that cannot be read still exits 2).",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Only what fails: the instantiations with a finding and the summary (text); the "
    "findings without the summary (concise).",
)
@click.option(
    "--tables/--no-tables",
    default=True,
    show_default=True,
    help="Text: a table per file after the findings, what was not judged and the predicted "
    "failures (--no-tables: leave them out; -q never prints them).",
)
@click.option(
    "--show-unjudged",
    is_flag=True,
    help="Text: a block for every file whose instantiations are all inactive or not modeled "
    "(default: one line per reason, above the summary).",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of stdout.",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Instead of the report, count the findings per rule (text or json).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text and concise formats: auto is on for a terminal, off when NO_COLOR is "
    "set.",
)
@click.option(
    "--jobs",
    type=int,
    default=None,
    help="Parser worker processes (default: one per core but this process's, at least 1 and up "
    "to 8; 0 parses in this process, without --parse-timeout's limit).",
)
@click.option(
    "--binaries",
    multiple=True,
    type=click.Path(path_type=Path, exists=True),
    help="Built binaries (.so, .o, .cubin, or directories of them) of the checked sources: "
    "registers measured in their cubins replace the model's, per matched kernel.",
)
@click.option(
    "--parse-timeout",
    type=click.FloatRange(min=0.1, max=86_400.0),
    callback=lambda _ctx, _param, v: finite(v, "--parse-timeout"),
    default=20.0,
    show_default=True,
    envvar="CUTLINT_PARSE_TIMEOUT",
    help="Seconds one file may take in a parser worker before it is reported as CUT007.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read settings from this file (a pyproject.toml with [tool.cutlint], or a TOML file of those keys) instead of discovering pyproject.toml from the current directory upward.",
)
@click.option("--no-config", is_flag=True, help="Ignore every config file.")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the results kept in $CUTLINT_CACHE/check (also: CUTLINT_NO_CACHE=1).",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Leave out findings whose fingerprint is in this baseline file (they are counted as 'in baseline').",
)
@click.option(
    "--write-baseline",
    is_flag=True,
    help="Write the current findings' fingerprints to the --baseline file and exit 0.",
)
@click.option(
    "--root",
    "--sarif-root",
    "root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Project root that SARIF/annotation paths and fingerprints are relative to. Default: the config file's directory, else the current directory.",
)
@click.option(
    "--tu",
    is_flag=True,
    help="With -p: also read each TU whose sources hold CollectiveBuilder code with the TU "
    "front end (as `cutlint tu`; tens of seconds a TU the first time, then cached) and report "
    "its kernels. Without it, the summary counts those TUs.",
)
def check(**flags: Any) -> None:
    """Check generated CUTLASS instantiation files (or directories of them)."""
    run(CheckFlags(**flags))


def run(flags: CheckFlags) -> None:
    """The command; kept for replay (engine/replay.py) when `cutlint/__main__.py` found no
    entry for this command line and left a Recorder for it. The collector is settled for all
    of it (cutlint/heap.py), the replay's record at its end included."""
    from cutlint import heap

    with heap.settled():
        _recorded(flags)


def _recorded(flags: CheckFlags) -> None:
    recorder: Recorder | None = None
    if "cutlint.engine.replay" in sys.modules:  # cutlint/__main__.py's, for a run it may keep
        from cutlint.engine import replay

        recorder, replay.pending = replay.pending, None
    if recorder is None:
        _run(flags, None)
        return
    from cutlint import inputs

    try:
        with inputs.recording_stats() as seen:
            recorder.seen = seen
            _run(flags, recorder)
    finally:
        recorder.discard()  # a run that ended any other way than its report keeps nothing


def _run(flags: CheckFlags, recorder: Recorder | None) -> None:
    from cutlint.parse.defines import in_process

    if not in_process(flags.jobs):
        from cutlint.parse import pool

        pool.prestart()  # a parser process loads libclang while this one imports the rest
    from cutlint import api
    from cutlint import config as config_file

    check_target(flags.arch, flags.cutlass_version)
    if flags.config_path is not None and flags.no_config:
        usage_error("--config and --no-config exclude each other")
    try:
        loaded = config_file.find(flags.config_path, use_files=not flags.no_config)
    except config_file.ConfigError as e:
        usage_error(str(e))
    cfg = loaded.config
    define, undefine = flags.define, flags.undefine
    options = api.CheckOptions(
        arch=flags.arch or cfg.arch,
        cutlass_version=flags.cutlass_version or loaded.cutlass_version(),
        build_dir=str(flags.build_dir) if flags.build_dir is not None else None,
        compile_command=flags.compile_command,
        site_packages=tuple(str(p) for p in flags.site_packages),
        flashinfer_version=flags.flashinfer_version,
        defines=_defines(define, undefine, cfg),
        undefines=_undefines(define, undefine, cfg),
        selection=api.Selection(
            select=_selectors("--select", flags.select) or cfg.select or (),
            ignore=_selectors("--ignore", flags.ignore) or cfg.ignore or (),
        ),
        jobs=flags.jobs,
        parse_timeout=flags.parse_timeout,
        root=flags.root or loaded.directory or Path.cwd(),
        exclude=tuple(p for e in flags.exclude for p in e.split(",") if p) or loaded.exclude(),
        cache=_cache_wanted(flags.no_cache),
    )
    baseline_path = flags.baseline_path
    if baseline_path is None and cfg.baseline is not None:
        baseline_path = loaded.resolve(cfg.baseline)
    if flags.write_baseline and baseline_path is None:
        usage_error("--write-baseline needs --baseline FILE (or `baseline` in [tool.cutlint])")
    if baseline_path is not None:
        from cutlint import baseline as baseline_file
    accepted = None
    if baseline_path is not None and not flags.write_baseline:
        try:
            accepted = baseline_file.load(baseline_path)
        except baseline_file.BaselineError as e:
            usage_error(str(e))
    fmt = flags.fmt or cfg.format or "text"
    if flags.write_baseline:
        assert baseline_path is not None
        _write_baseline(flags.paths, options, flags, baseline_path)
        sys.exit(OK)  # and no replay: a replay would not write the file
    fail_on = flags.fail_on or cfg.fail_on or "error"
    accepting = None if accepted is None else Accepting(accepted, baseline_path)
    streamed = _streamed(flags.paths, options, flags, fmt, fail_on, recorder, accepting)
    final = OK if flags.exit_zero and streamed.code == FINDINGS else streamed.code
    if recorder is not None:
        _keep(recorder, flags, options, streamed.files, streamed.judged, final)
    sys.exit(final)


def _keep(
    recorder: Recorder,
    flags: CheckFlags,
    options: api.CheckOptions,
    files: Sequence[str],
    judged: Sequence[str],
    code: int,
) -> None:
    """Keep this run for replay (engine/replay.py) with everything its report depends on, or
    say why not: a run whose results are not all kept, or that reads what is not recorded.
    `files`: the checked files; `judged`: those with instantiations and the skipped ones."""
    from cutlint.binaries.measured import dependencies
    from cutlint.cache_dir import cache_dir
    from cutlint.inputs import signature

    if not options.cache:
        recorder.refuse("the cache is off")
    if options.build_dir is not None:
        recorder.refuse("-p: the translation units' part is not kept")
    if flags.binaries:
        recorder.refuse("--binaries")
    recorder.depend_on_tree(flags.paths, options, judged)
    found = dependencies(files, cache_dir())
    recorder.depend({os.path.abspath(p): signature(p) for p in found})
    recorder.store(code)


def _translation_units(
    checked: Sequence[str], options: api.CheckOptions, flags: CheckFlags
) -> TuSection | None:
    """With -p: the TUs whose kernels only the TU front end finds (of the `checked` files in
    which the scanner found no kernel, those with a compile command whose sources hold builder
    code), read (--tu) or counted; every format renders them (None: no database, or none of
    its TUs holds builder code)."""
    if options.build_dir is None:
        return None
    from cutlint.context.resolve import device_sm
    from cutlint.engine import tu_check
    from cutlint.parse.tu import FrontEndError

    found = tu_check.candidates(checked, options.build_dir)
    if not found:
        return None
    gpu = device_sm(options.arch) if options.arch else None
    try:
        return tu_check.section(
            found, options.build_dir, flags.tu, options.arch, gpu, use_cache=not flags.no_cache
        )
    except FrontEndError as e:
        usage_error(f"--tu: {e}")


def _selectors(option: str, values: Sequence[str]) -> tuple[str, ...]:
    """--select / --ignore values (commas split), each checked: a typo is a usage error."""
    from cutlint.engine.selection import UnknownSelector, check_selectors

    try:
        return check_selectors(values, option)
    except UnknownSelector as e:
        raise click.BadParameter(str(e).removeprefix(f"{option} "), param_hint=option) from None


def _defines(
    define: Sequence[str], undefine: Sequence[str], cfg: config_file.Config | None = None
) -> dict[str, str]:
    """The default set, then the config's `defines`/`undefines`, then -D/-U."""
    from cutlint.parse import DEFAULT_DEFINES

    out = dict(DEFAULT_DEFINES)
    if cfg is not None:
        out.update(cfg.defines or {})
        for u in cfg.undefines or ():
            out.pop(u, None)
    for d in define:
        name, _, value = d.partition("=")
        _valid_define(name, value or "1", f"-D {d!r}")
        out[name] = value or "1"
    for u in undefine:
        _valid_define(u, None, f"-U {u!r}")
        out.pop(u, None)
    return out


def _valid_define(name: str, value: str | None, given: str) -> None:
    """A -D/-U libclang can take: a macro name, a one-line value (a newline would add
    directives to libclang's predefines)."""
    from cutlint.parse.defines import define_problem

    why = define_problem(name, value)
    if why is not None:
        usage_error(f"{given}: {why}")


def _undefines(
    define: Sequence[str], undefine: Sequence[str], cfg: config_file.Config
) -> tuple[str, ...]:
    """The -U list for libclang: the config's undefines that no -D brings back, then -U."""
    redefined = {d.partition("=")[0] for d in define}
    kept = [u for u in cfg.undefines or () if u not in redefined]
    return tuple(dict.fromkeys([*kept, *undefine]))


def exit_code_of(diags: Sequence[Diagnostic], fail_on: str) -> int:
    """The exit code findings `diags` give (of a whole run, or of one file: a run's is the
    greatest of its files')."""
    from cutlint.engine.loader import rules_by_id
    from cutlint.engine.schema import FailsAt, Kind
    from cutlint.records import Severity

    rules = rules_by_id()
    if any(
        rules[d.rule].kind is Kind.INPUT and rules[d.rule].fails_at is FailsAt.PARSE for d in diags
    ):
        return USAGE
    if fail_on == "never":
        return OK
    threshold = Severity(fail_on).rank
    return FINDINGS if any(d.severity.rank >= threshold for d in diags) else OK


BASELINE_ENTRIES = "baseline entries"
"""`ToReport.fmt` of `--write-baseline`: each file's piece is its entries of the baseline."""


@dataclass(frozen=True)
class Accepting:
    """A baseline a streamed check applies file by file (`ToReport`), and where it was read."""

    baseline: Baseline
    path: Path | None


@dataclass(frozen=True)
class Streamed:
    """What a streamed run keeps of its results: its exit code and, for a replay's
    dependencies, the checked files' paths and those of the judged ones (with instantiations,
    or skipped)."""

    code: int
    files: list[str]
    judged: list[str]


def _streamed(
    paths: Sequence[Path],
    options: api.CheckOptions,
    flags: CheckFlags,
    fmt: str,
    fail_on: str,
    recorder: Recorder | None,
    accepting: Accepting | None = None,
) -> Streamed:
    """The run's report in `fmt` (or its `--statistics`), written as `api.results` hands each
    file's piece on (kept in a temporary file until the head, which comes first, is known), with
    measured registers as `binaries.measured.apply` adds them and without the findings a baseline
    accepts, as `baseline.apply` leaves them out; what is written is also kept by `recorder`,
    where there is one. A worker that judged a file makes its piece there (`ToReport`)."""
    import tempfile

    from cutlint.report import Ending
    from cutlint.report.style import Shown, style_for

    target = flags.output_file
    style = style_for(sys.stdout if target is None else None, flags.color)
    shown = Shown(style, flags.quiet, flags.show_unjudged, flags.tables, _root(options))
    kind = "statistics" if flags.statistics else fmt
    accepted = None if accepting is None else accepting.baseline.fingerprints
    to_report = _to_report(options, flags, fail_on, kind, shown, accepted)
    skipped: list[str] = []
    files: list[str] = []
    judged: list[str] = []
    code = OK
    baselined = 0
    kept = recorder.spool() if recorder is not None else None  # the replay keeps it whole
    with kept or tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        # made when the first file's piece comes: a format's modules import the families'
        # registry, which the parser worker's first batch need not wait for
        report: Stream | None = None
        for part in _parts(paths, options, to_report, flags.quiet, skipped):
            report = report or _stream(fmt, flags.statistics, spool, shown)
            report.add_piece(part.piece)
            files.append(part.path)
            if part.judged:
                judged.append(part.path)
            code = max(code, part.code)
            baselined += part.baselined
        report = report or _stream(fmt, flags.statistics, spool, shown)
        if accepting is not None:
            _warn_unmatched(accepting, baselined, recorder)
        read = set(judged)  # files whose kernels the scanner found: the TU front end adds none
        tus = _translation_units([f for f in files if f not in read], options, flags)
        if tus is not None and tus.fails():
            code = max(code, FINDINGS)
        end = Ending(skipped, baselined, tus)
        if target is None:
            report.finish(recorder.tee(sys.stdout) if recorder is not None else sys.stdout, end)
        else:
            _finish_into(report, target, files, end, recorder)
    return Streamed(code, files, [*judged, *skipped])


def _root(options: api.CheckOptions) -> Path:
    from cutlint.engine.stream import root_of

    return Path(root_of(options))


def _to_report(
    options: api.CheckOptions,
    flags: CheckFlags,
    fail_on: str,
    kind: str,
    shown: Shown,
    accepted: frozenset[str] | None = None,
) -> ToReport:
    from cutlint.cache_dir import cache_dir

    selection, binaries = options.selection, tuple(flags.binaries)
    return ToReport(
        selection, cache_dir(), binaries, shown.root or Path.cwd(), fail_on, kind, shown, accepted
    )


def _parts(
    paths: Sequence[Path],
    options: api.CheckOptions,
    to_report: ToReport,
    quiet: bool,
    skipped: list[str],
) -> Iterator[ReportPart]:
    """Each checked file's `ReportPart` in input order, as `api.results` hands the files on (a
    worker's made where it judged the file); the FlashInfer JIT sources left out go to
    `skipped`. A progress bar on stderr where one is wanted (report/progress.py)."""
    from cutlint import api
    from cutlint.engine.stream import Finished
    from cutlint.report.progress import Bar, wanted

    bar = Bar() if wanted(sys.stderr, quiet) else None
    try:
        for outcome in api.results(paths, options, progress=bar, finish=to_report):
            if isinstance(outcome, str):
                skipped.append(outcome)
                continue
            part = outcome.value if isinstance(outcome, Finished) else to_report(outcome)
            assert isinstance(part, ReportPart), f"a worker sent {type(part).__name__}"
            yield part
    finally:
        if bar is not None:
            bar.close()


def _write_baseline(
    paths: Sequence[Path], options: api.CheckOptions, flags: CheckFlags, target: Path
) -> None:
    """`--write-baseline`: the baseline of every current finding, gathered file by file (each
    file's entries made where it is judged: `baseline.entries`), sorted and written."""
    from cutlint import baseline as baseline_file
    from cutlint.report.style import Shown

    shown = Shown(root=_root(options))
    to_report = _to_report(options, flags, "never", BASELINE_ENTRIES, shown)
    entries: list[BaselineEntry] = []
    files: list[str] = []
    for part in _parts(paths, options, to_report, flags.quiet, []):
        assert isinstance(part.piece, tuple)
        entries.extend(part.piece)
        files.append(part.path)
    written = baseline_file.from_entries(entries)
    try:
        baseline_file.write(written, target, files)
    except baseline_file.BaselineError as e:
        usage_error(str(e))
    click.echo(
        printable(f"cutlint: wrote {len(written.findings)} finding(s) to {target}"), err=True
    )


def _stream(fmt: str, statistics: bool, spool: IO[str], shown: Shown) -> Stream:
    """The streamed report in `fmt`, or the run's `--statistics` (JSON with `--format json`,
    else text)."""
    if statistics:
        from cutlint.report.statistics import Stream as Counted

        return Counted("json" if fmt == "json" else "text", shown.style)
    from cutlint.report import stream

    return stream(fmt, spool, shown)


def _warn_unmatched(accepting: Accepting, baselined: int, recorder: Recorder | None) -> None:
    """baseline.unmatched_warning on stderr, and kept for a replay."""
    from cutlint import baseline as baseline_file

    unmatched = baseline_file.unmatched_warning(accepting.baseline, baselined, accepting.path)
    if unmatched is not None:
        click.echo(printable(unmatched), err=True)
        if recorder is not None:
            recorder.note(printable(unmatched))


def _finish_into(
    report: Stream,
    target: Path,
    files: list[str],
    end: Ending,
    recorder: Recorder | None,
) -> None:
    """`-o`: the streamed report written into `target`, which output_target checks now that the
    checked files are known (none of them is replaced) and replaces whole or not at all."""
    from cutlint import output_target

    if recorder is not None:
        recorder.target, recorder.checked = str(target), tuple(files)
    try:
        with output_target.opened(target, files) as out:
            report.finish(recorder.tee(out) if recorder is not None else out, end)
    except output_target.OutputError as e:
        usage_error(str(e))


@dataclass(frozen=True)
class ReportPart:
    """One file of a streamed check, as `ToReport` makes it."""

    path: str
    piece: object
    """Its piece of the report (report.pieces: a JSON `Piece`, a text or concise `Part`, its
    statistics' counts)."""
    judged: bool
    """Whether it has instantiations (a replay depends on the judged files)."""
    code: int
    """The exit code its findings give."""
    baselined: int = 0
    """How many of its findings the baseline accepted (left out of the piece)."""


class _Kept:
    """What one process's `ToReport` remembers across files: the binaries it measured with and
    the maker of the format's pieces, which remembers what the files share."""

    def __init__(self, to_report: ToReport) -> None:
        from cutlint.binaries.measured import Measurer
        from cutlint.report import pieces

        self.measurer = Measurer(to_report.selection, to_report.cache, to_report.binaries)
        self.piece: Callable[[FileResult], object]
        if to_report.fmt == BASELINE_ENTRIES:
            from cutlint.baseline import entries

            root = to_report.root
            self.piece = lambda f: tuple(entries(f, root))
        else:
            self.piece = pieces(to_report.fmt, to_report.shown)


@dataclass(frozen=True)
class ToReport:
    """A file's result made into its piece of the streamed report, where it was judged (the
    engine's `Finish`: a worker's piece comes made, which the parent neither decodes nor
    encodes again): the registers measured for its kernels (`binaries.measured`), its
    fingerprints set again where those changed it, the findings a baseline accepts left out
    (`baseline.apply_file`), its piece and its exit code."""

    selection: Selection
    cache: Path | None
    binaries: tuple[Path, ...]
    root: Path
    fail_on: str
    fmt: str
    """The format whose pieces it makes (report.pieces), `statistics`, or `BASELINE_ENTRIES`
    (`--write-baseline`: a file's piece is its baseline entries)."""
    shown: Shown
    accepted: frozenset[str] | None = None
    """The fingerprints of the baseline's findings, where the check has one."""
    kept: list[_Kept] = field(default_factory=list, compare=False, repr=False)
    """This process's `_Kept`, made on first use (it is not pickled: each worker makes its own)."""

    def __reduce__(
        self,
    ) -> tuple[
        type[ToReport],
        tuple[
            Selection, Path | None, tuple[Path, ...], Path, str, str, Shown, frozenset[str] | None
        ],
    ]:
        return (
            ToReport,
            (
                self.selection,
                self.cache,
                self.binaries,
                self.root,
                self.fail_on,
                self.fmt,
                self.shown,
                self.accepted,
            ),
        )

    def __call__(self, result: FileResult) -> ReportPart:
        from cutlint.engine.fingerprint import fingerprint_file

        if not self.kept:
            self.kept.append(_Kept(self))
        kept = self.kept[0]
        measured = kept.measurer.file(result)
        if measured is not result:
            measured = fingerprint_file(measured, self.root)
        left_out: tuple[Diagnostic, ...] = ()
        if self.accepted is not None:
            from cutlint.baseline import apply_file

            measured, left_out = apply_file(measured, self.accepted)
        diags = [d for r in measured.instantiations for d in r.diagnostics]
        return ReportPart(
            path=measured.path,
            piece=kept.piece(measured),
            judged=bool(measured.instantiations),
            code=exit_code_of([*measured.diagnostics, *diags], self.fail_on),
            baselined=len(left_out),
        )


def _cache_wanted(no_cache: bool) -> bool:
    from cutlint.engine.tool import enabled

    return enabled(no_cache)
