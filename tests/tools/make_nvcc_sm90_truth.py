"""Regenerate tests/data/nvcc_sm90_truth.json: nvcc's numbers for every Sm90 instantiation of
FlashInfer's generated `gemm_grouped/90` files.

    python tests/tools/make_nvcc_sm90_truth.py [--work DIR] [--batch N] [VERSION ...]

For each release (default 0.6.3, 0.7.2.post1, 0.7.4) it runs FlashInfer's own generator as the
SM90 JIT does (`generate_gemm_operations(out, "90;90-real")`), then compiles every file that holds
`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90, ...)` calls with the nvcc probe
(cutlint.verify.nvcc_probe.run_probe, the backend of `cutlint verify`) against the launcher and
headers of the same wheel, one compile at a time. The `_Mixed` files hold explicit mixed-input
launcher instantiations, which are another family and are skipped. Progress is appended to
`<work>/progress.jsonl`, so an interrupted run resumes where it stopped. Run it under `nice`.

On a shared 2-core machine one file alone takes 4-5 minutes and 1.9 GB, most of it parsing and
instantiating the headers, which every file repeats. `--batch N` compiles N files in one
translation unit that `#include`s each of them unchanged (probe_batch): same types, same
`__LINE__`s, the header cost paid once (3 files: 378 s and 2.1 GB instead of ~780 s).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from cutlint.families.probe import normalize_arg
from cutlint.producers.flashinfer.wheel import download_wheel, generate_cache
from cutlint.verify import cublas
from cutlint.verify.nvcc_probe import ProbeError, ProbeRow, patch_launcher, run_probe
from cutlint.verify.probe_build import run_step, support_objects
from cutlint.verify.probe_flags import (
    LAUNCHER_REL,
    SM90_TARGET,
    FlashInferTree,
    compile_flags,
    extra_system_includes,
)
from cutlint.verify.probe_output import match_rows, parse_output
from cutlint.verify.probe_output import moe_macro_calls as find_macro_calls

VERSIONS = ("0.6.3", "0.7.2.post1", "0.7.4")
CUTLASS = {"0.6.3": "4.2.1", "0.7.2.post1": "4.5.0", "0.7.4": "4.5.0"}
OUT = Path(__file__).resolve().parents[1] / "data" / "nvcc_sm90_truth.json"


def sm90_files(directory: Path) -> list[Path]:
    files = []
    for path in sorted(directory.glob("*.generated.cu")):
        calls = find_macro_calls(path.read_text())
        if calls and all(c.args[0].strip() == "Sm90" for c in calls):
            files.append(path)
    return files


def probe_batch(files: list[Path], root: Path, work: Path) -> dict[Path, list[ProbeRow]]:
    """The nvcc probe of several generated files in one translation unit: a wrapper that
    `#include`s each file as it is (so `__LINE__` is still the file's own line), compiled, linked
    and run exactly as run_probe does one file. The header cost is paid once instead of per file;
    every record is paired with its own file's macro call (probe_output.match_rows)."""
    tree = FlashInferTree(root)
    job = work / f"batch-{files[0].stem.split('.')[0]}-{len(files)}"
    overlay = job / "overlay"
    patched = overlay / LAUNCHER_REL
    patched.parent.mkdir(parents=True, exist_ok=True)
    patched.write_text(patch_launcher(tree.launcher.read_text(), tree.launcher))
    includes = [*extra_system_includes("nvcc"), cublas.write_shim(work / "cublas-shim")]
    flags = compile_flags(tree, overlay, files[0].parent, includes, SM90_TARGET)
    wrapper = job / "batch.cu"
    wrapper.write_text("".join(f'#include "{f}"\n' for f in files))
    support = support_objects(tree, "nvcc", work, includes)
    run_step(["nvcc", *flags, "-c", str(wrapper), "-o", str(job / "probe.o")], "compiling batch")
    exe = job / "probe"
    run_step(
        ["nvcc", SM90_TARGET.gencode, "-o", str(exe), str(job / "probe.o"), *map(str, support)],
        "linking",
    )
    records = parse_output(run_step([str(exe)], "running probe", cwd=job).stdout)
    out: dict[Path, list[ProbeRow]] = {}
    for f in files:
        calls = find_macro_calls(f.read_text())
        keys = {c.args for c in calls}
        mine = [r for r in records if printed_args(r) in keys]
        out[f] = match_rows(f, calls, mine)
    return out


def printed_args(record: dict[str, object]) -> tuple[str, ...]:
    raw = record.get("args")
    return tuple(normalize_arg(str(a)) for a in raw) if isinstance(raw, list) else ()


def nvcc_version() -> str:
    """`nvcc 13.0.88 (cuda_13.0.r13.0/compiler.36424714_0)` from `nvcc --version`."""
    text = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    release = re.search(r"release [\d.]+, V([\d.]+)", text)
    build = re.search(r"Build (\S+)", text)
    return f"nvcc {release[1] if release else '?'} ({build[1] if build else '?'})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("versions", nargs="*", default=list(VERSIONS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/cutlint-sm90-truth"))
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache" / "cutlint-tests")
    parser.add_argument(
        "--batch",
        type=int,
        default=1,
        help="files per translation unit (probe_batch); 1: run_probe",
    )
    opts = parser.parse_args()
    opts.work.mkdir(parents=True, exist_ok=True)
    progress = opts.work / "progress.jsonl"
    done = set()
    if progress.is_file():
        for line in progress.read_text().splitlines():
            rec = json.loads(line)
            done.add((rec["version"], rec["file"]))
    for version in opts.versions:
        root = download_wheel(version, opts.wheels)
        directory = generate_cache(root, version, opts.work / "gen", sm=90)
        todo = [p for p in sm90_files(directory) if (version, p.name) not in done]
        for start in range(0, len(todo), opts.batch):
            batch = todo[start : start + opts.batch]
            t0 = time.monotonic()
            results: dict[Path, tuple[list[ProbeRow], str | None]] = {}
            try:
                if len(batch) == 1:
                    run = run_probe(
                        batch[0], root, "nvcc", workdir=opts.work / "build", keep_build=False
                    )
                    results[batch[0]] = (list(run.rows), None)
                else:
                    for f, rows in probe_batch(batch, root, opts.work / "build").items():
                        results[f] = (rows, None)
            except ProbeError as e:
                for f in batch:
                    results[f] = (list(e.rows), str(e)[-2000:])
            seconds = round(time.monotonic() - t0, 1)
            for path, (rows, error) in results.items():
                record(progress, version, path, rows, error, seconds, len(batch))
    write_truth(progress)


def record(
    progress: Path,
    version: str,
    path: Path,
    rows: list[ProbeRow],
    error: str | None,
    seconds: float,
    batch: int,
) -> None:
    rec = {
        "version": version,
        "file": path.name,
        "seconds": seconds,
        "batch": batch,
        "error": error,
        "rows": [
            {
                "version": version,
                "file": path.name,
                "line": r.line,
                "args": list(r.args),
                "stages": r.stages,
                "mainloop_smem": r.mainloop_smem,
                "epilogue_smem": r.epilogue_smem,
                "kernel_smem": r.kernel_smem,
                "kernel_align": r.kernel_align,
                "max_threads_per_block": r.max_threads_per_block,
                "members": r.members,
            }
            for r in rows
        ],
    }
    with progress.open("a") as f:
        f.write(json.dumps(rec) + "\n")
    print(f"{version} {path.name}: {len(rows)} rows, {seconds} s, error={bool(error)}")
    sys.stdout.flush()


def write_truth(progress: Path) -> None:
    recs = [json.loads(line) for line in progress.read_text().splitlines()]
    rows = [row for rec in recs for row in rec["rows"]]
    order = {v: i for i, v in enumerate(VERSIONS)}
    rows.sort(key=lambda r: (order.get(r["version"], 99), r["file"], r["line"]))
    seconds = [rec["seconds"] for rec in recs if not rec["error"]]
    about = (
        f"Compiler truth: {nvcc_version()}, host-only probe (cutlint.verify.nvcc_probe.run_probe, "
        "the backend of `cutlint verify`, with FlashInfer's SM90 fused-MoE module flags: "
        "cutlint.verify.probe_flags.SM90_TARGET), on the real gemm_grouped/90 files that "
        "FlashInfer's own generator writes (generate_gemm_operations(out, '90;90-real')) for "
        + ", ".join(f"flashinfer-python {v} (CUTLASS {CUTLASS[v]})" for v in VERSIONS)
        + ", each compiled against the launcher and headers of the same wheel, one compile at a "
        "time (single files, or up to 9 files included unchanged into one translation unit: `files` "
        "gives each file's batch size and the seconds of its compile). Made by "
        "tests/tools/make_nvcc_sm90_truth.py. One row per "
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90, ...) instantiation, with the probe's "
        f"ProbeRow fields. {len(recs)} files, {len(rows)} rows; "
        f"{min(seconds, default=0)}-{max(seconds, default=0)} s per compile on a 2-core "
        "machine shared with other builds."
    )
    files = [
        {k: rec.get(k, 1) for k in ("version", "file", "batch", "seconds")}
        for rec in sorted(recs, key=lambda r: (order.get(r["version"], 99), r["file"]))
    ]
    # One row per line: the file stays diffable without a line per member.
    lines = [json.dumps(row) for row in rows]
    OUT.write_text(
        "{\n"
        f' "about": {json.dumps(about)},\n'
        f' "files": {json.dumps(files)},\n'
        ' "rows": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    )
    print(f"wrote {OUT}: {len(rows)} rows")


if __name__ == "__main__":
    main()
