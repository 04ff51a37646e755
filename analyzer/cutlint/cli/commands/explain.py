"""`cutlint explain`: a rule's page, a log's failures, or how one verdict was derived.

Exit codes: 0 nothing fails (a rule page; a log with no failure; a tactic that fits); 1 the log
holds failures, or the tactic fails; 2 usage error or unreadable input."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cutlint.cli.errors import first_error, printable, usage_error
from cutlint.cli.options import DEFAULT_TACTIC, check_target, text_or_json
from cutlint.exit_codes import FINDINGS, OK

if TYPE_CHECKING:
    from cutlint import api
    from cutlint.engine.schema import Rule
    from cutlint.records import InstantiationResult


@dataclass(frozen=True)
class ExplainFlags:
    """What `cutlint explain`'s command line said, as click parsed it."""

    target: str | None
    tu_flags: tuple[str, ...]
    log_path: Path | None
    tu_inputs: tuple[Path, ...]
    cache_dir: Path | None
    arch: str | None
    act: str
    weight: str
    out_type: str
    tile: str | None
    cluster: str
    fusion: str
    swap_ab: bool
    cutlass_version: str | None
    flashinfer_version: str | None
    fmt: str
    no_sources: bool


@click.command(short_help="Explain a rule, a log's failures, or how a verdict was derived.")
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
@text_or_json
@click.option(
    "--no-sources", is_flag=True, help="Derivation tree without the source line under each node."
)
def explain(**flags: Any) -> None:
    """Explain a rule (CUT101, smem-exceeds-optin), a log's failures (--log FILE --cache DIR),
    or how a verdict was derived: FILE:LINE, or a tactic (--tile MxNxK --act ... --fusion ...).

    Exit codes: 0 nothing fails (a rule page; a log with no failure; a tactic that fits);
    1 the log holds failures (a line with an error word no grammar reads counts: "not
    recognized"), or the tactic fails; 2 usage error or unreadable input."""
    run(ExplainFlags(**flags))


def run(flags: ExplainFlags) -> None:
    from cutlint import api

    target = flags.target
    check_target(flags.arch, flags.cutlass_version)
    if flags.log_path is not None:
        # --log alone reads every framework's lines (vLLM, SGLang, CUTLASS, ...); --cache and
        # --flashinfer-version add what a FlashInfer line needs (its instantiation, its tactics)
        # `--tu FILE.cu -- FLAGS`: after `--` every word is positional, TARGET's slot included
        words = ((target,) if target is not None else ()) + flags.tu_flags
        if words and not any(p.suffix != ".json" for p in flags.tu_inputs):
            usage_error("words after --log FILE are a --tu FILE.cu's flags; no .cu was given")
        sys.exit(_explain_log(flags.log_path, flags, words))
    if flags.tu_inputs or flags.tu_flags:
        usage_error("--tu and compile flags go with --log FILE")
    if target is not None:
        from cutlint.report.rule_docs import render_rule

        found = _rule_named(target)
        if found is not None:
            click.echo(render_rule(found, banner=False))
            return
        path, line = _file_line(target)
        options = api.CheckOptions(
            arch=flags.arch,
            cutlass_version=flags.cutlass_version,
            flashinfer_version=flags.flashinfer_version,
        )
        result = api.instantiation_at(path, line, options)
        if result is None:
            usage_error(_no_instantiation_at(path, line, options))
        sys.exit(_explain_result(result, flags.fmt, not flags.no_sources))
    if flags.tile is None:
        raise click.UsageError(
            "give a rule, FILE:LINE, --log FILE --cache DIR, or a tactic (--tile MxNxK ...)"
        )
    spec = _tactic_spec(flags, flags.tile)
    sys.exit(_explain_result(api.validate_tactics([spec])[0], flags.fmt, not flags.no_sources))


def _is(path: str, test: str) -> bool:
    """Path(path).exists() / .is_file(), False for a name the OS refuses (too long, NUL)."""
    try:
        return bool(getattr(Path(path), test)())
    except (OSError, ValueError):
        return False


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
            usage_error(f"{path}: no such file (explain FILE:LINE needs an existing file)")
        if not _is(path, "is_file"):
            usage_error(f"{path}: not a file (explain FILE:LINE needs a .cu file)")
        return Path(path), int(line)
    if _is(target, "is_file"):
        usage_error(
            f"{target}: give a line, FILE:LINE: {_lines_of(Path(target))} "
            "(or `cutlint check FILE` for every verdict)"
        )
    if _is(target, "exists"):
        usage_error(f"{target}: a directory; explain takes FILE:LINE (or check the directory)")
    if ":" in target or "/" in target or target.endswith(".cu"):
        usage_error(f"{path if sep else target}: no such file")
    from cutlint.engine.loader import load_rules
    from cutlint.engine.selection import UnknownSelector, rules_selected

    try:
        rules_selected(target, load_rules(), "")
    except UnknownSelector as e:
        usage_error(f"{e}; explain also takes FILE:LINE, --log FILE --cache DIR, or --tile MxNxK")
    usage_error(f"{target!r} names several rules; give one id or name (see `cutlint rules`)")


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


def _tactic_spec(flags: ExplainFlags, tile: str) -> api.TacticSpec:
    from pydantic import ValidationError

    from cutlint import api

    try:
        return api.TacticSpec(
            arch=flags.arch or api.DEFAULT_ARCH, act_type=flags.act, weight_type=flags.weight,
            output_type=flags.out_type, tile=tile, cluster=flags.cluster,
            fusion=flags.fusion.upper(), swap_ab=flags.swap_ab,
            cutlass_version=flags.cutlass_version, flashinfer_version=flags.flashinfer_version,
        )  # fmt: skip
    except ValidationError as e:
        first = e.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        message = first["msg"].removeprefix("Value error, ")
        raise click.BadParameter(
            printable(message), param_hint=_SPEC_FIELDS.get(name, name)
        ) from None
    except ValueError as e:
        raise click.BadParameter(first_error(e)) from None


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
    return FINDINGS if failing else OK


def _explain_log(log_path: Path, flags: ExplainFlags, tu_flags: tuple[str, ...]) -> int:
    """Print each distinct failure of the log; exit 1 when it holds any failure."""
    cache_dir, version, arch = flags.cache_dir, flags.flashinfer_version, flags.arch
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
            tu=flags.tu_inputs,
            tu_flags=tu_flags,
        )
    except (LogReadError, TuReportError, FrontEndError, OSError) as e:
        usage_error(str(e))
    click.echo((render_log_json if flags.fmt == "json" else render_log_text)(explained), nl=False)
    return FINDINGS if explained.failures else OK
