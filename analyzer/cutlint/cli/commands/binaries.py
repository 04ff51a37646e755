"""`cutlint binaries`: registers, stack and occupancy of the kernels a build produced."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click


@dataclass(frozen=True)
class BinariesFlags:
    """What `cutlint binaries`' command line said."""

    paths: tuple[Path, ...]
    arch: str
    threads: int | None
    dynamic_smem: int
    ptxas_log: Path | None
    fmt: str


@click.command("binaries", short_help="Registers, stack and occupancy read from built binaries.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--arch", default="sm_90", show_default=True, help="The GPU the kernels run on.")
@click.option(
    "--threads", type=click.IntRange(1, 1 << 20), default=None,
    help="Threads a block, for kernels without __launch_bounds__.",
)  # fmt: skip
@click.option(
    "--dynamic-smem", type=click.IntRange(0, 1 << 30), default=0, show_default=True,
    help="Dynamic shared memory a block (bytes), for the occupancy.",
)  # fmt: skip
@click.option(
    "--ptxas-log", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
    help="ptxas -v output of the same build: spill stores and loads per kernel.",
)  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def binaries(**flags: Any) -> None:
    """Read the kernels' registers, stack frame, static shared memory and launch bounds from
    cubins, objects, shared libraries or directories of them, and say which cannot launch."""
    run(BinariesFlags(**flags))


def run(flags: BinariesFlags) -> None:
    from cutlint.binaries import ptxas
    from cutlint.binaries.judge import judge
    from cutlint.binaries.read import read_paths
    from cutlint.model.arch import arch_for

    paths, arch, ptxas_log = flags.paths, flags.arch, flags.ptxas_log
    try:
        target = arch_for(arch)
    except KeyError:
        raise click.UsageError(f"unknown --arch {arch!r}") from None
    logged = {}
    if ptxas_log is not None:
        from cutlint.inputs import LOG, read_text

        logged = {k.name: k for k in ptxas.parse(read_text(ptxas_log, LOG))}
    reading = read_paths(paths)
    verdicts = judge(reading.kernels, target, flags.threads, flags.dynamic_smem, logged)
    if flags.fmt == "json":
        out = {
            "arch": target.name,
            "files": reading.files,
            "problems": [{"path": p, "reason": r} for p, r in reading.problems],
            "kernels": [
                {
                    "path": v.image.path,
                    "origin": v.image.origin,
                    **{f: getattr(v.image.kernel, f) for f in v.image.kernel.__slots__},
                    "threads": v.threads,
                    "spills": (
                        {"stores": logged[v.image.kernel.name].spill_stores,
                         "loads": logged[v.image.kernel.name].spill_loads}
                        if v.image.kernel.name in logged else None
                    ),
                    "occupancy": v.occupancy.model_dump(mode="json") if v.occupancy else None,
                    "findings": [d.model_dump(mode="json") for d in v.diagnostics],
                }
                for v in verdicts
            ],
        }  # fmt: skip
        click.echo(json.dumps(out, indent=1))
    else:
        for v in verdicts:
            k = v.image.kernel
            bounds = "x".join(map(str, k.max_threads)) if k.max_threads else "-"
            occ = "?" if v.occupancy is None else str(v.occupancy.blocks_per_sm)
            click.echo(
                f"{v.image.path}: sm_{k.sm} {k.name[:100]}  REG {k.registers} (cap {k.register_cap})"
                f"  frame {k.frame_size} B  static smem {k.static_smem} B  bounds {bounds}"
                f"  threads {v.threads or '?'}  blocks/SM {occ}"
            )
            for d in v.diagnostics:
                click.echo(f"  {d.severity.value} {d.rule} {d.name}: {d.message}")
        for p, r in reading.problems:
            click.echo(f"{p}: {r}", err=True)
        n = sum(len(v.diagnostics) for v in verdicts)
        click.echo(
            f"{len(verdicts)} kernels in {reading.files} files: {n} findings on {target.name}"
        )
    if reading.problems:
        sys.exit(2)
    sys.exit(1 if any(v.diagnostics for v in verdicts) else 0)
