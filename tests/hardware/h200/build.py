"""Build the H200 proof's kernels, or the bundle that carries them to a GPU machine.

    python tests/hardware/h200/build.py bundle DIR    # sources + pruned headers + Makefile
    python tests/hardware/h200/build.py collect DIR   # DIR holds run.sh's output -> results JSON
    python tests/hardware/h200/build.py sizes         # host-only: SharedStorageSize of the CB set
    python tests/hardware/h200/build.py table         # the results JSON as docs/hardware.md's table

``bundle`` writes ``DIR/h200.tar.xz``, ``DIR/run.sh`` and nothing else. The archive holds the
harness sources, one translation unit per kernel (kernels.py), the FlashInfer 0.7.4 launchers
(the build's copy is patched to call ``h200::record_kernel``: fi_hook.hpp), the headers those
units include (found with ``nvcc -M``, so that only what the compiler reads travels; CUTLASS and
FlashInfer are never committed) and a Makefile. On the GPU machine, ``bash run.sh`` unpacks it,
builds every kernel in parallel, runs each binary, reads registers and spills with
``cuobjdump --dump-resource-usage`` and writes everything to ``$OUT`` (docs/hardware.md).

Needs the cutlint checkout's venv (FlashInfer's generator is loaded through
``cutlint.producers.flashinfer.wheel``) and nvcc for ``nvcc -M``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))

from kernels import (  # noqa: E402
    CB_KERNELS,
    FLASHINFER_VERSION,
    GROUPED_KERNELS,
    MIXED_KERNELS,
    CbKernel,
    GroupedKernel,
    MixedKernel,
)

from cutlint.producers.flashinfer.wheel import download_wheel, load_generator  # noqa: E402
from cutlint.verify import cublas  # noqa: E402
from cutlint.verify.probe_flags import (  # noqa: E402
    JIT_DEFAULT_FLAGS,
    SUPPORT_SOURCES,
    FlashInferTree,
)
from cutlint.verify.probe_output import MACRO_NAME  # noqa: E402
from cutlint.verify.probe_output import moe_macro_calls as find_macro_calls  # noqa: E402

HARNESS_FILES = (
    "cb_kernel.hpp",
    "cb_main.hpp",
    "harness.hpp",
    "fi_hook.hpp",
    "fi_grouped_main.hpp",
    "fi_fpaintb_main.hpp",
)
GROUPED_LAUNCHER = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
)
MIXED_LAUNCHER = Path(
    "tensorrt_llm/kernels/cutlass_kernels/fpA_intB_gemm/launchers/fpA_intB_launcher_sm90.inl"
)
# gen_cutlass_fused_moe_sm90_module() (flashinfer/jit/fused_moe.py, 0.7.4) and sm90a_nvcc_flags,
# common_nvcc_flags (flashinfer/jit/core.py): the flags FlashInfer's JIT compiles these files with.
SM90_GENCODE = "-gencode=arch=compute_90a,code=sm_90a"
SM90_FLAGS = (
    SM90_GENCODE,
    "-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED",
    "-DFLASHINFER_ENABLE_FP8_E8M0",
    "-DFLASHINFER_ENABLE_FP4_E2M1",
    "-DCOMPILE_HOPPER_TMA_GEMMS",
    "-DCOMPILE_HOPPER_TMA_GROUPED_GEMMS",
    "-DENABLE_BF16",
    "-DENABLE_FP8",
    "-DENABLE_FP8_BLOCK_SCALE",
    "-DENABLE_FP4",
    "-DUSING_OSS_CUTLASS_MOE_GEMM",
    "-DCUTLASS_ENABLE_GDC_FOR_SM90=1",
    "-DCUTLASS_MIXED_GEMM_FP4_FP8_PREPROCESSED_SIGNS=1",
)
CB_FLAGS = (
    "-std=c++17",
    "-O3",
    "-DNDEBUG",
    "--expt-relaxed-constexpr",
    "-diag-suppress=20012",
    SM90_GENCODE,
)
# What of the wheel's flashinfer/data the units and the support sources read.
FI_DIRS = (
    Path("flashinfer/data/cutlass/include"),
    Path("flashinfer/data/cutlass/tools/util/include"),
    Path("flashinfer/data/cccl"),
    Path("flashinfer/data/include"),
    Path("flashinfer/data/spdlog/include"),
    Path("flashinfer/data/csrc/nv_internal"),
)
HOOK_GROUPED = "h200::record_kernel<GemmKernel>(); \\\n"
HOOK_MIXED = "    h200::record_kernel<GemmKernel>();\n"


# ------------------------------------------------------------------ the translation units
def cb_unit(k: CbKernel) -> str:
    return (
        f"// {k.name}: {k.why} (tests/hardware/h200/kernels.py; written by build.py)\n"
        '#include "cb_kernel.hpp"\n'
        f'#define H200_NAME "{k.name}"\n'
        f"using Config = h200::CbGemm<{k.template_args()}>;\n"
        '#include "cb_main.hpp"\n'
    )


def _macro_text(source: str, args: tuple[str, ...]) -> str:
    """The generator's own text of the macro call with these arguments, with its #if guard."""
    for call in find_macro_calls(source):
        if call.args == args:
            lines = source.splitlines(keepends=True)
            start = call.line - 1
            if start > 0 and lines[start - 1].lstrip().startswith("#if"):
                start -= 1
            end = call.line - 1
            while not lines[end].rstrip().endswith(";"):
                end += 1
            if end + 1 < len(lines) and lines[end + 1].lstrip().startswith("#endif"):
                end += 1
            return "".join(lines[start : end + 1])
    raise LookupError(f"no {MACRO_NAME}{args} in this file")


def _alone(source: str, call: str) -> str:
    """The generated file with only this one instantiation: its own head (the launcher include,
    the namespaces) and tail, as cutlint reads a cache file."""
    first = min(i for i in (source.find("#if"), source.find("template void")) if i >= 0)
    tail = source[source.rindex(";") + 1 :].lstrip()
    if tail.startswith("#endif"):  # the guard of the file's last call
        tail = tail[tail.find("\n") + 1 :]
    return source[:first] + call + "\n" + tail.lstrip("\n")


def grouped_unit(k: GroupedKernel, generated: Path) -> tuple[str, dict[str, str]]:
    """The unit for one grouped MoE kernel, and where it was taken from: the generated file's
    name and that file reduced to this one call."""
    for path in sorted(generated.glob("gemm_grouped/90/*.generated.cu")):
        source = path.read_text()
        try:
            call = _macro_text(source, k.args)
        except LookupError:
            continue
        arch, t, w, o, sched, tag, fusion, m, n, kk, cm, cn, ck, mx, dyn, bias, swap = k.args
        tile = f"cute::Shape<cute::Int<{m}>, cute::Int<{n}>, cute::Int<{kk}>>"
        cga = f"cute::Shape<cute::Int<{cm}>, cute::Int<{cn}>, cute::Int<{ck}>>"
        launcher = (
            f"tma_warp_specialized_generic_moe_gemm_kernelLauncher<cutlass::arch::{arch}, {t}, "
            f"{w}, {o}, {sched}, tensorrt_llm::cutlass_extensions::{tag}, "
            f"EpilogueFusion::{fusion}, {tile}, {cga}, {mx}, {dyn}, {bias}, {swap}>"
        )
        unit = (
            f"// {k.name}: {k.why}\n"
            f"// The generator's call from {path.name} (FlashInfer {FLASHINFER_VERSION}); "
            "written by build.py\n"
            f'#define H200_NAME "{k.name}"\n'
            '#include "fi_hook.hpp"\n'
            f'#include "{GROUPED_LAUNCHER}"\n'
            "namespace tensorrt_llm {\nnamespace kernels {\nnamespace cutlass_kernels_oss {\n"
            f"{call}\n"
            f"using H200_T = {t};\nusing H200_W = {w};\nusing H200_O = {o};\n"
            f"constexpr bool H200_SWAP_AB = {swap};\n"
            f"constexpr bool H200_FINALIZE = {'true' if fusion == 'FINALIZE' else 'false'};\n"
            f"inline auto* const h200_launcher = &{launcher};\n"
            "}  // namespace cutlass_kernels_oss\n}  // namespace kernels\n"
            "}  // namespace tensorrt_llm\n"
            '#include "fi_grouped_main.hpp"\n'
        )
        return unit, {"file": path.name, "source": _alone(source, call)}
    raise LookupError(f"{k.name}: no such instantiation in {generated}/gemm_grouped/90")


_MIXED = re.compile(
    r"template\s+void\s+sm90_generic_mixed_gemm_kernelLauncher\s*<(.*?)>\s*\(", re.S
)


def _mixed_key(template_args: str) -> str:
    key = re.sub(r"\s+", "", template_args)
    key = re.sub(r"cute::Int<(\d+)>", r"\1", key).replace("cute::Shape<", "Shape<")
    for ns in (
        "cutlass::WeightOnlyQuantOp::",
        "tensorrt_llm::cutlass_extensions::",
        "cutlass::gemm::",
        "cutlass::epilogue::",
    ):
        key = key.replace(ns, "")
    return key


def _split_template_args(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def mixed_unit(k: MixedKernel, generated: Path) -> tuple[str, dict[str, str]]:
    for path in sorted(generated.glob("gemm/90/*.generated.cu")):
        source = path.read_text()
        for m in _MIXED.finditer(source):
            if _mixed_key(m.group(1)) != k.key:
                continue
            end = source.index(";", m.end())
            inst = source[m.start() : end + 1]
            args = _split_template_args(m.group(1))
            t, w, sz, bias, o, quant = args[:6]
            unit = (
                f"// {k.name}: {k.why}\n"
                f"// The generator's instantiation from {path.name} (FlashInfer "
                f"{FLASHINFER_VERSION}); written by build.py\n"
                f'#define H200_NAME "{k.name}"\n'
                '#include "fi_hook.hpp"\n'
                f'#include "{MIXED_LAUNCHER}"\n'
                "namespace tensorrt_llm {\nnamespace kernels {\nnamespace cutlass_kernels_oss {\n"
                f"{inst}\n"
                f"using H200_T = {t};\nusing H200_W = {w};\nusing H200_SZ = {sz};\n"
                f"using H200_BIAS = {bias};\nusing H200_O = {o};\n"
                f"constexpr bool H200_FINEGRAINED = {'true' if 'FINEGRAINED' in quant else 'false'};\n"
                f"constexpr bool H200_ZEROS = {'true' if 'ZEROS' in quant else 'false'};\n"
                "inline auto* const h200_launcher = "
                f"&sm90_generic_mixed_gemm_kernelLauncher<{m.group(1).strip()}>;\n"
                "}  // namespace cutlass_kernels_oss\n}  // namespace kernels\n"
                "}  // namespace tensorrt_llm\n"
                '#include "fi_fpaintb_main.hpp"\n'
            )
            return unit, {"file": path.name, "source": _alone(source, inst)}
    raise LookupError(f"{k.name}: no such instantiation in {generated}/gemm/90")


# ------------------------------------------------------------------ flags, relative to the bundle
def fi_flags(tree: FlashInferTree) -> list[str]:
    flags = [f for f in JIT_DEFAULT_FLAGS if f != "--compiler-options=-fPIC"]
    # FlashInfer's include order; "src" (the harness) first, where the JIT puts its overlay.
    flags += tree.include_flags(Path("src"), Path("tu"))
    return [*flags, "-isystem", "shim", *SM90_FLAGS]


def cb_flags(tree: FlashInferTree) -> list[str]:
    cutlass = tree.data / "cutlass"
    return [
        *CB_FLAGS,
        "-Isrc",
        "-isystem",
        str(cutlass / "include"),
        "-isystem",
        str(cutlass / "tools" / "util" / "include"),
    ]


def support_flags(tree: FlashInferTree) -> list[str]:
    nv = tree.nv_internal
    inc = [f"-I{nv}", f"-I{nv / 'include'}", f"-I{tree.data / 'include'}", "-isystem", "shim"]
    return ["-std=c++17", "-O1", *inc]


def support_sources() -> list[str]:
    # TensorRT-LLM's host helpers that the launchers' TLLM_CHECK / TLLM_THROW reference; FlashInfer
    # links the same files into its module (jit/fused_moe.py).
    return [*SUPPORT_SOURCES, "cpp/common/envUtils.cpp"]


def makefile(units: dict[str, str], tree: FlashInferTree) -> str:
    nv = tree.nv_internal
    support = [nv / s for s in support_sources()]
    lines = [
        "# written by tests/hardware/h200/build.py",
        "NVCC ?= nvcc",
        f"CB_FLAGS = {' '.join(cb_flags(tree))}",
        f"FI_FLAGS = {' '.join(fi_flags(tree))}",
        f"SUPPORT_FLAGS = {' '.join(support_flags(tree))}",
        f"SUPPORT = {' '.join(f'obj/{s.stem}.o' for s in support)}",
        f"BINS = {' '.join(f'bin/{n}' for n in units)}",
        "all: $(BINS)",
        "",
    ]
    for src in support:
        lines += [
            f"obj/{src.stem}.o: {src}",
            "\t@mkdir -p obj",
            "\t$(NVCC) $(SUPPORT_FLAGS) -c $< -o $@",
        ]

    # ptxas -v of each unit goes to log/<name>.log (run.sh gathers them into ptxas.txt): the
    # registers, stack frame and spill stores/loads of every kernel, as the assembler reports them.
    def logged(cmd: str, name: str) -> str:
        return f"\t@mkdir -p log\n\t{cmd} -Xptxas -v > log/{name}.log 2>&1; rc=$$?; cat log/{name}.log; exit $$rc"

    for name, kind in units.items():
        if kind == "cb":
            cmd = f"$(NVCC) $(CB_FLAGS) tu/{name}.cu -o $@"
            lines += [f"bin/{name}: tu/{name}.cu", "\t@mkdir -p bin", logged(cmd, name)]
        else:
            cmd = f"$(NVCC) $(FI_FLAGS) -c tu/{name}.cu -o $@"
            lines += [
                f"obj/{name}.o: tu/{name}.cu",
                "\t@mkdir -p obj",
                logged(cmd, name),
                f"bin/{name}: obj/{name}.o $(SUPPORT)",
                "\t@mkdir -p bin",
                f"\t$(NVCC) {SM90_GENCODE} $^ -o $@",
            ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the bundle
def _deps(cmd: list[str], cwd: Path) -> list[str]:
    """The files one compile reads (nvcc -M); fails when one of them cannot be found."""
    out = subprocess.run(
        ["nice", "-n", "10", *cmd], cwd=cwd, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"nvcc -M failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    words = out.stdout.replace("\\\n", " ").split()
    return [w for w in words if not w.endswith(":")]


def bundle(dest: Path, fi_root: Path, nvcc: str) -> None:
    with tempfile.TemporaryDirectory(prefix="h200-bundle-") as tmp:
        stage = Path(tmp) / "h200"
        (stage / "src").mkdir(parents=True)
        (stage / "tu").mkdir()
        for f in HARNESS_FILES:
            shutil.copy(HERE / f, stage / "src" / f)
        cublas.write_shim(stage / "shim")
        # FlashInfer's headers travel whole (they compress to a few MB); nvcc -M checks below,
        # on one unit of each kind and on the support sources, that nothing else is read.
        for rel in FI_DIRS:
            shutil.copytree(fi_root / rel, stage / "fi" / rel)
        tree = FlashInferTree(Path("fi"))
        os.chdir(stage)  # FlashInferTree.include_flags looks for directories relative to here

        generated = Path(tmp) / "generated"
        load_generator(fi_root).generate_gemm_operations(str(generated), "90;90-real")
        units: dict[str, str] = {}
        origin: dict[str, dict[str, str]] = {}
        for k in CB_KERNELS:
            (stage / "tu" / f"{k.name}.cu").write_text(cb_unit(k))
            units[k.name] = "cb"
        for g in GROUPED_KERNELS:
            text, origin[g.name] = grouped_unit(g, generated)
            (stage / "tu" / f"{g.name}.cu").write_text(text)
            units[g.name] = "fi"
        for x in MIXED_KERNELS:
            text, origin[x.name] = mixed_unit(x, generated)
            (stage / "tu" / f"{x.name}.cu").write_text(text)
            units[x.name] = "fi"
        (stage / "Makefile").write_text(makefile(units, tree))
        (stage / "origin.json").write_text(json.dumps(origin, indent=1) + "\n")

        reps = {"cb": CB_KERNELS[0].name}
        reps.update({"grouped": GROUPED_KERNELS[0].name, "mixed": MIXED_KERNELS[0].name})
        for kind, name in reps.items():
            flags = cb_flags(tree) if kind == "cb" else fi_flags(tree)
            _deps([nvcc, *flags, "-M", f"tu/{name}.cu"], stage)
        for src in support_sources():
            _deps([nvcc, *support_flags(tree), "-M", str(tree.nv_internal / src)], stage)
        for launcher, anchor, hook in (
            (GROUPED_LAUNCHER, "using GemmGrouped = ", HOOK_GROUPED),
            (
                MIXED_LAUNCHER,
                "using Gemm = cutlass::gemm::device::GemmUniversalAdapter",
                HOOK_MIXED,
            ),
        ):
            path = stage / "fi" / "flashinfer" / "data" / "csrc" / "nv_internal" / launcher
            patch_launcher(path, anchor, hook)
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(dest / "h200.tar.xz", "w:xz") as tar:
            tar.add(stage, arcname="h200")
        shutil.copy(HERE / "run.sh", dest / "run.sh")
        size = (dest / "h200.tar.xz").stat().st_size
        print(f"{len(units)} kernels, {size:,} B -> {dest}")
        os.chdir(REPO)


def patch_launcher(path: Path, anchor: str, hook: str) -> None:
    """Insert the hook after the statement that starts with `anchor` (it may span lines; inside
    the grouped launcher's macro every line ends with a backslash)."""
    text = path.read_text()
    at = text.index(anchor)
    end = text.index(";", at)
    eol = text.index("\n", end) + 1
    path.write_text(text[:eol] + hook + text[eol:])


# ------------------------------------------------------------------ sizes, host-only
def sizes(fi_root: Path, nvcc: str) -> None:
    """Print SharedStorageSize of every CollectiveBuilder kernel of the set, from one host-only
    compile (no GEMM device code is generated: nothing references the kernels)."""
    tree = FlashInferTree(fi_root)
    body = "\n".join(f'  show<h200::CbGemm<{k.template_args()}>>("{k.name}");' for k in CB_KERNELS)
    source = (
        '#include <cstdio>\n#include "cb_kernel.hpp"\n'
        "template <class G> void show(char const* name) {\n"
        "  using K = typename G::GemmKernel;\n"
        '  std::printf("%-40s %7d B  stages %d\\n", name, K::SharedStorageSize,\n'
        "              K::CollectiveMainloop::DispatchPolicy::Stages);\n}\n"
        f"int main() {{\n{body}\n}}\n"
    )
    with tempfile.TemporaryDirectory(prefix="h200-sizes-") as tmp:
        (Path(tmp) / "sizes.cu").write_text(source)
        cutlass = tree.data / "cutlass"
        cmd = [
            "nice",
            "-n",
            "10",
            nvcc,
            *CB_FLAGS,
            f"-I{HERE}",
            "-isystem",
            str(cutlass / "include"),
            "-isystem",
            str(cutlass / "tools" / "util" / "include"),
            "sizes.cu",
            "-o",
            "sizes",
        ]
        subprocess.run(cmd, cwd=tmp, check=True)
        subprocess.run([str(Path(tmp) / "sizes")], check=True)


# ------------------------------------------------------------------ collect
def collect(src: Path, out: Path) -> None:
    """Turn run.sh's output (results.jsonl, resource_usage.txt, versions.txt) into the results
    file the replay test reads (tests/data/h200_initialize.json)."""
    from collect import build_results

    data = build_results(src)
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{len(data['rows'])} rows -> {out}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("command", choices=("bundle", "collect", "sizes", "table"))
    p.add_argument("dir", nargs="?", type=Path)
    p.add_argument("--nvcc", default="nvcc")
    p.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "cutlint-tests")
    p.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "h200_initialize.json")
    a = p.parse_args()
    fi_root = download_wheel(FLASHINFER_VERSION, a.cache)
    if a.command in ("bundle", "collect") and a.dir is None:
        p.error(f"{a.command} needs DIR")
    if a.command == "bundle":
        bundle(a.dir, fi_root, a.nvcc)
    elif a.command == "sizes":
        sizes(fi_root, a.nvcc)
    elif a.command == "collect":
        collect(a.dir, a.out)
    else:
        from collect import markdown_table

        print(markdown_table(json.loads(a.out.read_text())), end="")


if __name__ == "__main__":
    main()
