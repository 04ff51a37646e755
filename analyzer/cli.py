"""The `cutlint` command. Thin: parse flags, call the API, pick a reporter, choose the exit code.

Exit codes (docs/usage.md): 0 no finding at or above --fail-on; 1 such findings; 2 a usage error
or input that could not be read (CUT001, CUT002, CUT007) — every other file's result is still
printed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click

from cutlint import api
from cutlint import baseline as baseline_file
from cutlint import config as config_file
from cutlint.engine.loader import load_rules, rules_by_id
from cutlint.engine.schema import FailsAt, Kind
from cutlint.model.arch import arch_for
from cutlint.model.versions import parse_version
from cutlint.records import CheckResult, Severity
from cutlint.report import REPORTERS
from cutlint.report.rule_docs import render_rule

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
FAIL_ON = ["error", "warning", "info", "note", "never"]


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
        out[name] = value or "1"
    for u in undefine:
        out.pop(u, None)
    return out


def _undefines(
    define: Sequence[str], undefine: Sequence[str], cfg: config_file.Config
) -> tuple[str, ...]:
    """The -U list for libclang: the config's undefines that no -D brings back, then -U."""
    redefined = {d.partition("=")[0] for d in define}
    kept = [u for u in cfg.undefines or () if u not in redefined]
    return tuple(dict.fromkeys([*kept, *undefine]))


def _usage_error(message: str) -> NoReturn:
    click.echo(f"cutlint: {message}", err=True)
    sys.exit(EXIT_USAGE)


def exit_code(result: CheckResult, fail_on: str) -> int:
    rules = rules_by_id()
    diags = result.all_diagnostics()
    if any(rules[d.rule].kind is Kind.INPUT and rules[d.rule].fails_at is FailsAt.PARSE for d in diags):
        return EXIT_USAGE
    if fail_on == "never":
        return EXIT_OK
    threshold = Severity(fail_on).rank
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in diags) else EXIT_OK


def _check_options(arch: str | None, cutlass_version: str | None) -> None:
    """Reject bad --arch / --cutlass-version before any work, as a usage error."""
    if arch is not None:
        try:
            arch_for(arch)
        except KeyError:
            raise click.BadParameter(f"unknown arch {arch!r}; known: sm_80 sm_86 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121", param_hint="--arch") from None
    if cutlass_version is not None and not Path(cutlass_version).is_dir():
        try:
            parse_version(cutlass_version)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--cutlass-version") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cutlint")
def main() -> None:
    """Predict which CUTLASS tactics fail to launch, and why, before any GPU."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--arch", help="Target GPU arch (sm_120, sm_121, ...). Default: the arch each file was generated for.")
@click.option("--format", "fmt", type=click.Choice(sorted(REPORTERS)), default=None, help="Output format.  [default: text]")
@click.option("--select", multiple=True, help="Only these rules (ids or prefixes, e.g. CUT1). Repeatable.")
@click.option("--ignore", multiple=True, help="Not these rules (ids or prefixes). Repeatable.")
@click.option("-D", "define", multiple=True, help="Define a macro for #if evaluation (NAME or NAME=VALUE).")
@click.option("-U", "undefine", multiple=True, help="Undefine a macro (default set: ENABLE_FP4, ENABLE_FP8, ENABLE_BF16).")
@click.option("--cutlass-version", help="CUTLASS version (4.5.0) or a CUTLASS include dir with cutlass/version.h.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None, help="Lowest severity that makes the exit code 1.  [default: error]")
@click.option("--jobs", type=int, default=None, help="Parser worker processes (default: up to 2).")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False), help="Read settings from this file (a pyproject.toml with [tool.cutlint], or a TOML file of those keys) instead of discovering pyproject.toml from the current directory upward.")
@click.option("--no-config", is_flag=True, help="Ignore every config file.")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), help="Leave out findings whose fingerprint is in this baseline file (they are counted as 'in baseline').")
@click.option("--write-baseline", is_flag=True, help="Write the current findings' fingerprints to the --baseline file and exit 0.")
@click.option("--root", "--sarif-root", "root", type=click.Path(path_type=Path, file_okay=False), help="Project root that SARIF/annotation paths and fingerprints are relative to. Default: the config file's directory, else the current directory.")
def check(
    paths: tuple[Path, ...],
    arch: str | None,
    fmt: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    define: tuple[str, ...],
    undefine: tuple[str, ...],
    cutlass_version: str | None,
    fail_on: str | None,
    jobs: int | None,
    config_path: Path | None,
    no_config: bool,
    baseline_path: Path | None,
    write_baseline: bool,
    root: Path | None,
) -> None:
    """Check generated CUTLASS instantiation files (or directories of them)."""
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
        defines=_defines(define, undefine, cfg),
        undefines=_undefines(define, undefine, cfg),
        selection=api.Selection(select=select or cfg.select or (), ignore=ignore or cfg.ignore or ()),
        jobs=jobs,
        root=root or loaded.directory or Path.cwd(),
    )
    if baseline_path is None and cfg.baseline is not None:
        baseline_path = loaded.resolve(cfg.baseline)
    if write_baseline and baseline_path is None:
        _usage_error("--write-baseline needs --baseline FILE (or `baseline` in [tool.cutlint])")
    accepted = None
    if baseline_path is not None and not write_baseline:
        try:
            accepted = baseline_file.load(baseline_path)
        except baseline_file.BaselineError as e:
            _usage_error(str(e))
    result = api.check(paths, options)
    if write_baseline:
        assert baseline_path is not None
        written = baseline_file.from_result(result)
        baseline_file.write(written, baseline_path)
        click.echo(f"cutlint: wrote {len(written.findings)} finding(s) to {baseline_path}", err=True)
        sys.exit(EXIT_OK)
    if accepted is not None:
        result = baseline_file.apply(result, accepted)
    click.echo(REPORTERS[fmt or cfg.format or "text"](result), nl=False)
    sys.exit(exit_code(result, fail_on or cfg.fail_on or "error"))


@main.command("rules")
def list_rules() -> None:
    """List every rule: id, name, severity, when it fails."""
    from tabulate import tabulate

    rows = [[r.id, r.name, r.severity.value, r.fails_at.value, r.failure_class, r.doc.what.split(". ")[0]] for r in load_rules()]
    click.echo(tabulate(rows, headers=["id", "name", "severity", "fails at", "class", "what"]))


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Explain a rule (CUT101 or smem-exceeds-optin)."""
    by_key = {r.id: r for r in load_rules()} | {r.name: r for r in load_rules()}
    found = by_key.get(rule) or by_key.get(rule.upper())
    if found is None:
        raise click.BadParameter(f"no rule {rule!r}; see `cutlint rules`", param_hint="RULE")
    click.echo(render_rule(found))


@main.group()
def generate() -> None:
    """Write real inputs with a generator's own code."""


@generate.command("flashinfer")
@click.argument("version")
@click.option("--out", type=click.Path(path_type=Path), default=Path.home() / ".cache", show_default=True, help="Base directory; files go under <out>/flashinfer/<version>/120a/generated/.")
@click.option("--sm", type=int, default=120, show_default=True)
def generate_flashinfer(version: str, out: Path, sm: int) -> None:
    """Run FlashInfer VERSION's kernel generator (pip download --no-deps flashinfer-python==VERSION;
    no torch) and write its files in FlashInfer's JIT cache layout. Prints the directory."""
    from cutlint.verify.flashinfer import FlashInferError, download_wheel, generate_cache

    try:
        root = download_wheel(version, out / "cutlint-wheels")
        written = generate_cache(root, version, out, sm)
    except FlashInferError as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(str(written))


from cutlint.verify.cli import verify_command  # noqa: E402  (registered last: see verify/cli.py)

main.add_command(verify_command)
