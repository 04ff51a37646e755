"""Compiler truth for the sm120-dense-gemm family: vLLM 0.34.0's 16 SM120 FP8 kernels
(`scaled_mm_sm120_fp8.cu`, 12.0a, FlashInfer 0.7.4's CUTLASS 4.5.0 headers), each as `cutlint tu`
reads it (its mainloop and epilogue CollectiveBuilders as clang resolved them) with nvcc 13.0's
`sizeof(GemmKernel::SharedStorage)` and stage count (tests/data/nvcc_tu_vllm_truth.json, from
`cutlint tu --verify`). The family's truth.py replays them through the seam `cutlint tu` uses;
the registry's harness compares them (tests/families/test_truth.py).

    python -m tests.families.test_sm120_dense_gemm_truth   # write the rows again (slow: a TU read)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
TRUTH = DATA / "nvcc_sm120_dense_gemm_truth.json"
TU = "csrc/quantization/w8a8/cutlass/c3x/scaled_mm_sm120_fp8.cu"
ROWS = json.loads(TRUTH.read_text())["rows"]


def test_the_rows_are_vllm_s_16_kernels() -> None:
    """Every kernel of the TU, bf16/half x 4 configs x 2 epilogues; the harness
    (tests/families/test_truth.py, this family's truth.py) compares each with the model."""
    assert len(ROWS) == 16 and len({r["type_expr"] for r in ROWS}) == 16


def _write() -> None:  # pragma: no cover - run by hand
    from cutlint.parse.tu import from_flags, read_tu
    from cutlint.producers.flashinfer.wheel import download_wheel
    from cutlint.producers.vllm.sdist import cmake_flags, download_sdist

    vllm = download_sdist("0.34.0")
    include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    read = read_tu(from_flags(vllm / TU, cmake_flags(vllm, include, "12.0a")), use_cache=False)
    nvcc_file = json.loads((DATA / "nvcc_tu_vllm_truth.json").read_text())
    (entry,) = [f for f in nvcc_file["files"] if f["file"] == TU]
    nvcc = {k["type_expr"]: k["nvcc"] for k in entry["kernels"]}
    rows = [
        {
            "type_expr": k.type_expr,
            "built": k.built.model_dump(mode="json") if k.built else None,
            "libclang": {"shared_storage": k.shared_storage, "stages": k.stages},
            "nvcc": nvcc[k.type_expr],
        }
        for k in read.kernels
    ]
    out = {
        "vllm": "0.34.0",
        "file": TU,
        "arch": "12.0a",
        "cutlass": "4.5.0 (FlashInfer 0.7.4's flashinfer/data/cutlass)",
        "nvcc": nvcc_file["nvcc"],
        "method": "builders: cutlint tu (libclang's resolved CollectiveBuilder arguments); nvcc: "
        "cutlint tu --verify (tests/data/nvcc_tu_vllm_truth.json)",
        "rows": rows,
    }
    TRUTH.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{TRUTH}: {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    _write()
