"""The committed compiler truth of MoeGemmRunner's CUTLASS 2.x grouped kernels
(tests/data/nvcc_sm8x_grouped_truth.json).

    python -m cutlint.verify.sm8x_grouped_truth --out tests/data/nvcc_sm8x_grouped_truth.json

The kernels are every distinct (type, output, arch tag, tile, warp, stages) of the runner's tactics
on the sms the family covers (runners/sm8x_grouped/tactics.py), with f16 and bf16 output.
Releases whose inputs are byte-identical (the dispatch header, FlashInfer's CUTLASS extensions and
the vendored CUTLASS headers: `inputs_digest`) are compiled once; every row lists the releases it
holds for.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cutlint.producers.flashinfer.wheel import download_wheel
from cutlint.runners.sm8x_grouped.tactics import RunnerKind, runner_tactics, supported_sms
from cutlint.verify.probe_flags import FlashInferTree
from cutlint.verify.sm8x_grouped_probe import DISPATCH_REL, GroupedConfig, run_probe
from cutlint.verify.sm80_fused_moe_truth import merge, nvcc_version, render

RELEASES = ("0.6.3", "0.6.4", "0.7.2.post1", "0.7.4")

ABOUT = (
    "Compiler truth: {nvcc}, host-only probe (cutlint.verify.sm8x_grouped_probe; written by"
    " `python -m cutlint.verify.sm8x_grouped_truth --out FILE`): a patched copy of the release's"
    " moe_gemm_template_dispatch.h, kept byte for byte up to `using GemmGrouped = ...;` inside"
    " genericMoeGemmKernelLauncher::call, and a driver that calls call<T, T, Out, SmXX,"
    " UNDEFINED, EpilogueOpDefault, ThreadblockShape, WarpShape, Stages> on the host for every"
    " distinct kernel of MoeGemmRunner's Ampere-style tactics (FP8 x FP8 through Sm89, f16/bf16"
    " through Sm80), compiled with the SM120 fused-MoE module's flags. kernel_smem ="
    " sizeof(GemmKernel::SharedStorage) (base_grouped.h maximum_active_blocks' smem_size),"
    " threads_per_block = GemmKernel::kThreadCount; members: the Mma and Epilogue SharedStorage"
    " sizes, shapes and offsets. Releases with byte-identical inputs (runs.*.inputs_digest) were"
    " compiled once."
)


def configs() -> list[GroupedConfig]:
    """Every distinct kernel of the runner's tactics, in a stable order."""
    seen: dict[GroupedConfig, None] = {}
    for kind in (RunnerKind.FP8, RunnerKind.F16, RunnerKind.BF16):
        outputs = ("f16", "bf16") if kind is RunnerKind.FP8 else (kind.value,)
        for sm in supported_sms(kind):
            for t in runner_tactics(sm, kind):
                tb, w = t.config.tile.threadblock, t.config.tile.warp
                for out in outputs:
                    c = GroupedConfig(
                        kind.value,
                        out,
                        t.arch_tag,
                        (tb.m, tb.n, tb.k),
                        (w.m, w.n, w.k),
                        t.config.stages,
                    )
                    seen.setdefault(c, None)
    return list(seen)


def inputs_digest(tree: FlashInferTree) -> str:
    """sha256 over the files that decide the kernels' types."""
    h = hashlib.sha256()
    roots = [
        tree.nv_internal / DISPATCH_REL,
        tree.nv_internal / "tensorrt_llm" / "cutlass_extensions",
        tree.nv_internal / "tensorrt_llm" / "kernels" / "cutlass_kernels" / "include",
        tree.data / "cutlass" / "include",
    ]
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for f in files:
            h.update(str(f.relative_to(tree.root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--versions", nargs="+", default=list(RELEASES))
    parser.add_argument("--downloads", type=Path, default=Path.home() / ".cache" / "cutlint-tests")
    parser.add_argument("--nvcc", default="nvcc")
    args = parser.parse_args(argv)
    todo = configs()
    runs: dict[str, Any] = {}
    per_release: dict[str, list[dict[str, Any]]] = {}
    by_digest: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for version in args.versions:  # one compile at a time
        tree = FlashInferTree(download_wheel(version, args.downloads))
        digest = inputs_digest(tree)
        if digest in by_digest:
            first, rows = by_digest[digest]
            runs[version] = {"inputs_digest": digest, "same_inputs_as": first}
            per_release[version] = rows
            continue
        run = run_probe(todo, tree.root, args.nvcc)
        rows = [
            {
                "config": {
                    "element": r.config.element,
                    "output": r.config.output,
                    "arch": r.config.arch,
                    "threadblock": list(r.config.threadblock),
                    "warp": list(r.config.warp),
                    "stages": r.config.stages,
                },
                "kernel_smem": r.kernel_smem,
                "threads_per_block": r.threads_per_block,
                "mma": r.mma_type.split("<", 1)[0],
                "epilogue": r.epilogue_type.split("<", 1)[0],
                "members": r.members,
            }
            for r in run.rows
        ]
        runs[version] = {
            "inputs_digest": digest,
            "configs": len(todo),
            "seconds": round(run.seconds, 1),
            "flags": [a for a in run.command[1:] if a.startswith(("-D", "-std", "-gencode"))],
        }
        by_digest[digest] = (version, rows)
        per_release[version] = rows
    about = ABOUT.format(nvcc=nvcc_version(args.nvcc))
    args.out.write_text(render(about, runs, merge(per_release)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
