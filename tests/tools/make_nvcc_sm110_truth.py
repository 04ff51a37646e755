"""Compiler truth for Jetson Thor (sm_110): `cutlint verify --arch sm_110` of files of a Thor
cache as FlashInfer writes it (`cutlint generate flashinfer VER --sm 110`:
`110a/generated/cutlass_instantiations/100/gemm_grouped/100/`), which the probe compiles with the
SM100 module's defines and `-gencode=arch=compute_110a,code=sm_110a` (verify.probe_flags.for_device).
Each file is verified on its own (one nvcc at a time); its rows are appended to
tests/data/nvcc_sm100_sm110_truth.json, which tests/families/test_sm100_thor.py holds the model to.

Run from the worktree root:
    nice -n 10 .venv/bin/python tests/tools/make_nvcc_sm110_truth.py 0.6.3 FILE_NAME [...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cutlint.producers.flashinfer.wheel import cache_dir, download_wheel, generate_cache

ROOT = Path(__file__).parents[2]
TRUTH = ROOT / "tests" / "data" / "nvcc_sm100_sm110_truth.json"
COLUMNS = [
    "version",
    "file",
    "line",
    "args",
    "stages",
    "mainloop_smem",
    "epilogue_smem",
    "kernel_smem",
    "kernel_align",
    "max_threads_per_block",
    "agree",
    "compile_seconds",
]
ABOUT = (
    "nvcc's numbers for Sm100 grouped MoE calls of FlashInfer Jetson Thor caches "
    "(`cutlint generate flashinfer VER --sm 110`: 110a/generated/cutlass_instantiations/100/"
    "gemm_grouped/100), from `cutlint verify FILE --arch sm_110 --format json` (the "
    "tma-ws-moe-launcher probe, the SM100 module's defines, "
    "-gencode=arch=compute_110a,code=sm_110a), one file at a time: "
    "tests/tools/make_nvcc_sm110_truth.py"
)


def load() -> dict[str, Any]:
    if TRUTH.is_file():
        data: dict[str, Any] = json.loads(TRUTH.read_text())
        return data
    return {"about": ABOUT, "columns": COLUMNS, "rows": []}


def rows_of(verify_json: dict[str, Any], version: str, seconds: float) -> list[list[Any]]:
    out = []
    for i in verify_json["instantiations"]:
        if i["status"] == "skipped" or i["stages"] is None:
            continue
        out.append(
            [
                version,
                Path(i["path"]).name,
                i["line"],
                ",".join(i["args"]),
                i["stages"],
                i["mainloop_smem_bytes"],
                i["epilogue_smem_bytes"],
                i["smem_bytes"],
                i["smem_align"],
                i["max_threads_per_block"],
                i["agree"],
                seconds,
            ]
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("version")
    ap.add_argument("files", nargs="+", help="file names under gemm_grouped/100")
    opts = ap.parse_args(argv)
    root = download_wheel(opts.version)
    data = load()
    with tempfile.TemporaryDirectory(prefix="cutlint-thor-") as tmp:
        generate_cache(root, opts.version, Path(tmp), 110)
        leaf = cache_dir(Path(tmp), opts.version, 110) / "gemm_grouped" / "100"
        for name in opts.files:
            done = subprocess.run(
                [
                    sys.executable, "-m", "cutlint", "verify", str(leaf / name),
                    "--arch", "sm_110", "--headers", str(root), "--jobs", "1",
                    "--format", "json", "--no-cache", "-q",
                ],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            got = json.loads(done.stdout)
            seconds = got["summary"]["compile_seconds"]
            new = rows_of(got, opts.version, seconds)
            keep = [r for r in data["rows"] if (r[0], r[1]) != (opts.version, name)]
            data["rows"] = keep + new
            print(f"{name}: {len(new)} rows, {seconds} s", file=sys.stderr)
            TRUTH.write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
