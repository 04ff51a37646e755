"""Regenerate tests/data/nvcc_sm90_truth.json: nvcc's numbers for every Sm90 instantiation of
FlashInfer's generated `gemm_grouped/90` files.

    python tests/tools/make_nvcc_sm90_truth.py [--work DIR] [VERSION ...]

For each release (default 0.6.3, 0.7.2.post1, 0.7.4) it runs FlashInfer's own generator as the
SM90 JIT does (`generate_gemm_operations(out, "90;90-real")`), then compiles every file that holds
`INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90, ...)` calls with the nvcc probe
(cutlint.verify.nvcc_probe.run_probe, the backend of `cutlint verify`) against the launcher and
headers of the same wheel, one file at a time. The `_Mixed` files hold explicit mixed-input
launcher instantiations, which are another family and are skipped. Progress is appended to
`<work>/progress.jsonl`, so an interrupted run resumes where it stopped. Run it under `nice`:
one file takes 1.5-3 minutes and ~1.9 GB on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from cutlint.verify.flashinfer import download_wheel, generate_cache
from cutlint.verify.macro_calls import find_macro_calls
from cutlint.verify.nvcc_probe import ProbeError, run_probe

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


def nvcc_version() -> str:
    text = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    return text.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("versions", nargs="*", default=list(VERSIONS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/cutlint-sm90-truth"))
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache" / "cutlint-tests")
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
        for path in sm90_files(directory):
            if (version, path.name) in done:
                continue
            t0 = time.monotonic()
            try:
                run = run_probe(path, root, "nvcc", workdir=opts.work / "build", keep_build=False)
                rows, error = run.rows, None
            except ProbeError as e:
                rows, error = e.rows, str(e)[-2000:]
            seconds = round(time.monotonic() - t0, 1)
            rec = {
                "version": version,
                "file": path.name,
                "seconds": seconds,
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
    write_truth(progress)


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
        + ", each compiled against the launcher and headers of the same wheel, one file at a "
        "time. Made by tests/tools/make_nvcc_sm90_truth.py. One row per "
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm90, ...) instantiation, with the probe's "
        f"ProbeRow fields. {len(recs)} files, {len(rows)} rows; "
        f"{min(seconds, default=0)}-{max(seconds, default=0)} s per file on a shared 2-core "
        "machine."
    )
    OUT.write_text(json.dumps({"about": about, "rows": rows}, indent=1) + "\n")
    print(f"wrote {OUT}: {len(rows)} rows")


if __name__ == "__main__":
    main()
