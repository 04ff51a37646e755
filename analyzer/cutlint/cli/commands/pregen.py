"""`cutlint pregen`: a generator's operations judged before it writes any file.

Exit codes: 0 none fails, 1 some do, 2 usage error or no generator."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from cutlint.cli.errors import usage_error
from cutlint.cli.options import check_target, progress_say, quiet_progress, text_or_json
from cutlint.exit_codes import FINDINGS, OK


@dataclass(frozen=True)
class FlashInferFlags:
    """What `cutlint pregen flashinfer`'s command line said."""

    fi_version: str | None
    arch: str
    root: Path | None
    wheel_dir: Path | None
    cutlass_version: str | None
    blocklist_path: Path | None
    gpu: str | None
    fmt: str
    show_all: bool
    runners: tuple[str, ...]


@dataclass(frozen=True)
class CutlassLibraryFlags:
    """What `cutlint pregen cutlass-library`'s command line said."""

    arch: str
    architectures: str | None
    kernels: str
    cl_version: str | None
    root: Path | None
    cutlass_version: str | None
    ignore_path: Path | None
    fmt: str
    show_all: bool
    quiet: bool


@click.group(short_help="Validate a generator's operations before it writes any file.")
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
@text_or_json
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
def pregen_flashinfer(**flags: Any) -> None:
    """Run FlashInfer's kernel generator enumeration in-process, write nothing, and report which
    operations, and which of the dense SM120 GEMM runners' tactics, would fail on the target
    arch. Exit 0 none fails, 1 some do, 2 usage error or no generator."""
    run_flashinfer(FlashInferFlags(**flags))


def run_flashinfer(flags: FlashInferFlags) -> None:
    from cutlint import api, output_target
    from cutlint.cache_dir import wheels_dir
    from cutlint.pregen import render
    from cutlint.pregen.run import find_flashinfer, write_blocklist
    from cutlint.producers.flashinfer.wheel import FlashInferError

    root, fi_version, blocklist_path, gpu = (
        flags.root,
        flags.fi_version,
        flags.blocklist_path,
        flags.gpu,
    )
    check_target(flags.arch, flags.cutlass_version)
    try:
        if root is None:
            root, fi_version = find_flashinfer(fi_version, flags.wheel_dir or wheels_dir())
        result = api.pregen_flashinfer(
            version=fi_version,
            arch=flags.arch,
            root=root,
            cutlass_version=flags.cutlass_version,
            runners=flags.runners or None,
        )
    except FlashInferError as e:
        usage_error(str(e))
    click.echo(
        render.render_json(result)
        if flags.fmt == "json"
        else render.render_text(result, flags.show_all),
        nl=False,
    )
    if blocklist_path is not None:
        try:
            write_blocklist(result, root, blocklist_path, gpu)
        except output_target.OutputError as e:
            usage_error(str(e))
        except OSError as e:
            usage_error(f"{blocklist_path}: cannot be written: {e.strerror or e}")
        scope = f"GPU {gpu!r}" if gpu else "any GPU ('*': load it only where this arch runs)"
        click.echo(
            f"wrote {blocklist_path}: {len(result.blocked)} tactic(s), FlashInfer {result.flashinfer_version}, {scope}",
            err=True,
        )
    failing = result.failing or result.failing_gemm_runner_tactics
    sys.exit(FINDINGS if failing else OK)


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
@text_or_json
@click.option("--all", "show_all", is_flag=True, help="List every kernel, not only the failing.")
@quiet_progress
def pregen_cutlass_library(**flags: Any) -> None:
    """Run CUTLASS's own kernel generator enumeration (cutlass_library's manifest, as CMake runs
    it for CUTLASS_NVCC_ARCHS) in-process, write nothing, and judge every kernel it would write
    for the target arch, as `check` judges the written file. Exit 0 none fails, 1 some do, 2
    usage error or no generator."""
    run_cutlass_library(CutlassLibraryFlags(**flags))


def run_cutlass_library(flags: CutlassLibraryFlags) -> None:
    from cutlint import api, output_target
    from cutlint.pregen import render_cutlass_library as render
    from cutlint.pregen.cutlass_library import write_ignore
    from cutlint.producers.cutlass_library.generate import (
        DEFAULT_VERSION,
        CutlassLibraryError,
        download,
    )

    root, cl_version, ignore_path = flags.root, flags.cl_version, flags.ignore_path
    check_target(flags.arch, flags.cutlass_version)
    say = progress_say(flags.quiet)
    try:
        if root is None:
            cl_version = cl_version or DEFAULT_VERSION
            root = download(cl_version, say)
        result = api.pregen_cutlass_library(
            arch=flags.arch,
            architectures=flags.architectures,
            kernels=flags.kernels,
            version=cl_version,
            root=root,
            cutlass_version=flags.cutlass_version,
        )
    except CutlassLibraryError as e:
        usage_error(str(e))
    click.echo(
        render.render_json(result)
        if flags.fmt == "json"
        else render.render_text(result, flags.show_all),
        nl=False,
    )
    if ignore_path is not None:
        try:
            write_ignore(result, ignore_path)
        except output_target.OutputError as e:
            usage_error(str(e))
        except OSError as e:
            usage_error(f"{ignore_path}: cannot be written: {e.strerror or e}")
        click.echo(
            f"wrote {ignore_path}: {len(result.exclusion)} name(s) skipping "
            f"{len(result.failing) - len(result.withheld)} failing kernel(s)",
            err=True,
        )
    sys.exit(FINDINGS if result.failing else OK)
