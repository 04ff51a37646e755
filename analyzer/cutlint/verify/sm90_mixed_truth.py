"""The committed compiler truth of the SM90 fpA_intB family (tests/data/nvcc_sm90_mixed_gemm_truth.json).

    python -m cutlint.verify.sm90_mixed_truth --out tests/data/nvcc_sm90_mixed_gemm_truth.json

Per FlashInfer release: FlashInfer's own generator writes an SM90 cache
(`generate_gemm_operations(out, "90;90-real")`, as its JIT does), and a stratified sample of the
release's `gemm/90` files is probed in one compile (cutlint.verify.sm90_mixed_probe): the fewest
files (greedy) whose instantiations hold every tile/cluster/schedule combination and every
activation/weight/scale/output/quantization combination of the release (`--files N` caps it).
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cutlint.producers.flashinfer.wheel import download_wheel, generate_cache
from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.sm80_fused_moe_truth import _cutlass_version, merge, nvcc_version, render
from cutlint.verify.sm90_mixed_probe import run_probe, spec

RELEASES = ("0.7.4", "0.6.3")

ABOUT = (
    "Compiler truth: {nvcc}, host-only probe (cutlint.verify.sm90_mixed_probe; written by"
    " `python -m cutlint.verify.sm90_mixed_truth --out FILE`) on a stratified sample of the gemm/90"
    " files that FlashInfer's own generator writes into an SM90 cache (the fewest files holding"
    " every tile/cluster/schedule and every type/quantization combination), compiled in one"
    " translation unit against a patched copy of the release's fpA_intB_launcher_sm90.inl (kept"
    " byte for byte up to `using GemmKernel = ...;`), with the SM90 fused-MoE module's flags"
    " (runs.*.flags, COMPILE_HOPPER_TMA_GEMMS defined). One row per explicit instantiation:"
    " stages = CollectiveMainloop::DispatchPolicy::Stages, mainloop_size / epilogue_size ="
    " sizeof(Collective{Mainloop,Epilogue}::SharedStorage), smem_size ="
    " GemmKernel::SharedStorageSize, max_threads_per_block = GemmKernel::MaxThreadsPerBlock,"
    " members = the mainloop TensorStorage's sizeof/alignof and member offsets/sizes. Rows equal"
    " in several releases are written once, with `versions`."
)

ABOUT_MOE = (
    "Compiler truth: {nvcc}, host-only probe (cutlint.verify.sm90_mixed_probe, moe=True; written by"
    " `python -m cutlint.verify.sm90_mixed_truth --moe --out FILE`) on gemm_grouped/90 *_Mixed_*"
    " files that FlashInfer's own generator writes into an SM90 cache (runs.*.files), compiled in"
    " one translation unit against a patched copy of the release's"
    " moe_gemm_tma_ws_mixed_input_launcher.inl (kept byte for byte up to `using GemmGrouped ="
    " ...;` in sm90_generic_mixed_moe_gemm_kernelLauncher_impl, or in the launcher itself in 0.6.x),"
    " with the SM90 fused-MoE module's"
    " flags (runs.*.flags). One row per explicit instantiation, the numbers as for the fpA_intB"
    " truth (nvcc_sm90_mixed_gemm_truth.json). Rows equal in several releases are written once,"
    " with `versions`."
)


def stratified(files: Sequence[Path], limit: int | None = None, moe: bool = False) -> list[Path]:
    """The fewest files (greedy) covering every tile/cluster/schedule key and every type key."""
    cover: dict[Path, tuple[set[tuple[object, ...]], set[tuple[object, ...]]]] = {}
    names = spec().MOE_LAUNCHER_NAMES if moe else (spec().LAUNCHER_NAME,)
    split = 4 if moe else 6
    for f in files:
        of_args = spec().moe_key_of_args if moe else spec().key_of_args
        keys = [of_args(s.args) for s in spec().instantiation_sites([f], names)]
        cover[f] = ({k[split:] for k in keys}, {k[:split] for k in keys})
    need_shape = set().union(*(c[0] for c in cover.values()))
    need_type = set().union(*(c[1] for c in cover.values()))
    chosen: list[Path] = []
    while (need_shape or need_type) and (limit is None or len(chosen) < limit):
        best = max(
            files, key=lambda f: len(cover[f][0] & need_shape) + len(cover[f][1] & need_type)
        )
        chosen.append(best)
        need_shape -= cover[best][0]
        need_type -= cover[best][1]
    return chosen


def probe_release(
    version: str,
    downloads: Path | None,
    nvcc: str,
    limit: int | None,
    moe: bool = False,
    named: Sequence[str] = (),
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One release: how it was probed, and its rows."""
    root = download_wheel(version, downloads)
    tree = FlashInferTree(root)
    with tempfile.TemporaryDirectory(prefix="cutlint-sm90-mixed-gen-") as gen:
        grouped = generate_cache(root, version, Path(gen), sm=90)
        if moe:
            all_files = sorted(grouped.glob("*_Mixed_*.generated.cu"))
        else:
            all_files = sorted((grouped.parent.parent / "gemm" / "90").glob("*.generated.cu"))
        if named:
            files = [f for f in all_files if f.name in named]
        else:
            files = stratified(all_files, limit, moe)
        run = run_probe(files, root, nvcc, moe=moe)
    info = {
        "cutlass": _cutlass_version(tree),
        "launcher_md5": hashlib.md5(
            (
                tree.nv_internal / (spec().MOE_LAUNCHER_REL if moe else spec().LAUNCHER_REL)
            ).read_bytes()
        ).hexdigest(),
        "files": [f.name for f in files],
        "seconds": round(run.seconds, 1),
        "flags": [a for a in run.command[1:] if a.startswith(("-D", "-std", "-gencode"))],
    }
    rows = [
        {
            "file": Path(r.path).name,
            "line": r.line,
            "args": list(r.args),
            "stages": r.stages,
            "mainloop_size": r.mainloop_size,
            "epilogue_size": r.epilogue_size,
            "smem_size": r.smem_size,
            "max_threads_per_block": r.max_threads_per_block,
            "members": r.members,
        }
        for r in run.rows
    ]
    return info, rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--versions", nargs="+", default=list(RELEASES))
    parser.add_argument("--files", type=int, nargs="+", default=[], help="file cap per release")
    parser.add_argument("--downloads", type=Path, default=None)
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--moe", action="store_true", help="the mixed-input MoE launchers")
    parser.add_argument("--named", nargs="*", default=[], help="these generated files only")
    args = parser.parse_args(argv)
    runs: dict[str, Any] = {}
    per_release: dict[str, list[dict[str, Any]]] = {}
    for i, version in enumerate(args.versions):  # one compile at a time
        limit = args.files[i] if i < len(args.files) else None
        runs[version], per_release[version] = probe_release(
            version, args.downloads, args.nvcc, limit, args.moe, args.named
        )
    about = (ABOUT_MOE if args.moe else ABOUT).replace("{nvcc}", nvcc_version(args.nvcc))
    args.out.write_text(render(about, runs, merge(per_release)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
