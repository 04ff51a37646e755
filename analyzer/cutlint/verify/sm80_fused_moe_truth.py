"""The committed compiler truth of the SM80 fused-MoE family (tests/data/nvcc_sm80_fused_moe_truth.json).

    python -m cutlint.verify.sm80_fused_moe_truth --out tests/data/nvcc_sm80_fused_moe_truth.json

Per FlashInfer release: FlashInfer's own generator writes an SM120 cache
(`generate_gemm_operations(out, "120;120-real")`, as its JIT does), and the release's
`gemm_grouped/80` files are probed in one compile (cutlint.verify.sm80_fused_moe_probe). Rows that
are equal in every release (same file, line, arguments and numbers) are written once, with the
releases they hold for.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cutlint.producers.flashinfer.wheel import download_wheel, generate_cache
from cutlint.verify.probe_build import run_step
from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.sm80_fused_moe_probe import run_probe, spec

RELEASES = ("0.6.3", "0.7.2.post1", "0.7.4")

ABOUT = (
    "Compiler truth: {nvcc}, host-only probe (cutlint.verify.sm80_fused_moe_probe; written by"
    " `python -m cutlint.verify.sm80_fused_moe_truth --out FILE`) on the gemm_grouped/80 files"
    " that FlashInfer's own generator writes into an SM120 cache (generate_gemm_operations(out,"
    " '120;120-real')): all files of a release compiled in one translation unit against a patched"
    " copy of the release's fused_moe_gemm_launcher_sm80.inl (kept byte for byte up to `using"
    " GemmType = ...;`), with the SM120 fused-MoE module's flags (runs.*.flags). One row per"
    " explicit instantiation: smem_size = GemmType::kSmemSize (the launcher's smem_size),"
    " threads_per_block = GemmType::kThreadCount, members = the traits' constants and the"
    " sizeof/alignof and member offsets/sizes of BaseKernelTraits::SharedStorage ('base.') and"
    " BaseKernelTraits_m16::SharedStorage ('m16.'). Rows equal in several releases are written"
    " once, with `versions`."
)


def _cutlass_version(tree: FlashInferTree) -> str:
    text = (tree.data / "cutlass" / "include" / "cutlass" / "version.h").read_text()
    parts = [re.search(rf"#define CUTLASS_{k} (\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m[1] if m else "?" for m in parts)


def probe_release(
    version: str, downloads: Path, nvcc: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One release: how it was probed, and its rows."""
    root = download_wheel(version, downloads)
    tree = FlashInferTree(root)
    with tempfile.TemporaryDirectory(prefix="cutlint-sm80-gen-") as gen:
        grouped120 = generate_cache(root, version, Path(gen))
        files = sorted((grouped120.parent.parent / "gemm_grouped" / "80").glob("*.generated.cu"))
        run = run_probe(files, root, nvcc)
    info = {
        "cutlass": _cutlass_version(tree),
        "launcher_md5": hashlib.md5(
            (tree.nv_internal / spec().SM80_LAUNCHER_REL).read_bytes()
        ).hexdigest(),
        "files": len(files),
        "seconds": round(run.seconds, 1),
        "flags": [a for a in run.command[1:] if a.startswith(("-D", "-std", "-gencode"))],
    }
    rows = [
        {
            "file": Path(r.path).name,
            "line": r.line,
            "args": list(r.args),
            "smem_size": r.smem_size,
            "threads_per_block": r.threads_per_block,
            "members": r.members,
        }
        for r in run.rows
    ]
    return info, rows


def merge(per_release: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per distinct (file, line, args, numbers), with the releases that have it."""
    out: dict[str, dict[str, Any]] = {}
    for version, rows in per_release.items():
        for row in rows:
            key = json.dumps(row, sort_keys=True)
            out.setdefault(key, {"versions": [], **row})["versions"].append(version)
    return list(out.values())


def nvcc_version(nvcc: str) -> str:
    lines = run_step([nvcc, "--version"], "nvcc --version").stdout.splitlines()
    return next((ln.strip() for ln in lines if "release" in ln), lines[-1].strip())


def render(about: str, runs: dict[str, Any], rows: Sequence[dict[str, Any]]) -> str:
    """The file: a readable head, one row per line."""
    head = json.dumps({"about": about, "runs": runs}, indent=1)[:-2]
    body = ",\n  ".join(json.dumps(r) for r in rows)
    return head + ',\n "rows": [\n  ' + body + "\n ]\n}\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--versions", nargs="+", default=list(RELEASES))
    parser.add_argument("--downloads", type=Path, default=Path.home() / ".cache" / "cutlint-tests")
    parser.add_argument("--nvcc", default="nvcc")
    args = parser.parse_args(argv)
    runs: dict[str, Any] = {}
    per_release: dict[str, list[dict[str, Any]]] = {}
    for version in args.versions:  # one compile at a time
        runs[version], per_release[version] = probe_release(version, args.downloads, args.nvcc)
    about = ABOUT.format(nvcc=nvcc_version(args.nvcc))
    args.out.write_text(render(about, runs, merge(per_release)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
