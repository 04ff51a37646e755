"""Record nvcc's numbers for the kernels `cutlint tu` finds in vLLM 0.34.0's hand-written
`cutlass_scaled_mm` TUs: tests/data/nvcc_tu_vllm_truth.json.

    python tests/tools/make_nvcc_tu_truth.py [FILE:ARCH ...]

Each TU is read with libclang (`cutlint.parse.tu.read_tu`) against FlashInfer 0.7.4's CUTLASS
4.5.0 headers with the flags vLLM's CMakeLists gives it, then its kernels are compiled by the
host-only nvcc probe (`cutlint.verify.tu_probe`). Entries for other files are kept. Each row
also keeps the kernel's builders as clang resolved them (`built`), so that a family's model can be
compared with nvcc's numbers in the default test suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cutlint.parse.tu import from_flags, read_tu
from cutlint.producers.flashinfer.wheel import download_wheel
from cutlint.producers.vllm.sdist import cmake_flags, download_sdist
from cutlint.verify import tu_probe

OUT = Path(__file__).resolve().parents[1] / "data" / "nvcc_tu_vllm_truth.json"
C3X = "csrc/quantization/w8a8/cutlass/c3x"
W4A8 = "csrc/quantization/cutlass_w4a8"
DEFAULT = (
    f"{C3X}/scaled_mm_sm120_fp8.cu:12.0a",
    f"{C3X}/scaled_mm_blockwise_sm120_fp8.cu:12.0a",
    f"{C3X}/scaled_mm_sm90_fp8.cu:9.0a",
    f"{C3X}/scaled_mm_sm100_fp8.cu:10.0a",
    f"{W4A8}/w4a8_mm_entry.cu:9.0a",
    f"{W4A8}/w4a8_grouped_mm_entry.cu:9.0a",
)


def main(argv: list[str]) -> int:
    vllm = download_sdist("0.34.0")
    include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    data = json.loads(OUT.read_text()) if OUT.is_file() else {}
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    data.update(
        {
            "vllm": "0.34.0",
            "cutlass": "4.5.0 (FlashInfer 0.7.4's flashinfer/data/cutlass)",
            "nvcc": version.strip().splitlines()[-1],
            "method": tu_probe.METHOD,
        }
    )
    files = {(f["file"], f["arch"]): f for f in data.get("files", [])}
    for spec in argv or DEFAULT:
        rel, arch = spec.rsplit(":", 1)
        # Not from the cache: an entry written by an older front end would be replayed.
        read = read_tu(from_flags(vllm / rel, cmake_flags(vllm, include, arch)), use_cache=False)
        by_expr = {k.type_expr: k for k in read.kernels}
        kernels = []
        for c in tu_probe.check(read):
            k = by_expr[c.type_expr]
            nvcc = {
                "shared_storage": c.nvcc_shared_storage,
                "shared_storage_size": c.nvcc_shared_storage_size,
                "stages": c.nvcc_stages,
            }
            kernels.append(
                {
                    "type_expr": k.type_expr,
                    # the line that chose it and each dispatch path's conditions (the TU's
                    # own file, relative to the sdist)
                    "line": k.chosen_by.line,
                    "dispatch": [list(k.conditions(p)) for p in k.paths],
                    "tile": k.tile,
                    "cluster": k.cluster,
                    "elements": k.elements,
                    "libclang": {"shared_storage": k.shared_storage, "stages": k.stages},
                    # The builders as clang resolved them: the family models replay from these
                    # (tests/verify/test_tu_probe.py) with neither libclang nor nvcc.
                    "built": None if k.built is None else k.built.model_dump(mode="json"),
                    "nvcc": None if c.nvcc_shared_storage is None else nvcc,
                    "agree": c.agrees,
                }
            )
        agree = sum(1 for k in kernels if k["agree"])
        print(f"{rel} {arch}: {agree}/{len(kernels)} agree", flush=True)
        files[(rel, arch)] = {"file": rel, "arch": arch, "kernels": kernels}
        data["files"] = sorted(files.values(), key=lambda f: (f["file"], f["arch"]))
        OUT.write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
