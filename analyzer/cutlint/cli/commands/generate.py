"""`cutlint generate`: real inputs written with a generator's own code, for `cutlint check`."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from cutlint.cli.options import progress_say, quiet_progress
from cutlint.exit_codes import USAGE


@dataclass(frozen=True)
class FlashInferFlags:
    """What `cutlint generate flashinfer`'s command line said."""

    version: str
    out: Path | None
    sm: int
    cuda: str
    quiet: bool
    jit_gemm: bool


@dataclass(frozen=True)
class CutlassLibraryFlags:
    """What `cutlint generate cutlass-library`'s command line said."""

    version: str
    archs: str
    kernels: str
    ignore_kernels: str
    exclude_kernels: str
    out: Path | None
    quiet: bool


@click.group(short_help="Write real inputs with a generator's own code.")
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
@quiet_progress
@click.option(
    "--jit-gemm",
    is_flag=True,
    help="Also render the GEMM modules the JIT writes for --sm from the wheel's jinja templates "
    "(generated/gen_gemm_sm90: the segment GEMM; gen_gemm_sm100*, sm103*: dense FP4, FP4 ultra, "
    "FP8, BF16, MXFP8, groupwise, "
    "svdquant; gen_gemm_sm120*: dense FP4, MXFP8, groupwise, svdquant).",
)
def generate_flashinfer(**flags: Any) -> None:
    """Run FlashInfer VERSION's kernel generator (pip download --no-deps flashinfer-python==VERSION;
    no torch) and write its files in FlashInfer's JIT cache layout. Prints the `generated/`
    directory it wrote, for `cutlint check`.

    The wheel is fetched once into cutlint's cache ($CUTLINT_CACHE/wheels; 0.7.x: 62 MB download,
    427 MB unpacked), never into --out; `verify` and `pregen` use the same copy."""
    run_flashinfer(FlashInferFlags(**flags))


def run_flashinfer(flags: FlashInferFlags) -> None:
    from cutlint.cache_dir import generated_dir
    from cutlint.producers.flashinfer.jit_modules import JitRenderError
    from cutlint.producers.flashinfer.wheel import FlashInferError, download_wheel, generate_cache
    from cutlint.report.progress import phased

    version, sm = flags.version, flags.sm
    base = flags.out if flags.out is not None else generated_dir()
    say = progress_say(flags.quiet)
    try:
        with phased(sys.stderr, flags.quiet, f"flashinfer-python {version}", "cutlint: ") as (
            note,
            meter,
        ):
            root = download_wheel(version, progress=note, meter=meter)
        written = generate_cache(root, version, base, sm, flags.cuda)
        rendered: list[Path] = []
        not_built: list[str] = []
        if flags.jit_gemm:
            from cutlint.producers.flashinfer.jit_modules import render_modules

            workspace = written.parents[4]  # <base>/flashinfer/<version>/<archdir>
            rendered = render_modules(
                root, version, base, sm, arch_dir=workspace.name, not_built=not_built
            )
    except (FlashInferError, JitRenderError) as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(USAGE)
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
@quiet_progress
def generate_cutlass_library(**flags: Any) -> None:
    """Run CUTLASS's own generator (`cutlass_library`, from pip download --no-deps
    nvidia-cutlass==VERSION) as CUTLASS's CMake build does for CUTLASS_NVCC_ARCHS=ARCH, and print
    the `generated/` directory it wrote, for `cutlint check`."""
    run_cutlass_library(CutlassLibraryFlags(**flags))


def run_cutlass_library(flags: CutlassLibraryFlags) -> None:
    from cutlint.cache_dir import generated_dir
    from cutlint.producers.cutlass_library.generate import CutlassLibraryError, download, generate
    from cutlint.report.progress import phased

    version, archs = flags.version, flags.archs
    slug = re.sub(r"[^0-9A-Za-z]+", "_", archs).strip("_")
    base = (
        flags.out
        if flags.out is not None
        else generated_dir() / f"cutlass-library-{version}-{slug}"
    )
    say = progress_say(flags.quiet)
    try:
        with phased(sys.stderr, flags.quiet, f"nvidia-cutlass {version}", "cutlint: ") as (
            note,
            meter,
        ):
            root = download(version, note, meter)
        written = generate(
            root, base, archs, flags.kernels, flags.ignore_kernels, flags.exclude_kernels
        )
    except CutlassLibraryError as e:
        click.echo(f"cutlint: {e}", err=True)
        sys.exit(USAGE)
    if say is not None:
        count = sum(1 for _ in written.rglob("*.cu"))
        say(f"wrote {count} files with cutlass_library {version} for {archs}")
    click.echo(str(written))
