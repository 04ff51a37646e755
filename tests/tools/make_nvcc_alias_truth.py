"""Compiler truth for kernels defined by `using` chains: nvcc's numbers (cutlint.verify.alias_probe)
for the kernel files a family samples from a real cutlass_library build.

    .venv/bin/cutlint generate cutlass-library --arch 120a --out /tmp/cl/g120
    nice -n 10 .venv/bin/python tests/tools/make_nvcc_alias_truth.py \
        --build /tmp/cl/g120/generated --arch 120a --out tests/data/nvcc_<family>_truth.json \
        FILE_OR_GLOB [FILE_OR_GLOB ...]

FILE_OR_GLOB is relative to --build (`gemm/80/*/cutlass_tensorop_h16816gemm_*_128x128_32x3_*`).
Rows are written with paths relative to the build's `generated/`, so a test can map them back to
a fresh build made by the same generator version.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cutlint.producers.cutlass_library.generate import DEFAULT_VERSION, download
from cutlint.verify.alias_probe import probe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, required=True, help="the build's generated/ directory")
    ap.add_argument("--arch", default="120a")
    ap.add_argument("--version", default=DEFAULT_VERSION, help="nvidia-cutlass version")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    files = sorted({p for pattern in args.files for p in args.build.glob(pattern) if p.is_file()})
    if not files:
        print("no files matched", file=sys.stderr)
        return 2
    source = download(args.version) / "cutlass_library" / "source"
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        rows, failures = probe(
            files, source, Path(tmp), args.arch, batch=args.batch, progress=lambda m: print(m)
        )
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    build = args.build.resolve()
    for row in rows:
        row["file"] = str(Path(str(row["file"])).resolve().relative_to(build))
    out = {
        "about": "nvcc's numbers for cutlass_library kernels (cutlint.verify.alias_probe), made by "
        "tests/tools/make_nvcc_alias_truth.py",
        "nvidia_cutlass": args.version,
        "arch": args.arch,
        "nvcc": nvcc.strip().splitlines()[-1] if nvcc else "",
        "command": " ".join(sys.argv[1:]),
        "rows": rows,
        "compile_errors": [
            {"file": str(f.path.resolve().relative_to(build)), "error": f.error} for f in failures
        ],
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    took = time.monotonic() - started
    print(f"{len(rows)} rows, {len(failures)} compile errors, {took:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
