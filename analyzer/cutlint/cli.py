"""The `cutlint` command. Thin: parse flags, call the API, pick a reporter, choose the exit code.

Exit codes (docs/usage.md): 0 no finding at or above --fail-on; 1 such findings; 2 a usage error
or input that could not be read (CUT001, CUT002, CUT007) — every other file's result is still
printed.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn, TextIO

# A run of the command is short and its objects (imported modules, pydantic's schemas, the
# records) live until it ends: the cyclic collector's default gen-0 threshold of 700 makes it
# walk them hundreds of times during start-up alone. Collect rarely instead (as mypy does);
# reference counting still frees what is not cyclic. The API leaves its caller's settings alone.
gc.set_threshold(100_000, 50, 50)

# pydantic looks for plugins (the `pydantic` entry points: a scan of every installed package's
# metadata, 6-12 ms) when it builds its first validator. The command's records use none; in the
# command's own process only, so that a user who wants one sets PYDANTIC_DISABLE_PLUGINS= to
# anything else. The API leaves it to its caller.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import click  # noqa: E402

from cutlint import exit_codes  # noqa: E402

# Everything else is imported where it is used: `cutlint --version` and `cutlint rules` should
# not pay for pydantic's records, and `check` not for networkx or the compiler probe. click
# itself (~25 ms) is the floor.
if TYPE_CHECKING:
    from cutlint import api
    from cutlint import config as config_file
    from cutlint.engine.schema import Rule
    from cutlint.records import CheckResult, InstantiationResult


EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = exit_codes.OK, exit_codes.FINDINGS, exit_codes.USAGE
FAIL_ON = ["error", "warning", "info", "note", "never"]
FORMATS = ("concise", "github", "json", "sarif", "text")
"""cutlint.report.FORMATS, written out so that building the command imports no reporter."""
DEFAULT_TACTIC = {"act": "e2m1", "weight": "e2m1", "out": "bf16"}
"""`explain`'s tactic types when not given: api.check_tactic's defaults (a test keeps them so)."""
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


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
        _usage_error(f"{given}: {why}")


def _undefines(
    define: Sequence[str], undefine: Sequence[str], cfg: config_file.Config
) -> tuple[str, ...]:
    """The -U list for libclang: the config's undefines that no -D brings back, then -U."""
    redefined = {d.partition("=")[0] for d in define}
    kept = [u for u in cfg.undefines or () if u not in redefined]
    return tuple(dict.fromkeys([*kept, *undefine]))


def _usage_error(message: str) -> NoReturn:
    click.echo(f"cutlint: {_printable(message)}", err=True)
    sys.exit(EXIT_USAGE)


def exit_code(result: CheckResult, fail_on: str) -> int:
    from cutlint.engine.loader import rules_by_id
    from cutlint.engine.schema import FailsAt, Kind
    from cutlint.records import Severity

    rules = rules_by_id()
    diags = result.all_diagnostics()
    if any(
        rules[d.rule].kind is Kind.INPUT and rules[d.rule].fails_at is FailsAt.PARSE for d in diags
    ):
        return EXIT_USAGE
    if fail_on == "never":
        return EXIT_OK
    threshold = Severity(fail_on).rank
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in diags) else EXIT_OK


def _check_options(arch: str | None, cutlass_version: str | None) -> None:
    """Reject bad --arch / --cutlass-version before any work, as a usage error."""
    if arch is not None:
        from cutlint.model.arch import arch_for, arches

        try:
            arch_for(arch)
        except KeyError:
            raise click.BadParameter(
                _printable(f"unknown arch {arch[:40]!r}; known: {' '.join(arches())}"),
                param_hint="--arch",
            ) from None
    if cutlass_version is not None:
        from cutlint.cutlass.versions import check_cutlass_version

        try:
            check_cutlass_version(cutlass_version)
        except ValueError as e:
            raise click.BadParameter(_printable(str(e)), param_hint="--cutlass-version") from None


ISSUES = "https://github.com/cutlint/cutlint/issues"


def _printable(text: str) -> str:
    """Input text escaped for the terminal (report/escape.py), imported when first needed: the
    report package imports the records, which `--version` should not pay for."""
    from cutlint.report.escape import printable

    return printable(text)


def _finite(value: float, option: str) -> float:
    """NaN passes click's FloatRange (every comparison with it is false)."""
    if value != value:
        raise click.BadParameter("nan is not a number of seconds", param_hint=option)
    return value


def _is(path: str, test: str) -> bool:
    """Path(path).exists() / .is_file(), False for a name the OS refuses (too long, NUL)."""
    try:
        return bool(getattr(Path(path), test)())
    except (OSError, ValueError):
        return False


class _Group(click.Group):
    """The command group, with commands that live in other packages imported only when used:
    `cutlint check` should not pay for importing the compiler probe.

    It is also the last line of defence: an exception nothing foresaw becomes one line that says
    what failed and asks for a report, and exit code 2, never a traceback. (Each file's own
    failures are caught where the file is read and judged, so the other files' results are
    printed first.)"""

    LAZY: ClassVar[dict[str, tuple[str, str]]] = {
        "verify": ("cutlint.verify.cli", "verify_command"),
        "binaries": ("cutlint.binaries.cli", "binaries_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            exit_codes.interrupted()
        except BrokenPipeError:
            exit_codes.pipe_closed()
        except Exception as err:  # the top-level handler: see the class docstring
            _internal_error(err)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            module, attr = self.LAZY[name]
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, name)


def _internal_error(err: BaseException) -> NoReturn:
    where = ""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
    text = f"{type(err).__name__}: {err}"
    if len(text) > 300:
        text = text[:297] + "..."
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    click.echo(
        f"cutlint: internal error{where}: {_printable(text)} (a bug in cutlint: please report it at "
        f"{ISSUES} with the command line; CUTLINT_TRACEBACK=1 shows the traceback)",
        err=True,
    )
    if os.environ.get("CUTLINT_TRACEBACK"):
        import traceback

        traceback.print_exception(err)
    sys.exit(EXIT_USAGE)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from cutlint.about import version_text

    click.echo(version_text())
    ctx.exit()


@click.group(cls=_Group, context_settings=CONTEXT)
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version, the CUTLASS versions modeled and the libclang used, and exit.",
)
def main() -> None:
    """Predict which CUTLASS tactics fail to launch, and why, before any GPU."""


def _selectors(option: str, values: Sequence[str]) -> tuple[str, ...]:
    """--select / --ignore values (commas split), each checked: a typo is a usage error."""
    from cutlint.engine.selection import UnknownSelector, check_selectors

    try:
        return check_selectors(values, option)
    except UnknownSelector as e:
        raise click.BadParameter(str(e).removeprefix(f"{option} "), param_hint=option) from None


@main.command(short_help="Check generated CUTLASS instantiation files or directories.")
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
@click.option("--jobs", type=int, default=None, help="Parser worker processes (default: up to 2).")
@click.option(
    "--parse-timeout",
    type=click.FloatRange(min=0.1, max=86_400.0),
    callback=lambda _ctx, _param, v: _finite(v, "--parse-timeout"),
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
def check(
    paths: tuple[Path, ...],
    arch: str | None,
    fmt: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    define: tuple[str, ...],
    undefine: tuple[str, ...],
    cutlass_version: str | None,
    build_dir: Path | None,
    compile_command: str | None,
    flashinfer_version: str | None,
    fail_on: str | None,
    exit_zero: bool,
    quiet: bool,
    tables: bool,
    show_unjudged: bool,
    output_file: Path | None,
    statistics: bool,
    color: str,
    jobs: int | None,
    parse_timeout: float,
    config_path: Path | None,
    no_config: bool,
    no_cache: bool,
    baseline_path: Path | None,
    write_baseline: bool,
    root: Path | None,
) -> None:
    """Check generated CUTLASS instantiation files (or directories of them)."""
    if jobs != 0:
        from cutlint.parse import pool

        pool.prestart()  # a parser process loads libclang while this one imports the rest
    from cutlint import api
    from cutlint import config as config_file

    _check_options(arch, cutlass_version)
    if config_path is not None and no_config:
        _usage_error("--config and --no-config exclude each other")
    try:
        loaded = config_file.find(config_path, use_files=not no_config)
    except config_file.ConfigError as e:
        _usage_error(str(e))
    cfg = loaded.config
    options = api.CheckOptions(
        arch=arch or cfg.arch,
        cutlass_version=cutlass_version or loaded.cutlass_version(),
        build_dir=str(build_dir) if build_dir is not None else None,
        compile_command=compile_command,
        flashinfer_version=flashinfer_version,
        defines=_defines(define, undefine, cfg),
        undefines=_undefines(define, undefine, cfg),
        selection=api.Selection(
            select=_selectors("--select", select) or cfg.select or (),
            ignore=_selectors("--ignore", ignore) or cfg.ignore or (),
        ),
        jobs=jobs,
        parse_timeout=parse_timeout,
        root=root or loaded.directory or Path.cwd(),
        exclude=tuple(p for e in exclude for p in e.split(",") if p) or loaded.exclude(),
        cache=_cache_wanted(no_cache),
    )
    if baseline_path is None and cfg.baseline is not None:
        baseline_path = loaded.resolve(cfg.baseline)
    if write_baseline and baseline_path is None:
        _usage_error("--write-baseline needs --baseline FILE (or `baseline` in [tool.cutlint])")
    if baseline_path is not None:
        from cutlint import baseline as baseline_file
    accepted = None
    if baseline_path is not None and not write_baseline:
        try:
            accepted = baseline_file.load(baseline_path)
        except baseline_file.BaselineError as e:
            _usage_error(str(e))
    result = _checked(paths, options, quiet)
    if write_baseline:
        assert baseline_path is not None
        written = baseline_file.from_result(result)
        try:
            baseline_file.write(written, baseline_path, [f.path for f in result.files])
        except baseline_file.BaselineError as e:
            _usage_error(str(e))
        click.echo(
            _printable(f"cutlint: wrote {len(written.findings)} finding(s) to {baseline_path}"),
            err=True,
        )
        sys.exit(EXIT_OK)
    if accepted is not None:
        result = baseline_file.apply(result, accepted)
        unmatched = baseline_file.unmatched_warning(accepted, result, baseline_path)
        if unmatched is not None:
            click.echo(_printable(unmatched), err=True)
    _write(
        result,
        fmt or cfg.format or "text",
        quiet,
        statistics,
        color,
        output_file,
        show_unjudged,
        tables,
    )
    code = exit_code(result, fail_on or cfg.fail_on or "error")
    sys.exit(EXIT_OK if exit_zero and code == EXIT_FINDINGS else code)


def _checked(paths: Sequence[Path], options: api.CheckOptions, quiet: bool) -> CheckResult:
    """api.check, with a progress bar on stderr where one is wanted (report/progress.py)."""
    from cutlint import api
    from cutlint.report.progress import Bar, wanted

    bar = Bar() if wanted(sys.stderr, quiet) else None
    try:
        return api.check(paths, options, progress=bar)
    finally:
        if bar is not None:
            bar.close()


def _cache_wanted(no_cache: bool) -> bool:
    from cutlint.engine.cache import enabled

    return enabled(no_cache)


def _write(
    result: CheckResult,
    fmt: str,
    quiet: bool,
    statistics: bool,
    color: str,
    output_file: Path | None,
    show_unjudged: bool = False,
    tables: bool = True,
) -> None:
    """The report (or --statistics) on stdout or into --output-file, coloured where wanted."""
    from cutlint.report import write
    from cutlint.report.style import style_for

    def report(out: TextIO) -> None:
        style = style_for(out, color)
        if statistics:
            from cutlint.report import statistics as stats

            out.write(stats.render(result, "json" if fmt == "json" else "text", style))
        else:
            write(
                fmt,
                result,
                out,
                quiet=quiet,
                style=style,
                show_unjudged=show_unjudged,
                tables=tables,
            )

    if output_file is None:
        report(sys.stdout)
        return
    from cutlint import output_target

    checked = [f.path for f in result.files]
    try:
        with output_target.opened(output_file, checked) as out:
            report(out)
    except output_target.OutputError as e:
        _usage_error(str(e))


@main.command("rules", short_help="List every rule: id, name, severity, when it fails.")
def list_rules() -> None:
    """List every rule: id, name, severity, when it fails."""
    from cutlint import rule_list
    from cutlint.engine.loader import checked_rules

    click.echo(rule_list.render(checked_rules()), nl=False)


@main.command(short_help="Explain a rule, a log's failures, or how a verdict was derived.")
@click.argument("target", required=False)
@click.argument("tu_flags", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="A run's or build's log (FlashInfer, TensorRT-LLM, vLLM, SGLang, CUTLASS, CuTe DSL, "
    "PyTorch, xformers, TransformerEngine) to explain; --cache maps its lines to instantiations, "
    "--flashinfer-version reads dense GEMM runners' lines.",
)
@click.option(
    "--tu",
    "tu_inputs",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="With --log: what `cutlint tu` finds, to map a hand-written caller's line (vLLM's "
    "cutlass_gemm_caller.cuh:61) to the kernels it can launch: a saved `cutlint tu --format "
    "json` report, or a .cu file read with the flags after `--`. Repeatable.",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="The generated files the log's paths point at: a FlashInfer JIT cache directory (e.g. ~/.cache/flashinfer/0.6.3).",
)
@click.option(
    "--arch", help="Target arch for FILE:LINE or a tactic (default: the file's, else sm_120)."
)
@click.option(
    "--act",
    default=DEFAULT_TACTIC["act"],
    show_default=True,
    help="Tactic: activation (A) type: e2m1, e4m3, or a spelling such as SafeFP4.",
)
@click.option(
    "--weight", default=DEFAULT_TACTIC["weight"], show_default=True, help="Tactic: weight (B) type."
)
@click.option(
    "--out",
    "out_type",
    default=DEFAULT_TACTIC["out"],
    show_default=True,
    help="Tactic: output (D) type: f16, bf16, half, __nv_bfloat16.",
)
@click.option("--tile", help="Tactic: CTA tile MxNxK in elements, e.g. 256x128x128.")
@click.option("--cluster", default="1x1x1", show_default=True, help="Tactic: cluster MxNxK.")
@click.option(
    "--fusion",
    type=click.Choice(["NONE", "FINALIZE"], case_sensitive=False),
    default="NONE",
    show_default=True,
    help="Tactic: epilogue fusion.",
)
@click.option("--swap-ab/--no-swap-ab", default=False, show_default=True, help="Tactic: SwapAB.")
@click.option("--cutlass-version", help="CUTLASS version (4.5.0) or a CUTLASS include dir.")
@click.option(
    "--flashinfer-version",
    help="Tactic, FILE:LINE or --log: the FlashInfer release (its CUTLASS, dispatch table and "
    "runners' tactic lists; for --log, default: the --cache's).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--no-sources", is_flag=True, help="Derivation tree without the source line under each node."
)
def explain(
    target: str | None,
    tu_flags: tuple[str, ...],
    log_path: Path | None,
    tu_inputs: tuple[Path, ...],
    cache_dir: Path | None,
    arch: str | None,
    act: str,
    weight: str,
    out_type: str,
    tile: str | None,
    cluster: str,
    fusion: str,
    swap_ab: bool,
    cutlass_version: str | None,
    flashinfer_version: str | None,
    fmt: str,
    no_sources: bool,
) -> None:
    """Explain a rule (CUT101, smem-exceeds-optin), a log's failures (--log FILE --cache DIR),
    or how a verdict was derived: FILE:LINE, or a tactic (--tile MxNxK --act ... --fusion ...).

    Exit codes: 0 nothing fails (a rule page; a log with no failure; a tactic that fits);
    1 the log holds failures (a line with an error word no grammar reads counts: "not
    recognized"), or the tactic fails; 2 usage error or unreadable input."""
    from cutlint import api

    _check_options(arch, cutlass_version)
    if log_path is not None:
        # --log alone reads every framework's lines (vLLM, SGLang, CUTLASS, ...); --cache and
        # --flashinfer-version add what a FlashInfer line needs (its instantiation, its tactics)
        # `--tu FILE.cu -- FLAGS`: after `--` every word is positional, TARGET's slot included
        flags = ((target,) if target is not None else ()) + tu_flags
        if flags and not any(p.suffix != ".json" for p in tu_inputs):
            _usage_error("words after --log FILE are a --tu FILE.cu's flags; no .cu was given")
        sys.exit(_explain_log(log_path, cache_dir, fmt, flashinfer_version, arch, tu_inputs, flags))
    if tu_inputs or tu_flags:
        _usage_error("--tu and compile flags go with --log FILE")
    if target is not None:
        from cutlint.report.rule_docs import render_rule

        found = _rule_named(target)
        if found is not None:
            click.echo(render_rule(found, banner=False))
            return
        path, line = _file_line(target)
        options = api.CheckOptions(
            arch=arch, cutlass_version=cutlass_version, flashinfer_version=flashinfer_version
        )
        result = api.instantiation_at(path, line, options)
        if result is None:
            _usage_error(_no_instantiation_at(path, line, options))
        sys.exit(_explain_result(result, fmt, not no_sources))
    if tile is None:
        raise click.UsageError(
            "give a rule, FILE:LINE, --log FILE --cache DIR, or a tactic (--tile MxNxK ...)"
        )
    spec = _tactic_spec(
        arch,
        act,
        weight,
        out_type,
        tile,
        cluster,
        fusion,
        swap_ab,
        cutlass_version,
        flashinfer_version,
    )
    sys.exit(_explain_result(api.validate_tactics([spec])[0], fmt, not no_sources))


@main.group(short_help="Write real inputs with a generator's own code.")
def generate() -> None:
    """Write real inputs with a generator's own code."""


@generate.command("flashinfer", short_help="Write a real FlashInfer kernel cache; print its root.")
@click.argument("version")
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Base directory; files go under <out>/flashinfer/<version>/<archdir>/generated/.  "
    "[default: $CUTLINT_CACHE/generated, i.e. ~/.cache/cutlint/generated]",
)
@click.option(
    "--sm",
    type=click.IntRange(min=1),
    default=120,
    show_default=True,
    help="The device: files go where FlashInfer's JIT writes them on it, with the fused-MoE "
    "module it builds there (a Jetson Thor, 110, builds the SM100 one: "
    "110a/generated/cutlass_instantiations/100).",
)
@click.option(
    "--cuda",
    default="13.0",
    show_default=True,
    help="The CUDA version the JIT runs with: it decides the arch directory the release writes "
    "(FlashInfer 0.7.x: 120f on CUDA >= 12.9, 120a on 12.8; 0.6.x: 120a).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option(
    "--jit-gemm",
    is_flag=True,
    help="Also render the GEMM modules the JIT writes for --sm from the wheel's jinja templates "
    "(generated/gen_gemm_sm90: the segment GEMM; gen_gemm_sm100*, sm103*: dense FP4, FP4 ultra, "
    "FP8, BF16, MXFP8, groupwise, "
    "svdquant; gen_gemm_sm120*: dense FP4, MXFP8, groupwise, svdquant).",
)
def generate_flashinfer(
    version: str, out: Path | None, sm: int, cuda: str, quiet: bool, jit_gemm: bool
) -> None:
    """Run FlashInfer VERSION's kernel generator (pip download --no-deps flashinfer-python==VERSION;
    no torch) and write its files in FlashInfer's JIT cache layout. Prints the `generated/`
    directory it wrote, for `cutlint check`.

    The wheel is fetched once into cutlint's cache ($CUTLINT_CACHE/wheels; 0.7.x: 62 MB download,
    427 MB unpacked), never into --out; `verify` and `pregen` use the same copy."""
    from cutlint.cache_dir import generated_dir
    from cutlint.producers.flashinfer.jit_modules import JitRenderError
    from cutlint.producers.flashinfer.wheel import FlashInferError, download_wheel, generate_cache
    from cutlint.report.progress import phased

    base = out if out is not None else generated_dir()
    say = None if quiet else (lambda m: click.echo(f"cutlint: {m}", err=True))
    try:
        with phased(sys.stderr, quiet, f"flashinfer-python {version}", "cutlint: ") as (
            note,
            meter,
        ):
            root = download_wheel(version, progress=note, meter=meter)
        written = generate_cache(root, version, base, sm, cuda)
        rendered: list[Path] = []
        not_built: list[str] = []
        if jit_gemm:
            from cutlint.producers.flashinfer.jit_modules import render_modules

            workspace = written.parents[4]  # <base>/flashinfer/<version>/<archdir>
            rendered = render_modules(
                root, version, base, sm, arch_dir=workspace.name, not_built=not_built
            )
    except (FlashInferError, JitRenderError) as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(EXIT_USAGE)
    # <base>/flashinfer/<version>/<sm>a/generated/cutlass_instantiations/<sm>/gemm_grouped/<sm>:
    # print `generated/`, which holds every file written (the generator writes Sm120 kernels
    # under .../120/ even for --sm 121, so the leaf is not where they are).
    generated = next(p for p in written.parents if p.name == "generated")
    count = sum(1 for _ in generated.rglob("*.cu"))
    if say is not None:
        say(f"wrote {count} files with FlashInfer {version}'s generator")
    printed = generated
    jit_roots = {next(q for q in p.parents if q.name == "generated") for p in rendered}
    if not_built and say is not None:
        say(
            f"not rendered: {', '.join(not_built)} (their nvcc flags leave out SM{sm}'s major "
            "version: FlashInfer does not build them there)"
        )
    if jit_roots:
        if say is not None:
            say(f"rendered {len(rendered)} JIT GEMM files under {', '.join(map(str, jit_roots))}")
        if jit_roots != {generated}:
            # FlashInfer's JIT writes these under another arch directory (`120f` beside the
            # generator's `120a`): print the release's directory, which holds both.
            printed = generated.parents[1]
    click.echo(str(printed))


@generate.command(
    "cutlass-library", short_help="Write a cutlass_library kernel build; print its root."
)
@click.argument("version", default="4.2.0.0")
@click.option(
    "--arch",
    "archs",
    default="120a",
    show_default=True,
    help="CUTLASS_NVCC_ARCHS: the generator's --architectures (`120a`, `90a`, `100a;120a`).",
)
@click.option(
    "--kernels",
    default="",
    help="CUTLASS's own kernel filter (CUTLASS_LIBRARY_KERNELS; comma-separated globs).",
)
@click.option(
    "--ignore-kernels",
    default="",
    help="CUTLASS's own exclusion (CUTLASS_LIBRARY_IGNORE_KERNELS), as `pregen cutlass-library "
    "--write-ignore` writes it; it acts only with --kernels.",
)
@click.option(
    "--exclude-kernels",
    default="",
    help="CUTLASS's exclusion that always acts (CUTLASS_LIBRARY_EXCLUDE_KERNELS); same form.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="The build directory (the generator's --curr-build-dir); kernel files go under "
    "<out>/generated/.  [default: $CUTLINT_CACHE/generated/cutlass-library-<version>-<arch>]",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
def generate_cutlass_library(
    version: str,
    archs: str,
    kernels: str,
    ignore_kernels: str,
    exclude_kernels: str,
    out: Path | None,
    quiet: bool,
) -> None:
    """Run CUTLASS's own generator (`cutlass_library`, from pip download --no-deps
    nvidia-cutlass==VERSION) as CUTLASS's CMake build does for CUTLASS_NVCC_ARCHS=ARCH, and print
    the `generated/` directory it wrote, for `cutlint check`."""
    from cutlint.cache_dir import generated_dir
    from cutlint.producers.cutlass_library.generate import CutlassLibraryError, download, generate
    from cutlint.report.progress import phased

    slug = re.sub(r"[^0-9A-Za-z]+", "_", archs).strip("_")
    base = out if out is not None else generated_dir() / f"cutlass-library-{version}-{slug}"
    say = None if quiet else (lambda m: click.echo(f"cutlint: {m}", err=True))
    try:
        with phased(sys.stderr, quiet, f"nvidia-cutlass {version}", "cutlint: ") as (note, meter):
            root = download(version, note, meter)
        written = generate(root, base, archs, kernels, ignore_kernels, exclude_kernels)
    except CutlassLibraryError as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(EXIT_USAGE)
    if say is not None:
        count = sum(1 for _ in written.rglob("*.cu"))
        say(f"wrote {count} files with cutlass_library {version} for {archs}")
    click.echo(str(written))


# --- explain: logs and derivations; pregen ----------------------------------------------------


def _rule_named(target: str) -> Rule | None:
    """The rule an id or name names, in any case (CUT101, cut101, smem-exceeds-optin)."""
    from cutlint.engine.loader import load_rules

    wanted = target.strip().lower()
    return next((r for r in load_rules() if wanted in (r.id.lower(), r.name)), None)


def _file_line(target: str) -> tuple[Path, int]:
    """`path/to/file.cu:60` -> (path, 60); anything else is a usage error that says what the
    target is not and what to give instead."""
    path, sep, line = target.rpartition(":")
    if sep and re.fullmatch(r"[0-9]{1,9}", line):
        if not _is(path, "exists"):
            _usage_error(f"{path}: no such file (explain FILE:LINE needs an existing file)")
        if not _is(path, "is_file"):
            _usage_error(f"{path}: not a file (explain FILE:LINE needs a .cu file)")
        return Path(path), int(line)
    if _is(target, "is_file"):
        _usage_error(
            f"{target}: give a line, FILE:LINE: {_lines_of(Path(target))} "
            "(or `cutlint check FILE` for every verdict)"
        )
    if _is(target, "exists"):
        _usage_error(f"{target}: a directory; explain takes FILE:LINE (or check the directory)")
    if ":" in target or "/" in target or target.endswith(".cu"):
        _usage_error(f"{path if sep else target}: no such file")
    from cutlint.engine.loader import load_rules
    from cutlint.engine.selection import UnknownSelector, rules_selected

    try:
        rules_selected(target, load_rules(), "")
    except UnknownSelector as e:
        _usage_error(f"{e}; explain also takes FILE:LINE, --log FILE --cache DIR, or --tile MxNxK")
    _usage_error(f"{target!r} names several rules; give one id or name (see `cutlint rules`)")


def _lines_of(path: Path) -> str:
    """`instantiations at lines 11, 18, 25, ...` of a file, or why there are none."""
    from cutlint import api

    result = api.check([path])
    lines = [r.instantiation.span.line for f in result.files for r in f.instantiations]
    if not lines:
        problems = [d for f in result.files for d in f.diagnostics]
        return (
            f"it has no instantiation ({problems[0].rule}: {problems[0].message})"
            if problems
            else "it has no instantiation"
        )
    shown = ", ".join(map(str, lines[:8])) + (", ..." if len(lines) > 8 else "")
    return f"its instantiations start at lines {shown}"


def _no_instantiation_at(path: Path, line: int, options: api.CheckOptions) -> str:
    """What to say when no instantiation covers FILE:LINE: the nearest ones, by line."""
    from cutlint import api

    result = api.check([path], options)
    rows = [r for f in result.files for r in f.instantiations]
    if not rows:
        problems = [d for f in result.files for d in f.diagnostics]
        why = f" ({problems[0].rule}: {problems[0].message})" if problems else ""
        return f"{path}:{line}: the file has no instantiation cutlint reads{why}"
    before = [r for r in rows if r.instantiation.span.end_line < line]
    after = [r for r in rows if r.instantiation.span.line > line]
    near = [*before[-1:], *after[:1]]
    named = "; ".join(f"{path}:{r.instantiation.span.line} ({_short(r)})" for r in near)
    return f"{path}:{line}: no instantiation covers this line; nearest: {named}"


def _short(r: InstantiationResult) -> str:
    """The claiming family's title of the tactic, or the instantiation's name."""
    from cutlint.explain.render import describe

    return describe(r)


_SPEC_FIELDS = {
    "tile": "--tile",
    "cluster": "--cluster",
    "act_type": "--act",
    "weight_type": "--weight",
    "output_type": "--out",
    "arch": "--arch",
    "fusion": "--fusion",
}


def _tactic_spec(
    arch: str | None,
    act: str,
    weight: str,
    out_type: str,
    tile: str,
    cluster: str,
    fusion: str,
    swap_ab: bool,
    cutlass_version: str | None,
    flashinfer_version: str | None,
) -> api.TacticSpec:
    from pydantic import ValidationError

    from cutlint import api

    try:
        return api.TacticSpec(
            arch=arch or api.DEFAULT_ARCH, act_type=act, weight_type=weight, output_type=out_type,
            tile=tile, cluster=cluster, fusion=fusion.upper(), swap_ab=swap_ab,
            cutlass_version=cutlass_version, flashinfer_version=flashinfer_version,
        )  # fmt: skip
    except ValidationError as e:
        first = e.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        message = first["msg"].removeprefix("Value error, ")
        raise click.BadParameter(
            _printable(message), param_hint=_SPEC_FIELDS.get(name, name)
        ) from None
    except ValueError as e:
        raise click.BadParameter(_first_error(e)) from None


def _first_error(e: Exception) -> str:
    """One line of a pydantic ValidationError (its first error's message), or of any error."""
    from pydantic import ValidationError

    if isinstance(e, ValidationError):
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        text = f"{where}: {first['msg'].removeprefix('Value error, ')}"
    else:
        text = str(e).splitlines()[0] if str(e) else repr(e)
    return _printable(text)


def _explain_result(result: InstantiationResult, fmt: str, sources: bool) -> int:
    """Print the derivation of one verdict; exit 1 for an error finding, as `check` does."""
    from cutlint import api
    from cutlint.explain.render import render_derivation_json, render_derivation_text
    from cutlint.records import Severity

    graph = api.derivation(result)
    if fmt == "json":
        click.echo(render_derivation_json(result, graph), nl=False)
    else:
        click.echo(render_derivation_text(result, graph, sources), nl=False)
    failing = any(d.severity is Severity.ERROR for d in result.diagnostics)
    return EXIT_FINDINGS if failing else EXIT_OK


def _explain_log(
    log_path: Path,
    cache_dir: Path | None,
    fmt: str,
    version: str | None,
    arch: str | None,
    tu_inputs: tuple[Path, ...] = (),
    tu_flags: tuple[str, ...] = (),
) -> int:
    """Print each distinct failure of the log; exit 1 when it holds any failure."""
    if cache_dir is not None:
        from cutlint.parse import pool

        pool.prestart()  # the cache is parsed: a parser loads libclang meanwhile, as for check
    from cutlint import api
    from cutlint.explain.render import render_log_json, render_log_text
    from cutlint.logs import LogReadError

    options = api.CheckOptions(arch=arch, flashinfer_version=version) if cache_dir else None
    from cutlint.parse.tu import FrontEndError
    from cutlint.tu_records import TuReportError

    try:
        explained = api.explain_log(
            log_path,
            cache_dir,
            options,
            flashinfer_version=version,
            arch=arch,
            tu=tu_inputs,
            tu_flags=tu_flags,
        )
    except (LogReadError, TuReportError, FrontEndError, OSError) as e:
        _usage_error(str(e))
    click.echo((render_log_json if fmt == "json" else render_log_text)(explained), nl=False)
    return EXIT_FINDINGS if explained.failures else EXIT_OK


@main.group(short_help="Validate a generator's operations before it writes any file.")
def pregen() -> None:
    """Validate a generator's operations before it writes any file."""


@pregen.command("flashinfer", short_help="Judge FlashInfer's generator enumeration, write nothing.")
@click.option(
    "--version",
    "fi_version",
    help="FlashInfer release; default: the installed flashinfer-python. Another release is fetched with pip download --no-deps.",
)
@click.option("--arch", default="sm120", show_default=True, help="Target arch.")
@click.option(
    "--root",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="An unpacked FlashInfer tree (the directory holding flashinfer/) to use instead.",
)
@click.option(
    "--wheel-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where downloaded wheels are unpacked.  [default: $CUTLINT_CACHE/wheels]",
)
@click.option("--cutlass-version", help="CUTLASS version or include dir (default: the release's).")
@click.option(
    "--emit-blocklist",
    "blocklist_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write FlashInfer's tactics-blocklist JSON (FLASHINFER_TACTICS_BLOCKLIST) for the failing tactics.",
)
@click.option(
    "--gpu",
    help="GPU name the blocklist applies to, as torch.cuda.get_device_name() prints it. Default: any GPU ('*').",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--all", "show_all", is_flag=True, help="List every operation, not only the failing ones."
)
@click.option(
    "--runner",
    "runners",
    multiple=True,
    type=click.Choice(["nvfp4", "mxfp8_mxfp4", "fp8", "f16", "bf16"]),
    help="A fused-MoE runner the deployment uses (repeatable; default all): an id is blocked "
    "only when each of these that has it fails it, since the blocklist key names no dtype.",
)
def pregen_flashinfer(
    fi_version: str | None,
    arch: str,
    root: Path | None,
    wheel_dir: Path | None,
    cutlass_version: str | None,
    blocklist_path: Path | None,
    gpu: str | None,
    fmt: str,
    show_all: bool,
    runners: tuple[str, ...],
) -> None:
    """Run FlashInfer's kernel generator enumeration in-process, write nothing, and report which
    operations, and which of the dense SM120 GEMM runners' tactics, would fail on the target
    arch. Exit 0 none fails, 1 some do, 2 usage error or no generator."""
    from cutlint import api, output_target
    from cutlint.cache_dir import wheels_dir
    from cutlint.pregen import render
    from cutlint.pregen.run import find_flashinfer, write_blocklist
    from cutlint.producers.flashinfer.wheel import FlashInferError

    _check_options(arch, cutlass_version)
    try:
        if root is None:
            root, fi_version = find_flashinfer(fi_version, wheel_dir or wheels_dir())
        result = api.pregen_flashinfer(
            version=fi_version,
            arch=arch,
            root=root,
            cutlass_version=cutlass_version,
            runners=runners or None,
        )
    except FlashInferError as e:
        _usage_error(str(e))
    click.echo(
        render.render_json(result) if fmt == "json" else render.render_text(result, show_all),
        nl=False,
    )
    if blocklist_path is not None:
        try:
            write_blocklist(result, root, blocklist_path, gpu)
        except output_target.OutputError as e:
            _usage_error(str(e))
        except OSError as e:
            _usage_error(f"{blocklist_path}: cannot be written: {e.strerror or e}")
        scope = f"GPU {gpu!r}" if gpu else "any GPU ('*': load it only where this arch runs)"
        click.echo(
            f"wrote {blocklist_path}: {len(result.blocked)} tactic(s), FlashInfer {result.flashinfer_version}, {scope}",
            err=True,
        )
    failing = result.failing or result.failing_gemm_runner_tactics
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


@pregen.command(
    "cutlass-library", short_help="Judge CUTLASS's own generator enumeration, write nothing."
)
@click.option("--arch", default="sm_120", show_default=True, help="Target arch to judge for.")
@click.option(
    "--cutlass-arch",
    "architectures",
    help="The generator's --architectures (CUTLASS_NVCC_ARCHS), e.g. `120a` or `100a;120a`. "
    "Default: --arch's own (120a for sm_120).",
)
@click.option(
    "--kernels",
    default="",
    help="CUTLASS's own kernel filter (--kernels, CUTLASS_LIBRARY_KERNELS; comma-separated globs).",
)
@click.option(
    "--version",
    "cl_version",
    default=None,
    help="nvidia-cutlass release whose cutlass_library runs (pip download --no-deps).  "
    "[default: 4.2.0.0]",
)
@click.option(
    "--root",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="An unpacked nvidia-cutlass wheel (the directory holding cutlass_library/) instead.",
)
@click.option(
    "--cutlass-version", help="CUTLASS version or include dir (default: the wheel's headers')."
)
@click.option(
    "--write-ignore",
    "ignore_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the failing kernels' names, comma-separated, as --ignore-kernels/--exclude-kernels "
    "and CUTLASS_LIBRARY_IGNORE_KERNELS/CUTLASS_LIBRARY_EXCLUDE_KERNELS take them.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--all", "show_all", is_flag=True, help="List every kernel, not only the failing.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
def pregen_cutlass_library(
    arch: str,
    architectures: str | None,
    kernels: str,
    cl_version: str | None,
    root: Path | None,
    cutlass_version: str | None,
    ignore_path: Path | None,
    fmt: str,
    show_all: bool,
    quiet: bool,
) -> None:
    """Run CUTLASS's own kernel generator enumeration (cutlass_library's manifest, as CMake runs
    it for CUTLASS_NVCC_ARCHS) in-process, write nothing, and judge every kernel it would write
    for the target arch, as `check` judges the written file. Exit 0 none fails, 1 some do, 2
    usage error or no generator."""
    from cutlint import api, output_target
    from cutlint.pregen import render_cutlass_library as render
    from cutlint.pregen.cutlass_library import write_ignore
    from cutlint.producers.cutlass_library.generate import (
        DEFAULT_VERSION,
        CutlassLibraryError,
        download,
    )

    _check_options(arch, cutlass_version)
    say = None if quiet else (lambda m: click.echo(f"cutlint: {m}", err=True))
    try:
        if root is None:
            cl_version = cl_version or DEFAULT_VERSION
            root = download(cl_version, say)
        result = api.pregen_cutlass_library(
            arch=arch,
            architectures=architectures,
            kernels=kernels,
            version=cl_version,
            root=root,
            cutlass_version=cutlass_version,
        )
    except CutlassLibraryError as e:
        _usage_error(str(e))
    click.echo(
        render.render_json(result) if fmt == "json" else render.render_text(result, show_all),
        nl=False,
    )
    if ignore_path is not None:
        try:
            write_ignore(result, ignore_path)
        except output_target.OutputError as e:
            _usage_error(str(e))
        except OSError as e:
            _usage_error(f"{ignore_path}: cannot be written: {e.strerror or e}")
        click.echo(
            f"wrote {ignore_path}: {len(result.exclusion)} name(s) skipping "
            f"{len(result.failing) - len(result.withheld)} failing kernel(s)",
            err=True,
        )
    sys.exit(EXIT_FINDINGS if result.failing else EXIT_OK)


# `cutlint tu` (the translation-unit front end) keeps its command in its own module.
from cutlint.tu_cli import tu as _tu  # noqa: E402

main.add_command(_tu)
