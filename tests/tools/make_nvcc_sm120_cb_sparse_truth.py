"""Compiler truth for the sm120-collective-builder family's hand-written sparse kernels: the
block-scaled sparse builder (`CollectiveBuilder<Sm120, OpClassBlockScaledSparseTensorOp, ...>`,
cutlass/gemm/collective/builders/sm120_blockscaled_sparse_mma_builder.inl) and the plain sparse
F8F6F4 one in the branch no generated kernel takes (the metadata in shared memory,
sm120_sparse_mma_builder.inl). nvcc's numbers for
CUTLASS example 80b's kernel (examples/80_blackwell_geforce_sparse_gemm, NVFP4 x NVFP4 -> NVFP4
with a column-major block-scale-factor epilogue), example 80a's (MXFP8 x MXFP8 -> bf16) and
variants of the same builder: other tiles, carveouts and element types. cutlass_library's
generator writes no such kernel, so the chains are written here, in the
examples' own form (`VARIANTS`), and recorded with each row (`chain`): the test parses the row's
chain and models it.

One translation unit holds every chain (each in a namespace of its own) and a host `main` that
prints, per kernel, `sizeof`/`alignof` of `GemmKernel::SharedStorage`, the dispatch policy's
`StagesA`, `StagesB`, `StagesE`, `sizeof` of the mainloop's and the epilogue's SharedStorage,
`MaxThreadsPerBlock`, and the offset and size of every member the model lays out
(`offsetof`/`sizeof`; SFA and SFB where the mainloop has them). No kernel is instantiated, so no
GPU and no GEMM device code.

Run from the worktree root, one compile at a time:
    nice -n 10 .venv/bin/python tests/tools/make_nvcc_sm120_cb_sparse_truth.py \
        --include <cutlass>/include --out tests/data/nvcc_sm120_cb_sparse_truth.json
(`--include`: the nvidia-cutlass 4.2.0.0 wheel's cutlass_library/source/include, or FlashInfer
0.7.4's flashinfer/data/cutlass/include for CUTLASS 4.5.0; `--out` ..._cutlass_4.5.0.json.)
"""

from __future__ import annotations

import argparse
import json
import re
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
)

_NV4 = "cutlass::nv_float4_t<cutlass::float_e2m1_t>"
_MX4 = "cutlass::mx_float4_t<cutlass::float_e2m1_t>"
_MX6 = "cutlass::mx_float6_t<cutlass::float_e3m2_t>"
_MX8 = "cutlass::mx_float8_t<cutlass::float_e4m3_t>"
_ROW, _COL = "cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor"
_SPARSE_EPI = "cutlass::epilogue::SparseTmaWarpSpecializedCooperativeSm120"
_AUTO_EPI = "cutlass::epilogue::collective::EpilogueScheduleAuto"
_PLAIN = "cutlass::arch::OpClassSparseTensorOp"
_CARVEOUT = (
    "cutlass::gemm::collective::StageCountAutoCarveout<"
    "static_cast<int>(sizeof(typename Epi::SharedStorage))>"
)


def chain(
    a: str,
    b: str,
    align_ab: tuple[int, int],
    tile: tuple[int, int, int],
    schedule: str,
    c: tuple[str, str, int],
    d: tuple[str, str, int],
    epi_schedule: str,
    fusion: str = "",
    stages: str = _CARVEOUT,
    op: str = "cutlass::arch::OpClassBlockScaledSparseTensorOp",
) -> str:
    """One kernel as CUTLASS's examples write it: the epilogue builder, the mainloop builder
    (carving out the epilogue's SharedStorage unless `stages` says otherwise), GemmUniversal."""
    shape = f"cute::Shape<cute::_{tile[0]}, cute::_{tile[1]}, cute::_{tile[2]}>"
    one = "cute::Shape<cute::_1, cute::_1, cute::_1>"
    fusion_arg = f",\n    {fusion}" if fusion else ""
    return (
        "using Epi = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
        f"    cutlass::arch::Sm120, {op},\n"
        f"    {shape}, {one},\n"
        "    cutlass::epilogue::collective::EpilogueTileAuto, float, float,\n"
        f"    {c[0]}, {c[1]}, {c[2]},\n"
        f"    {d[0]}, {d[1]}, {d[2]},\n"
        f"    {epi_schedule}{fusion_arg}\n"
        "  >::CollectiveOp;\n"
        "using Main = typename cutlass::gemm::collective::CollectiveBuilder<\n"
        f"    cutlass::arch::Sm120, {op},\n"
        f"    {a}, {_ROW}, {align_ab[0]},\n"
        f"    {b}, {_COL}, {align_ab[1]},\n"
        "    float,\n"
        f"    {shape}, {one},\n"
        f"    {stages},\n"
        f"    cutlass::gemm::{schedule}\n"
        "  >::CollectiveOp;\n"
        "using Kernel = cutlass::gemm::kernel::GemmUniversal<\n"
        "    cute::Shape<int, int, int, int>, Main, Epi, void>;\n"
    )


VARIANTS: dict[str, str] = {
    # examples/80_blackwell_geforce_sparse_gemm/80b_blackwell_geforce_nvfp4_nvfp4_sparse_gemm.cu
    "example80b_nvf4_128x128x256_bf16c_nvf4d_colsf": chain(
        _NV4,
        _NV4,
        (64, 32),
        (128, 128, 256),
        "KernelSparseTmaWarpSpecializedNvf4Sm120",
        ("cutlass::bfloat16_t", _COL, 8),
        ("cutlass::float_e2m1_t", _COL, 32),
        _SPARSE_EPI,
        "cutlass::epilogue::fusion::LinCombBlockScaleFactor<32, cutlass::float_e2m1_t, float, "
        f"cutlass::float_ue4m3_t, {_COL}, cutlass::bfloat16_t>",
    ),
    # examples/80_blackwell_geforce_sparse_gemm/80a_blackwell_geforce_mxfp8_bf16_sparse_gemm.cu
    "example80a_mxf8_128x128x256_bf16": chain(
        _MX8,
        _MX8,
        (32, 16),
        (128, 128, 256),
        "KernelSparseTmaWarpSpecializedMxf8f6f4Acc2x4Sm120",
        ("cutlass::bfloat16_t", _ROW, 8),
        ("cutlass::bfloat16_t", _ROW, 8),
        _AUTO_EPI,
    ),
    "nvf4_128x128x256_voidc_f32d": chain(
        _NV4,
        _NV4,
        (64, 32),
        (128, 128, 256),
        "KernelSparseTmaWarpSpecializedNvf4Sm120",
        ("void", _ROW, 4),
        ("float", _ROW, 4),
        _AUTO_EPI,
    ),
    "nvf4_128x64x256_f16_sparse_epi": chain(
        _NV4,
        _NV4,
        (64, 32),
        (128, 64, 256),
        "KernelSparseTmaWarpSpecializedNvf4Sm120",
        ("cutlass::half_t", _ROW, 8),
        ("cutlass::half_t", _ROW, 8),
        _SPARSE_EPI,
    ),
    "mxf4_128x128x256_bf16_sparse_epi": chain(
        _MX4,
        _MX4,
        (64, 32),
        (128, 128, 256),
        "KernelSparseTmaWarpSpecializedMxf4Sm120",
        ("cutlass::bfloat16_t", _ROW, 8),
        ("cutlass::bfloat16_t", _ROW, 8),
        _SPARSE_EPI,
    ),
    "mxf6xmxf8_128x64x256_voidc_bf16_sparse_epi": chain(
        _MX6,
        _MX8,
        (256, 16),
        (128, 64, 256),
        "KernelSparseTmaWarpSpecializedMxf8f6f4Sm120",
        ("void", _ROW, 8),
        ("cutlass::bfloat16_t", _ROW, 8),
        _SPARSE_EPI,
    ),
    "nvf4_128x128x256_f32c_carveout_16384": chain(
        _NV4,
        _NV4,
        (64, 32),
        (128, 128, 256),
        "KernelSparseTmaWarpSpecializedNvf4Sm120",
        ("float", _ROW, 4),
        ("float", _ROW, 4),
        _SPARSE_EPI,
        stages="cutlass::gemm::collective::StageCountAutoCarveout<16384>",
    ),
    "nvf4_256x128x256_voidc_f16_sparse_epi": chain(
        _NV4,
        _NV4,
        (64, 32),
        (256, 128, 256),
        "KernelSparseTmaWarpSpecializedNvf4Sm120",
        ("void", _ROW, 8),
        ("cutlass::half_t", _ROW, 8),
        _SPARSE_EPI,
    ),
    # the plain sparse F8F6F4 builder where A + B + E fit twice: E in shared memory
    "sparse_e4m3_128x64x256_voidc_bf16": chain(
        "cutlass::float_e4m3_t",
        "cutlass::float_e4m3_t",
        (64, 16),
        (128, 64, 256),
        "KernelScheduleSparseF8f6f4Sm120",
        ("void", _ROW, 8),
        ("cutlass::bfloat16_t", _ROW, 8),
        _AUTO_EPI,
        op=_PLAIN,
    ),
    "sparse_e5m2xe4m3_128x128x128_f16": chain(
        "cutlass::float_e5m2_t",
        "cutlass::float_e4m3_t",
        (64, 16),
        (128, 128, 128),
        "KernelScheduleSparseF8f6f4Sm120",
        ("cutlass::half_t", _ROW, 8),
        ("cutlass::half_t", _ROW, 8),
        _AUTO_EPI,
        op=_PLAIN,
    ),
}

# (member, C++ expression of its offset, of its size); SS = GemmKernel::SharedStorage,
# MT = the mainloop's TensorStorage, ES / ET = the epilogue's SharedStorage / TensorStorage
MEMBERS = (
    ("pipelines", "offsetof(SS, pipelines)", "sizeof(SS::pipelines)"),
    ("scheduler", "offsetof(SS, scheduler)", "sizeof(SS::scheduler)"),
    ("tensors", "offsetof(SS, tensors)", "sizeof(SS::tensors)"),
    (
        "tensors.epilogue",
        "offsetof(decltype(SS::tensors), epilogue)",
        "sizeof(SS::tensors.epilogue)",
    ),
    (
        "tensors.mainloop",
        "offsetof(decltype(SS::tensors), mainloop)",
        "sizeof(SS::tensors.mainloop)",
    ),
    (
        "pipelines.mainloop_mk",
        "offsetof(decltype(SS::pipelines), mainloop_mk)",
        "sizeof(SS::pipelines.mainloop_mk)",
    ),
    (
        "pipelines.mainloop_nk",
        "offsetof(decltype(SS::pipelines), mainloop_nk)",
        "sizeof(SS::pipelines.mainloop_nk)",
    ),
    (
        "pipelines.epi_load",
        "offsetof(decltype(SS::pipelines), epi_load)",
        "sizeof(SS::pipelines.epi_load)",
    ),
    (
        "pipelines.load_order",
        "offsetof(decltype(SS::pipelines), load_order)",
        "sizeof(SS::pipelines.load_order)",
    ),
    ("mainloop.smem_A", "offsetof(MT, smem_A)", "sizeof(MT::smem_A)"),
    ("mainloop.smem_B", "offsetof(MT, smem_B)", "sizeof(MT::smem_B)"),
    ("mainloop.smem_SFA", "offsetof(MT, smem_SFA)", "sizeof(MT::smem_SFA)"),
    ("mainloop.smem_SFB", "offsetof(MT, smem_SFB)", "sizeof(MT::smem_SFB)"),
    ("mainloop.smem_E", "offsetof(MT, smem_E)", "sizeof(MT::smem_E)"),
    ("epilogue.collective", "offsetof(ET, collective)", "sizeof(ET::collective)"),
    ("epilogue.thread", "offsetof(ET, thread)", "sizeof(ET::thread)"),
    ("epilogue.pipeline", "offsetof(ES, pipeline)", "sizeof(ES::pipeline)"),
)
FIELDS = ("smem", "align", "stages", "stages_b", "stages_e", "mainloop", "epilogue", "threads")

REPORT = r"""
template <class K> void report(const char* name) {
  using CM = typename K::CollectiveMainloop;
  using CE = typename K::CollectiveEpilogue;
  using DP = typename CM::DispatchPolicy;
  using SS = typename K::SharedStorage;
  using MT = typename CM::SharedStorage::TensorStorage;
  using ES = typename CE::SharedStorage;
  using ET = typename CE::SharedStorage::TensorStorage;
  std::printf("{\"kernel\": \"%s\", \"smem\": %zu, \"align\": %zu, \"stages\": %d, "
              "\"stages_b\": %d, \"stages_e\": %d, \"mainloop\": %zu, \"epilogue\": %zu, "
              "\"threads\": %d, \"members\": {", name, sizeof(SS), alignof(SS), int(DP::StagesA),
              int(DP::StagesB), int(DP::StagesE), sizeof(typename CM::SharedStorage),
              sizeof(ES), int(K::MaxThreadsPerBlock));
MEMBER_LINES
  std::printf("}}\n");
}
"""
# the plain sparse mainloop has no scale factors: those members are printed where they exist
HAS_SF = """
template <class T, class = void> struct has_sf : std::false_type {};
template <class T> struct has_sf<T, std::void_t<decltype(T::smem_SFA)>> : std::true_type {};
"""


def translation_unit(names: list[str]) -> str:
    parts = [f'#include "{h}"' for h in INCLUDES] + [
        "#include <cstddef>",
        "#include <cstdio>",
        "#include <type_traits>",
        HAS_SF,
    ]
    for n in names:
        parts.append(f"namespace {n} {{\n{VARIANTS[n]}}}  // namespace {n}\n")
    lines = []
    for i, (member, off, size) in enumerate(MEMBERS):
        sep = ", " if i else ""
        line = f'std::printf("{sep}\\"{member}\\": [%zu, %zu]", size_t({off}), size_t({size}));'
        if "_SF" in member:
            line = f"if constexpr (has_sf<MT>::value) {{ {line} }}"
        lines.append(f"  {line}")
    parts.append(REPORT.replace("MEMBER_LINES", "\n".join(lines)))
    parts.append("int main() {")
    parts += [f'  report<{n}::Kernel>("{n}");' for n in names]
    parts.append("  return 0;\n}")
    return "\n".join(parts) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("names", nargs="*", help="variants (default: all)")
    args = ap.parse_args()
    names = args.names or list(VARIANTS)
    cmd = ["-std=c++17", "-x", "cu", "-arch=sm_120a", "--expt-relaxed-constexpr"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "probe.cu", Path(tmp) / "probe"
        src.write_text(translation_unit(names))
        done = subprocess.run(
            [args.nvcc, *cmd, f"-I{args.include}", str(src), "-o", str(exe)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stderr[-20000:], file=sys.stderr)
            return 1
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in ran.stdout.splitlines()]
    for r in rows:
        r["chain"] = VARIANTS[r["kernel"]]
    version = re.findall(
        r"#define CUTLASS_(?:MAJOR|MINOR|PATCH) (\d+)",
        (args.include / "cutlass" / "version.h").read_text(),
    )
    nvcc = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout
    out = {
        "cutlass": ".".join(version),
        "nvcc": next(line for line in nvcc.splitlines() if "release" in line),
        "command": f"nvcc {' '.join(cmd)} -I<cutlass>/include probe.cu; ./probe",
        "made_by": "tests/tools/make_nvcc_sm120_cb_sparse_truth.py --include <cutlass>/include",
        "rows": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(rows)} rows -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
