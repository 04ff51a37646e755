"""`cutlint verify`: flags in, `verify()` called, a renderer out, the exit code.

Exit codes: 0 every compared instantiation agrees; 1 the model and the compiler disagree on at
least one; 2 nothing could be compared, or something is missing (nvcc, headers, a version
mismatch), or a file could not be compiled or read — the other files' results are still printed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from cutlint.engine.loader import rules_by_id
from cutlint.engine.schema import FailsAt, Kind
from cutlint.verify.headers import SetupError
from cutlint.verify.nvcc_probe import ProbeError
from cutlint.verify.report import RENDERERS
from cutlint.verify.result import Status, VerifyResult
from cutlint.verify.run import BACKENDS, Shard, VerifyOptions, verify

EXIT_OK, EXIT_DISAGREE, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class VerifyFlags:
    """What `cutlint verify`'s command line said, as click parsed it."""

    paths: tuple[Path, ...]
    headers: tuple[Path, ...]
    arch: str | None
    cutlass_source: Path | None
    download: bool
    backend: str
    nvcc: str | None
    jobs: int
    scheduler: str | None
    fmt: str
    cache_dir: Path | None
    no_cache: bool
    keep_build: bool
    shard: Shard | None
    device_code: bool
    device_flags: tuple[str, ...]
    quiet: bool
    verbose: bool
    build_dir: Path | None = None
    compile_command: str | None = None
    site_packages: tuple[Path, ...] = ()
    define: tuple[str, ...] = ()
    undefine: tuple[str, ...] = ()


def exit_code(result: VerifyResult) -> int:
    rules = rules_by_id()
    unreadable = any(
        rules[d.rule].kind is Kind.INPUT and rules[d.rule].fails_at is FailsAt.PARSE
        for d in result.input_diagnostics
    )
    failed = any(f.error for f in result.files) or result.count(Status.ERROR) > 0
    if unreadable or failed or result.compared == 0:
        return EXIT_USAGE
    return EXIT_DISAGREE if result.count(Status.DISAGREE) else EXIT_OK


def _defines(define: tuple[str, ...], undefine: tuple[str, ...]) -> dict[str, str]:
    """check's default set, then -D, less -U (as `cutlint check` reads them)."""
    from cutlint.parse import DEFAULT_DEFINES
    from cutlint.parse.defines import define_problem

    out = dict(DEFAULT_DEFINES)
    for given in define:
        name, _, value = given.partition("=")
        if why := define_problem(name, value or "1"):
            raise click.BadParameter(f"-D {given!r}: {why}")
        out[name] = value or "1"
    for name in undefine:
        if why := define_problem(name, None):
            raise click.BadParameter(f"-U {name!r}: {why}")
        out.pop(name, None)
    return out


def _say(message: str) -> None:
    click.echo(message, err=True)


def _shard(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Shard | None:
    if value is None:
        return None
    try:
        return Shard.parse(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command("verify", short_help="Ask nvcc for the numbers the model predicts and compare them.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--headers",
    "headers",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="A FlashInfer root holding flashinfer/data (an unpacked flashinfer-python wheel or a "
    "site-packages). Repeatable: one per FlashInfer release. Default: an installed "
    "flashinfer-python of the file's release.",
)
@click.option(
    "--arch",
    help="Target GPU arch check judges for (sm_120, sm_90, ...). Default: the arch each file's "
    "path names; a cutlass_library build's files name none, so give the build's target.",
)
@click.option(
    "--cutlass-source",
    type=click.Path(path_type=Path, file_okay=False),
    help="For cutlass_library and other `using`-chain kernels: the CUTLASS tree to compile "
    "against (a CUTLASS checkout, or an unpacked nvidia-cutlass wheel's cutlass_library/source). "
    "Default: the nvidia-cutlass wheel in <cache>/wheels.",
)
@click.option(
    "--download",
    is_flag=True,
    help="Fetch missing flashinfer-python (or nvidia-cutlass) wheels (pip download --no-deps) "
    "into <cache>/wheels.",
)
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="nvcc",
    show_default=True,
    help="Who answers: nvcc (compile and run the probe) or libclang (clang's record layout of "
    "the same types, no nvcc run; needs the CUDA toolkit's headers and the libclang-ng package).",
)
@click.option(
    "-p",
    "--build-dir",
    "build_dir",
    type=click.Path(path_type=Path, exists=True),
    help="As check's: a build directory with compile_commands.json (or the file); each file's "
    "include path (the #defines its macro calls are read by), defines and targets come from it.",
)
@click.option(
    "--compile-command",
    help="As check's: the nvcc command line that builds the files (its -I, -D, -gencode).",
)
@click.option(
    "--site-packages",
    "site_packages",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="As check's: the build's Python environment (its flashinfer-python / tensorrt_llm).",
)
@click.option("-D", "define", multiple=True, help="As check's: define a macro (NAME[=VALUE]).")
@click.option("-U", "undefine", multiple=True, help="As check's: undefine a macro.")
@click.option("--nvcc", help="The nvcc to ask. Default: nvcc on PATH, then $CUDA_HOME/bin/nvcc.")
@click.option(
    "--jobs",
    "--workers",
    "jobs",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Files compiled in parallel (~30 s and ~1.3 GB of memory each): the workers of the "
    "local Dask cluster.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="A Dask scheduler (tcp://host:8786) whose workers compile instead of a local cluster; "
    "they need the files and headers at the same paths.",
)
@click.option(
    "--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="cutlint's cache (results under verify/). Default: $CUTLINT_CACHE or ~/.cache/cutlint.",
)
@click.option(
    "--no-cache", is_flag=True, help="Compile every file again (results are still cached)."
)
@click.option(
    "--keep-build", is_flag=True, help="Keep each file's probe build under <cache>/verify/build."
)
@click.option(
    "--shard",
    callback=_shard,
    metavar="K/N",
    help="Verify only the K-th of N parts of the files (dealt out in path order), so that N "
    "machines share one input; run each with its own --cache-dir, merge those directories, and "
    "a run without --shard then compiles nothing again (docs/validation.md).",
)
@click.option(
    "--device-code",
    is_flag=True,
    help="Compile device code instead (nvcc -cubin -Xptxas -v, minutes a CUTLASS file) and "
    "report ptxas's registers, spills and stack per kernel (verify/device_code.py); cached and "
    "shardable like the host probes.",
)
@click.option(
    "--device-flag",
    "device_flags",
    multiple=True,
    help="An nvcc flag for --device-code (-I..., -D..., --expt-relaxed-constexpr); repeatable. "
    "Without any, a FlashInfer file's flags are derived from its release.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress on stderr (a bar on a terminal; a line per compiled file in a log or "
    "under CI).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Say which headers, cuBLAS headers and cache entries are used.",
)
def verify_command(**flags: Any) -> None:
    """Ask nvcc for the numbers cutlint's model predicts and compare them.

    For every instantiation `check` finds, compiles the generated file against the real
    headers and launcher of the FlashInfer release that wrote it, or, for cutlass_library and
    other `using`-chain kernels, against CUTLASS's own headers (no GPU, no GEMM device code), and
    compares the stage count, the kernel's SharedStorageSize, the
    mainloop's and epilogue's SharedStorage and MaxThreadsPerBlock with the model's.
    """
    run(VerifyFlags(**flags))


def run(flags: VerifyFlags) -> None:
    paths, headers, cache_dir = flags.paths, flags.headers, flags.cache_dir
    options = VerifyOptions(
        headers=headers,
        nvcc=flags.nvcc,
        jobs=flags.jobs,
        cache_dir=cache_dir,
        use_cache=not flags.no_cache,
        download=flags.download,
        keep_build=flags.keep_build,
        backend=flags.backend,
        cutlass_source=flags.cutlass_source,
        arch=flags.arch,
        shard=flags.shard,
        scheduler=flags.scheduler,
        build_dir=str(flags.build_dir) if flags.build_dir is not None else None,
        compile_command=flags.compile_command,
        site_packages=tuple(str(p) for p in flags.site_packages),
        defines=_defines(flags.define, flags.undefine),
        undefines=flags.undefine,
    )
    if flags.device_code:
        from cutlint.verify.cache import default_cache_dir
        from cutlint.verify.device_code import device_command
        from cutlint.verify.headers import HeaderSearch

        wheels = (cache_dir or default_cache_dir()) / "wheels"
        try:
            search = HeaderSearch.from_options(headers, flags.download, wheels)
        except SetupError as e:
            _say(f"cutlint verify: {e}")
            sys.exit(EXIT_USAGE)
        sys.exit(device_command(paths, options, flags.device_flags, flags.fmt, search))
    from cutlint.report.progress import Bar, Mode, mode

    # a terminal: the bar, with the lines above it; a CI log or a file: a line per file compiled
    shown = mode(sys.stderr, flags.quiet, lines=True)
    bar = Bar(unit="files") if shown is Mode.BAR else None
    say = bar.note if bar is not None else _say
    try:
        result = verify(
            paths,
            options,
            progress=None if shown is Mode.OFF else say,
            log=say if flags.verbose else None,
            tracker=bar,
        )
    except (SetupError, ProbeError, OSError) as e:
        _say(f"cutlint verify: {e}")
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        _say("cutlint verify: interrupted")
        sys.exit(130)
    finally:
        if bar is not None:
            bar.close()
    click.echo(RENDERERS[flags.fmt](result), nl=False)
    sys.exit(exit_code(result))
