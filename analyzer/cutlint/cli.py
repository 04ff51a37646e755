"""The `cutlint` command. Thin: parse flags, call the API, pick a reporter, choose the exit code.

Exit codes (docs/usage.md): 0 no finding at or above --fail-on; 1 such findings; 2 a usage error
or input that could not be read (CUT001, CUT002, CUT007) — every other file's result is still
printed.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, NoReturn

import click

from cutlint import api
from cutlint import baseline as baseline_file
from cutlint import config as config_file
from cutlint.cutlass.versions import parse_version
from cutlint.engine.loader import load_rules, rules_by_id
from cutlint.engine.schema import FailsAt, Kind
from cutlint.model.arch import arch_for
from cutlint.records import CheckResult, Severity
from cutlint.report import REPORTERS
from cutlint.report import write as write_report
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
        try:
            arch_for(arch)
        except KeyError:
            raise click.BadParameter(
                f"unknown arch {arch!r}; known: sm_80 sm_86 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121",
                param_hint="--arch",
            ) from None
    if cutlass_version is not None and not Path(cutlass_version).is_dir():
        try:
            parse_version(cutlass_version)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--cutlass-version") from None


class _Group(click.Group):
    """The command group, with commands that live in other packages imported only when used:
    `cutlint check` should not pay for importing the compiler probe."""

    LAZY: ClassVar[dict[str, tuple[str, str]]] = {
        "verify": ("cutlint.verify.cli", "verify_command")
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            module, attr = self.LAZY[name]
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, name)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cutlint")
def main() -> None:
    """Predict which CUTLASS tactics fail to launch, and why, before any GPU."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--arch",
    help="Target GPU arch (sm_120, sm_121, ...). Default: the arch each file was generated for.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(REPORTERS)),
    default=None,
    help="Output format.  [default: text]",
)
@click.option(
    "--select", multiple=True, help="Only these rules (ids or prefixes, e.g. CUT1). Repeatable."
)
@click.option("--ignore", multiple=True, help="Not these rules (ids or prefixes). Repeatable.")
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
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default=None,
    help="Lowest severity that makes the exit code 1.  [default: error]",
)
@click.option("--jobs", type=int, default=None, help="Parser worker processes (default: up to 2).")
@click.option(
    "--parse-timeout",
    type=click.FloatRange(min=0.1),
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
    define: tuple[str, ...],
    undefine: tuple[str, ...],
    cutlass_version: str | None,
    fail_on: str | None,
    jobs: int | None,
    parse_timeout: float,
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
        selection=api.Selection(
            select=select or cfg.select or (), ignore=ignore or cfg.ignore or ()
        ),
        jobs=jobs,
        parse_timeout=parse_timeout,
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
        click.echo(
            f"cutlint: wrote {len(written.findings)} finding(s) to {baseline_path}", err=True
        )
        sys.exit(EXIT_OK)
    if accepted is not None:
        result = baseline_file.apply(result, accepted)
    write_report(fmt or cfg.format or "text", result, sys.stdout)
    sys.exit(exit_code(result, fail_on or cfg.fail_on or "error"))


@main.command("rules")
def list_rules() -> None:
    """List every rule: id, name, severity, when it fails."""
    from tabulate import tabulate

    rows = [
        [
            r.id,
            r.name,
            r.severity.value,
            r.fails_at.value,
            r.failure_class,
            r.doc.what.split(". ")[0],
        ]
        for r in load_rules()
    ]
    click.echo(tabulate(rows, headers=["id", "name", "severity", "fails at", "class", "what"]))


@main.command()
@click.argument("target", required=False)
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="An autotuner/launcher log (FlashInfer, TensorRT-LLM, vLLM, SGLang) to explain; needs --cache.",
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
    default="e2m1",
    show_default=True,
    help="Tactic: activation (A) type: e2m1, e4m3, or a spelling such as SafeFP4.",
)
@click.option("--weight", default="e2m1", show_default=True, help="Tactic: weight (B) type.")
@click.option(
    "--out",
    "out_type",
    default="bf16",
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
    help="Tactic or FILE:LINE: the FlashInfer release (its CUTLASS and dispatch table).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--no-sources", is_flag=True, help="Derivation tree without the source line under each node."
)
def explain(
    target: str | None,
    log_path: Path | None,
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
    1 the log holds failures, or the tactic fails; 2 usage error or unreadable input."""
    _check_options(arch, cutlass_version)
    if log_path is not None:
        if cache_dir is None:
            raise click.UsageError(
                "--log needs --cache: the directory of generated files the log names"
            )
        sys.exit(_explain_log(log_path, cache_dir, fmt))
    if target is not None:
        by_key = {r.id: r for r in load_rules()} | {r.name: r for r in load_rules()}
        found = by_key.get(target) or by_key.get(target.upper())
        if found is not None:
            click.echo(render_rule(found))
            return
        where = _file_line(target)
        if where is None:
            raise click.BadParameter(
                f"no rule {target!r} (see `cutlint rules`) and not FILE:LINE", param_hint="TARGET"
            )
        options = api.CheckOptions(
            arch=arch, cutlass_version=cutlass_version, flashinfer_version=flashinfer_version
        )
        result = api.instantiation_at(where[0], where[1], options)
        if result is None:
            _usage_error(f"{where[0]}:{where[1]}: no instantiation cutlint reads covers this line")
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


@main.group()
def generate() -> None:
    """Write real inputs with a generator's own code."""


@generate.command("flashinfer")
@click.argument("version")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path.home() / ".cache",
    show_default=True,
    help="Base directory; files go under <out>/flashinfer/<version>/120a/generated/.",
)
@click.option("--sm", type=int, default=120, show_default=True)
def generate_flashinfer(version: str, out: Path, sm: int) -> None:
    """Run FlashInfer VERSION's kernel generator (pip download --no-deps flashinfer-python==VERSION;
    no torch) and write its files in FlashInfer's JIT cache layout. Prints the directory."""
    from cutlint.producers.flashinfer.wheel import FlashInferError, download_wheel, generate_cache

    try:
        root = download_wheel(version, out / "cutlint-wheels")
        written = generate_cache(root, version, out, sm)
    except FlashInferError as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(str(written))


# --- explain: logs and derivations; pregen ----------------------------------------------------

import typing  # noqa: E402  (kept with the code below that needs it)

if typing.TYPE_CHECKING:
    from cutlint.records import InstantiationResult


def _file_line(target: str) -> tuple[Path, int] | None:
    """`path/to/file.cu:60` -> (path, 60), when the file exists."""
    path, sep, line = target.rpartition(":")
    if not sep or not line.isdigit() or not Path(path).is_file():
        return None
    return Path(path), int(line)


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

    try:
        return api.TacticSpec(
            arch=arch or api.DEFAULT_ARCH, act_type=act, weight_type=weight, output_type=out_type,
            tile=tile, cluster=cluster, fusion=fusion.upper(), swap_ab=swap_ab,
            cutlass_version=cutlass_version, flashinfer_version=flashinfer_version,
        )  # fmt: skip
    except (ValidationError, ValueError) as e:
        raise click.BadParameter(str(e).splitlines()[-1] if str(e) else repr(e)) from None


def _explain_result(result: InstantiationResult, fmt: str, sources: bool) -> int:
    """Print the derivation of one verdict; exit 1 for an error finding, as `check` does."""
    from cutlint.explain.render import render_derivation_json, render_derivation_text

    graph = api.derivation(result)
    if fmt == "json":
        click.echo(render_derivation_json(result, graph), nl=False)
    else:
        click.echo(render_derivation_text(result, graph, sources), nl=False)
    failing = any(d.severity is Severity.ERROR for d in result.diagnostics)
    return EXIT_FINDINGS if failing else EXIT_OK


def _explain_log(log_path: Path, cache_dir: Path, fmt: str) -> int:
    """Print each distinct failure of the log; exit 1 when it holds any failure."""
    from cutlint.explain.render import render_log_json, render_log_text
    from cutlint.logs import LogReadError

    try:
        explained = api.explain_log(log_path, cache_dir)
    except LogReadError as e:
        _usage_error(str(e))
    click.echo((render_log_json if fmt == "json" else render_log_text)(explained), nl=False)
    return EXIT_FINDINGS if explained.failures else EXIT_OK


@main.group()
def pregen() -> None:
    """Validate a generator's operations before it writes any file."""


@pregen.command("flashinfer")
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
    default=Path.home() / ".cache" / "cutlint-wheels",
    show_default=True,
    help="Where downloaded wheels are unpacked.",
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
    wheel_dir: Path,
    cutlass_version: str | None,
    blocklist_path: Path | None,
    gpu: str | None,
    fmt: str,
    show_all: bool,
    runners: tuple[str, ...],
) -> None:
    """Run FlashInfer's kernel generator enumeration in-process, write nothing, and report which
    operations would fail on the target arch. Exit 0 none fails, 1 some do, 2 usage error or no
    generator."""
    from cutlint.pregen import render
    from cutlint.pregen.run import find_flashinfer, write_blocklist
    from cutlint.producers.flashinfer.wheel import FlashInferError

    _check_options(arch, cutlass_version)
    try:
        if root is None:
            root, fi_version = find_flashinfer(fi_version, wheel_dir)
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
        write_blocklist(result, root, blocklist_path, gpu)
        scope = f"GPU {gpu!r}" if gpu else "any GPU ('*': load it only where this arch runs)"
        click.echo(
            f"wrote {blocklist_path}: {len(result.blocked)} tactic(s), FlashInfer {result.flashinfer_version}, {scope}",
            err=True,
        )
    sys.exit(EXIT_FINDINGS if result.failing else EXIT_OK)
