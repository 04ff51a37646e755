"""Record nvcc's numbers for two grouped W4A8 instantiations vLLM 0.34.0 does not make:
tests/data/nvcc_tu_vllm_w4a8_variations_truth.json.

    python tests/tools/make_nvcc_tu_w4a8_variations.py

vLLM's `w4a8_grouped_mm_entry.cu` in a scratch copy of the sdist (hard links; the one file
rewritten), with `W4A8GroupedGemmKernel<Shape<_128, _32>, ...>` and `<Shape<_128, _64>, ...>`
added beside its own eleven and dispatched like them; read with libclang and compiled by the
host-only nvcc probe as tests/tools/make_nvcc_tu_truth.py does. 128x32 is the tile where the
ptr-array builder's smaller capacity (KernelSmemCarveout) costs a stage: the dense W4A8 kernel
of that tile has 16, the grouped one 15. Only the two added kernels are kept.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cutlint.parse.tu import from_flags, read_tu
from cutlint.producers.flashinfer.wheel import download_wheel
from cutlint.producers.vllm.sdist import cmake_flags, download_sdist
from cutlint.verify import tu_probe

OUT = Path(__file__).resolve().parents[1] / "data" / "nvcc_tu_vllm_w4a8_variations_truth.json"
REL = "csrc/quantization/cutlass_w4a8/w4a8_grouped_mm_entry.cu"
ADDED = ("128, _32", "128, _64")
TILES = ("128x32x128", "128x64x128")
ANCHOR = "void mm_dispatch("
DISPATCH = '  if (schedule == "Kernel_128x16_1x1x1_Coop") {'


def _variant(text: str) -> str:
    names = [f"Kernel_{t.replace(', _', 'x')}_1x1x1_Coop" for t in ADDED]
    aliases = "".join(
        f"using {n} =\n    W4A8GroupedGemmKernel<Shape<_{t}>, Shape<_1, _1, _1>, Coop, CoopEpi>;\n\n"
        for n, t in zip(names, ADDED, strict=True)
    )
    calls = "".join(
        f'  if (schedule == "{n}") {{\n    {n}::grouped_mm(\n        out_tensors, a_tensors, '
        "b_tensors, a_scales, b_scales, b_group_scales,\n        b_group_size, expert_offsets, "
        "problem_sizes, a_strides, b_strides,\n        c_strides, group_scale_strides);\n"
        "    return;\n  }\n"
        for n in names
    )
    assert ANCHOR in text and DISPATCH in text
    text = text.replace(ANCHOR, aliases + ANCHOR, 1)
    return text.replace(DISPATCH, calls + DISPATCH, 1)


def main() -> int:
    vllm = download_sdist("0.34.0")
    include = download_wheel("0.7.4") / "flashinfer" / "data" / "cutlass" / "include"
    scratch = Path(tempfile.mkdtemp(prefix="cutlint-w4a8-variations-"))
    root = scratch / "vllm"
    shutil.copytree(vllm, root, copy_function=lambda s, d: Path(d).hardlink_to(s))
    main_file = root / REL
    text = _variant(main_file.read_text())
    main_file.unlink()  # a hard link: never write through it into the sdist
    main_file.write_text(text)
    read = read_tu(from_flags(main_file, cmake_flags(root, include, "9.0a")), use_cache=False)
    by_expr = {k.type_expr: k for k in read.kernels}
    kernels = []
    for c in tu_probe.check(read, use_cache=False):
        k = by_expr[c.type_expr]
        if k.tile not in TILES:  # vLLM's own eleven: recorded in nvcc_tu_vllm_truth.json
            continue
        kernels.append(
            {
                "type_expr": k.type_expr,
                "line": k.chosen_by.line,
                "dispatch": [list(k.conditions(p)) for p in k.paths],
                "tile": k.tile,
                "cluster": k.cluster,
                "elements": k.elements,
                "libclang": {"shared_storage": k.shared_storage, "stages": k.stages},
                "built": None if k.built is None else k.built.model_dump(mode="json"),
                "nvcc": {
                    "shared_storage": c.nvcc_shared_storage,
                    "shared_storage_size": c.nvcc_shared_storage_size,
                    "stages": c.nvcc_stages,
                },
                "agree": c.agrees,
            }
        )
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    data = {
        "vllm": "0.34.0, w4a8_grouped_mm_entry.cu with two added instantiations "
        "(tests/tools/make_nvcc_tu_w4a8_variations.py)",
        "cutlass": "4.5.0 (FlashInfer 0.7.4's flashinfer/data/cutlass)",
        "nvcc": version.strip().splitlines()[-1],
        "method": tu_probe.METHOD,
        "files": [{"file": REL, "arch": "9.0a", "kernels": kernels}],
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    shutil.rmtree(scratch)
    print(f"{len(kernels)} kernels, {sum(k['agree'] for k in kernels)} agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
