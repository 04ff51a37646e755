"""Compiler truth for the sm120-collective-builder family: nvcc's numbers for a stratified sample
of the CUTLASS 3.x SM120 kernels that CUTLASS's own generator writes (`cutlint generate
cutlass-library --arch 120a`, the nvidia-cutlass 4.2.0.0 wheel).

One translation unit holds the alias chains of every sampled kernel, copied verbatim from its
generated file (the `using ..._epilogue`, `_mainloop`, `_base` definitions and the named struct),
and a host `main` that prints, per kernel, `sizeof(GemmKernel::SharedStorage)`, its alignment, the
mainloop's `DispatchPolicy::Stages`, `sizeof` of the mainloop's and the epilogue's SharedStorage
and `MaxThreadsPerBlock`. It is compiled once (`nvcc -std=c++17 -x cu -arch=sm_120a`; no kernel is
instantiated, so the device pass only parses) and run on the host: no GPU is needed.

Run from the worktree root, one compile at a time:
    nice -n 10 .venv/bin/python tests/tools/make_nvcc_sm120_cb_truth.py \
        --generated /tmp/cl/g120/generated --include <cutlass>/include \
        --out tests/data/nvcc_sm120_collective_builder_truth.json
The sample is stratified (`sample`): every mainloop schedule, fusion, tile scheduler, problem
shape, C/D type and layout combination of the build once, and every A/B operand pair once.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

INCLUDES = (
    "cutlass/cutlass.h",
    "cutlass/numeric_types.h",
    "cutlass/gemm/gemm.h",
    "cutlass/gemm/kernel/gemm_universal.hpp",
    "cutlass/gemm/collective/collective_builder.hpp",
    "cutlass/epilogue/collective/collective_builder.hpp",
    "cutlass/detail/blockwise_scale_layout.hpp",
)
BODY = re.compile(
    r"(using\s+\w+_epilogue\s*=.*?struct\s+(\w+)\s*:\s*public\s+\w+_base\s*\{\s*\}\s*;)", re.S
)
FIELDS = ("smem", "align", "stages", "mainloop", "epilogue", "threads")


def stratum(path: Path, text: str) -> tuple[str, ...]:
    """What the sample is stratified by: the mainloop schedule, the stage policy, the fusion,
    the element types of A, B, C and D, the tile scheduler and the problem shape."""
    ml = re.search(r"_mainloop\s*=(.*?)::CollectiveOp", text, re.S)
    ep = re.search(r"_epilogue\s*=(.*?)::CollectiveOp", text, re.S)
    base = re.search(r"_base\s*=(.*?);", text, re.S)
    assert ml and ep and base, path
    sched = re.findall(r"cutlass::gemm::(Kernel\w+)", ml.group(1))
    stage = re.search(r"collective::(StageCount\w*)", ml.group(1))
    fusion = re.search(r"fusion::(\w+)", ep.group(1))
    name = path.stem
    types = re.sub(r"_\d+x\d+x\d+_1x1x1.*", "", name.removeprefix("cutlass3x_sm120_"))
    tail = name.split("_1x1x1_0_")[-1]
    return (
        sched[0] if sched else "?",
        stage.group(1) if stage else "?",
        fusion.group(1) if fusion else "?",
        types,
        "stream_k" if "stream_k" in tail else "default",
        "grouped" if "GroupProblemShape" in base.group(1) else "single",
    )


def sample(generated: Path) -> list[Path]:
    """One kernel per (schedule, fusion, tile scheduler, problem shape, C, D, layouts), and one
    per A type and per B type: every combination that changes a part, every operand type. Of
    the blockwise kernels (C and D always 16-bit or void) one per (schedule, problem shape, void
    C or not, layout)."""
    files = sorted((generated / "gemm" / "120").rglob("cutlass3x_sm120_*.cu"))
    seen: set[tuple[str, ...]] = set()
    out: list[Path] = []
    for f in files:
        key = stratum(f, f.read_text())
        types = key[3].split("_")
        layout = f.stem.split("_1x1x1_0_")[-1].split("_")[0]
        keys = [
            (key[0], key[2], key[4], key[5], types[-2], types[-1], layout),
            ("A", types[-5]),
            ("B", types[-4]),
        ]
        if "Blockwise" in key[0]:
            keys = [(key[0], key[5], types[-2] == "void", layout)]
        for k in keys:
            if k not in seen:
                seen.add(k)
                if f not in out:
                    out.append(f)
    return out


def translation_unit(files: list[Path]) -> tuple[str, list[str]]:
    parts = [f'#include "{h}"' for h in INCLUDES] + [
        "#include <cstdio>",
        "#include <type_traits>",
        "",
    ]
    names: list[str] = []
    for f in files:
        m = BODY.search(f.read_text())
        assert m, f
        parts.append(f"// {f.name}\n{m.group(1)}\n")
        names.append(m.group(2))
    # The sparse mainloop's policy has StagesA/StagesB/StagesE instead of Stages: report StagesA.
    parts.append(
        "template <class P, class = void> struct StagesOf { static constexpr int value = P::StagesA; };"
    )
    parts.append("template <class P> struct StagesOf<P, std::void_t<decltype(P::Stages)>> {")
    parts.append("  static constexpr int value = P::Stages; };")
    parts.append("template <class K> void report(const char* name) {")
    parts.append(
        '  std::printf("{\\"kernel\\": \\"%s\\", \\"smem\\": %zu, \\"align\\": %zu, '
        '\\"stages\\": %d, \\"mainloop\\": %zu, \\"epilogue\\": %zu, \\"threads\\": %d}\\n", name, '
        "sizeof(typename K::SharedStorage), alignof(typename K::SharedStorage), "
        "StagesOf<typename K::CollectiveMainloop::DispatchPolicy>::value, "
        "sizeof(typename K::CollectiveMainloop::SharedStorage), "
        "sizeof(typename K::CollectiveEpilogue::SharedStorage), int(K::MaxThreadsPerBlock));"
    )
    parts.append("}")
    parts.append("int main() {")
    parts += [f'  report<{n}_base>("{n}");' for n in names]
    parts.append("  return 0;\n}")
    return "\n".join(parts) + "\n", names


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--generated", type=Path, required=True)
    ap.add_argument("--include", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--nvcc", default="nvcc")
    args = ap.parse_args()
    files = sample(args.generated)
    tu, _ = translation_unit(files)
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "probe.cu", Path(tmp) / "probe"
        src.write_text(tu)
        cmd = [
            args.nvcc,
            "-std=c++17",
            "-x",
            "cu",
            "-arch=sm_120a",
            "--expt-relaxed-constexpr",
            f"-I{args.include}",
            str(src),
            "-o",
            str(exe),
        ]
        print(f"{len(files)} kernels: {shlex.join(cmd)}", file=sys.stderr)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr[-20000:], file=sys.stderr)
            return 1
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in ran.stdout.splitlines()]
    by_name = {f.stem: f for f in files}
    for r in rows:
        r["file"] = str(by_name[r["kernel"]].relative_to(args.generated))
    version = re.findall(
        r"#define CUTLASS_(?:MAJOR|MINOR|PATCH) (\d+)",
        (args.include / "cutlass" / "version.h").read_text(),
    )
    nvcc = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout
    out = {
        "cutlass": ".".join(version),
        "nvcc": next(line for line in nvcc.splitlines() if "release" in line),
        "command": "nvcc -std=c++17 -x cu -arch=sm_120a --expt-relaxed-constexpr -I<cutlass>/include probe.cu; ./probe",
        "made_by": "tests/tools/make_nvcc_sm120_cb_truth.py --generated <cutlint generate "
        "cutlass-library --arch 120a> --include <the wheel's cutlass_library/source/include>",
        "rows": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(rows)} rows -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
