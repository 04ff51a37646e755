"""`cutlint tu`: the CUTLASS kernels one translation unit instantiates, read with its build's
flags. Flags in, reporter out, exit code; the front end is `cutlint.parse.tu`."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

from cutlint.exit_codes import FINDINGS, OK, USAGE


@dataclass(frozen=True)
class TuFlags:
    """What `cutlint tu`'s command line said."""

    file: Path
    flags: tuple[str, ...]
    database: Path | None
    arches: tuple[str, ...]
    fmt: str
    no_cache: bool
    verify: bool
    nvcc: str
    site_packages: tuple[str, ...] = ()


@click.command(
    "tu",
    short_help="List every CUTLASS kernel a translation unit instantiates, as its build compiles it.",
    context_settings={"ignore_unknown_options": True},
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "-p",
    "--compile-commands",
    "database",
    type=click.Path(path_type=Path),
    help="compile_commands.json (or the build directory holding it) to take FILE's command from.",
)
@click.option(
    "--arch",
    "arches",
    multiple=True,
    help="Target(s) to judge for (sm_120a); default: the targets the command builds.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--no-cache", is_flag=True, help="Parse again even when the cache holds the answer.")
@click.option(
    "--verify",
    is_flag=True,
    help="Also compile each kernel's numbers with nvcc (host pass only) and say whether they agree.",
)
@click.option("--nvcc", default="nvcc", show_default=True, help="The nvcc --verify asks.")
@click.option(
    "--site-packages",
    multiple=True,
    help="Where an SGLang JIT source's dependencies are installed (FlashInfer's CUTLASS, "
    "tvm-ffi's headers): a site-packages directory or a virtual environment.",
)
def tu(**flags: Any) -> None:
    """Read FILE with libclang as its build compiles it (the flags after `--`, nvcc's or clang's
    spelling, or its entry in a compile_commands.json) and list each CUTLASS kernel it
    instantiates: the line that chose it, the dispatch conditions on the way from the entry
    points, its measured SharedStorage and the verdict against each target's opt-in limit.
    With --verify, nvcc compiles the same kernel types (host pass only, no device code) and each
    kernel is shown as agree or differ with both numbers; exit 1 when any differs."""
    run(TuFlags(**flags))


def run(given: TuFlags) -> None:
    from cutlint.engine.tu_judge import judge
    from cutlint.model.arch import arch_for
    from cutlint.parse.tu import FrontEndError, from_compile_commands, from_flags, read_tu
    from cutlint.report import tu as render

    file, flags, database, fmt, no_cache = (
        given.file, given.flags, given.database, given.fmt, given.no_cache
    )  # fmt: skip

    if not file.is_file():
        _usage(f"{file}: not a readable file")
    if database is not None:
        db = database / "compile_commands.json" if database.is_dir() else database
        try:
            command = from_compile_commands(db, file)
        except (OSError, ValueError, KeyError) as e:
            _usage(f"{db}: cannot be read as a compile database: {e}")
        if command is None:
            _usage(f"{db} has no entry for {file}")
        if flags:
            extra = from_flags(file, flags)
            command = command.model_copy(
                update={"args": command.args + extra.args, "arches": command.arches + extra.arches}
            )
    else:
        command = from_flags(file, flags)
    for t in given.arches:
        try:
            arch_for(t)
        except KeyError:
            _usage(f"--arch {t}: not a known target")
    # An SGLang JIT source is read through the wrapper its JIT generates, with its flags for
    # each target (the flags after `--` added): producers/sglang/tu.py.
    jit = (
        _sglang_commands(file, flags, given.arches, given.site_packages)
        if database is None
        else None
    )
    commands = jit or [(command, t) for t in given.arches or command.arches or ("sm_90a",)]
    reads = []
    try:
        for c, t in commands:
            read = read_tu(c, t, use_cache=not no_cache)
            reads.append((read, judge(read)))
    except FrontEndError as e:
        _usage(str(e))
    if given.verify:
        from cutlint.verify.probe_records import ProbeError
        from cutlint.verify.tu_probe import check

        try:
            checks = [c for read, _ in reads for c in check(read, given.nvcc, not no_cache)]
        except ProbeError as e:
            _usage(f"--verify: {e}")
        text = render.render_json(reads, checks) if fmt == "json" else render.render_text(reads)
        if fmt != "json":
            text += render.render_checks_text(checks)
        click.echo(text, nl=False)
        if any(not c.agrees for c in checks):
            sys.exit(FINDINGS)  # as `cutlint verify`: 1 when the compiler disagrees
    else:
        text = render.render_json(reads) if fmt == "json" else render.render_text(reads)
        click.echo(text, nl=False)
    failing = any(f.severity == "error" for _, vs in reads for v in vs for f in v.findings)
    sys.exit(FINDINGS if failing else OK)


def _sglang_commands(
    file: Path, flags: tuple[str, ...], arches: tuple[str, ...], site: tuple[str, ...]
) -> list[tuple[Any, str]] | None:
    """(command, target) per target for an SGLang JIT source, or None for any other file."""
    from cutlint.context.packages import site_dirs
    from cutlint.context.resolve import device_sm
    from cutlint.parse.tu import from_flags
    from cutlint.producers.sglang.tu import jit_tu

    out: list[tuple[Any, str]] = []
    for arch in arches or (None,):
        sm = device_sm(arch) if arch is not None else None
        tu = jit_tu(file, sm, site_dirs(site))
        if tu is None:
            return None
        click.echo(f"cutlint tu: {file} as {tu.said}: {tu.wrapper}", err=True)
        command = from_flags(Path(tu.wrapper), [*tu.argv, *flags], origin="SGLang's JIT")
        out.append((command, command.arches[0]))  # the JIT's target (sm_90a for --arch sm_90)
    return out


def _usage(message: str) -> NoReturn:
    click.echo(f"cutlint tu: error: {message}", err=True)
    sys.exit(USAGE)


__all__ = ["tu"]
