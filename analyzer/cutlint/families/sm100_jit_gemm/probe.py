"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

FP4 and MXFP8 (`INSTANTIATE_*_GEMM_KERNEL_LAUNCHER`): the probe copies of
`flashinfer/gemm/fp4_gemm_template_sm100.h` and `mxfp8_gemm_template_sm100.h` keep each expansion
of the macro up to the end of its `DeviceGemm*Sm100_...` struct (`using Gemm = ...;` and `};`)
and replace the rest (argument packing, `initialize`, `run`) by a static registration of the
struct's `GemmKernel`, with the stringized macro arguments.

FP8 and BF16 (`INSTANCE_*_GEMM_TEMPLATE_SM100`, an explicit instantiation of a launcher function
template whose kernel types are local): the probe copies of `fp8_gemm_template_sm100.h` and
`bf16_gemm_template_sm100.h` keep the function up to `using Gemm = ...GemmUniversalAdapter<
GemmKernel>;`, odr-use a registration of `GemmKernel` named by the function's
`__PRETTY_FUNCTION__` (its template arguments), return, and resume at the function's closing
brace. `macro_args` turns those template arguments back into the macro's arguments.

Each module is its own translation unit (the four headers each define `_1SM`, `_2SM` and
`SMTypeAdapter`): `tu_key`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch, template_arguments

SM = 100
"""The device whose JIT modules are rendered (producers.flashinfer.jit_modules.GEN_PREFIXES)."""
GENCODE = "-gencode=arch=compute_100a,code=sm_100a"
"""What the JIT passes for a 10.0 part (compilation_context.py: compute_100a)."""

_ARGS = "{#T, #CTA_M_, #CTA_N_, #CTA_K_, #CGA_M_, #CGA_N_, #CGA_K_, #XSM_}"
_NAME = "T##_##CTA_M_##_##CTA_N_##_##CTA_K_##_##CGA_M_##_##CGA_N_##_##CGA_K_##XSM_"


def _macro_patch(header: str, struct: str) -> HeaderPatch:
    return HeaderPatch(
        header=header,
        keep_through=re.compile(
            rf"struct\s*(?:\\\s*)?(?P<struct>{struct}_[\w#]+)\s*\{{.*?"
            r"using\s+Gemm\s*=\s*typename\s+cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;"
            r"[^\n]*\n[^\n]*\};[^\n]*\n",
            re.S,
        ),
        insert=(
            f"  static const bool cutlint_probe_default_##{_NAME} =                \\\n"
            "      ::cutlint_jit_probe::report<$struct::GemmKernel>(               \\\n"
            f'          "default", __FILE__, __LINE__, {_ARGS});\n'
        ),
    )


_FN_INSERT = (
    "  struct CutlintProbeTag {\n"
    "    static const char* name() { return __PRETTY_FUNCTION__; }\n"
    '    static const char* label() { return "default"; }\n'
    "  };\n"
    "  (void)::cutlint_jit_probe::registered<GemmKernel, CutlintProbeTag>::done;\n"
    "  return 0;\n"
)
_GROUP_INSERT = _FN_INSERT.replace("return 0;", "return cudaSuccess;")
_FN_KEEP = re.compile(
    r"using\s+Gemm\s*=\s*cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;[^\n]*\n"
)
_FN_RESUME = re.compile(r"^\}[ \t]*\n", re.M)

MODULE_PATCHES = {
    # The *_cutlass_template.h headers are copied unchanged, so that their `#include
    # "..._template_sm100.h"` finds the patched copy.
    "fp4_gemm_cutlass": (
        HeaderPatch("flashinfer/gemm/fp4_gemm_cutlass_template.h", None, ""),
        _macro_patch("flashinfer/gemm/fp4_gemm_template_sm100.h", "DeviceGemmFp4GemmSm100"),
    ),
    # the SM103 module's generic files include the SM100 FP4 header (its store256 ones after
    # defining FLASHINFER_SM103_GENERIC_NOSMEM_EPILOGUE), its ultra (K768) files
    # fp4_gemm_cutlass_template_sm103.h, which includes both template headers
    "fp4_gemm_cutlass_sm103": (
        HeaderPatch("flashinfer/gemm/fp4_gemm_cutlass_template.h", None, ""),
        HeaderPatch("flashinfer/gemm/fp4_gemm_cutlass_template_sm103.h", None, ""),
        _macro_patch("flashinfer/gemm/fp4_gemm_template_sm100.h", "DeviceGemmFp4GemmSm100"),
        _macro_patch("flashinfer/gemm/fp4_gemm_template_sm103.h", "DeviceGemmFp4GemmSm103"),
    ),
    # INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC(Config) (explicit instantiations of the run-time
    # functions) becomes a registration of Config::GemmKernel with the stringized Config
    "nvfp4_svdquant_gemm_cutlass": (
        HeaderPatch(
            "flashinfer/gemm/nvfp4_svdquant_gemm_template_sm100.h",
            re.compile(r"#define\s+INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC\(Config\)[ \t]*\\\n"),
            "  static const bool cutlint_probe_##Config =                               \\\n"
            '      ::cutlint_jit_probe::report<Config::GemmKernel>("default", __FILE__, __LINE__, {#Config});\n',
        ),
    ),
    "mxfp8_gemm_cutlass": (
        HeaderPatch("flashinfer/gemm/mxfp8_gemm_cutlass_template.h", None, ""),
        _macro_patch("flashinfer/gemm/mxfp8_gemm_template_sm100.h", "DeviceGemmMxfp8GemmSm100"),
    ),
    "fp8_gemm_cutlass": (
        HeaderPatch("flashinfer/gemm/fp8_gemm_template_sm100.h", _FN_KEEP, _FN_INSERT, _FN_RESUME),
    ),
    "bf16_gemm_cutlass": (
        HeaderPatch("flashinfer/gemm/bf16_gemm_template_sm100.h", _FN_KEEP, _FN_INSERT, _FN_RESUME),
    ),
    "gemm_sm100": (
        HeaderPatch(
            "flashinfer/gemm/group_gemm_mxfp4_groupwise_sm100.cuh",
            _FN_KEEP,
            _GROUP_INSERT,
            _FN_RESUME,
        ),
        # both launchers of the header (the regular and the low-latency one)
        HeaderPatch(
            "flashinfer/gemm/gemm_groupwise_sm100.cuh", _FN_KEEP, _GROUP_INSERT, _FN_RESUME
        ),
        HeaderPatch(
            "flashinfer/gemm/group_gemm_fp8_groupwise_sm100.cuh",
            _FN_KEEP,
            _GROUP_INSERT,
            _FN_RESUME,
        ),
    ),
}
"""Each module's patches: its files include only its own header (0.6.3 has no MXFP8 one)."""
PATCHES = tuple(p for patches in MODULE_PATCHES.values() for p in patches)

MODULES = (
    "fp4_gemm_cutlass",
    "mxfp8_gemm_cutlass",
    "fp8_gemm_cutlass",
    "bf16_gemm_cutlass",
    "gemm_sm100",
    "fp4_gemm_cutlass_sm103",
    "nvfp4_svdquant_gemm_cutlass",
)
MODULE_SM = {"fp4_gemm_cutlass_sm103": 103}
"""Modules rendered and compiled for another device than SM."""
GENCODES = {103: "-gencode=arch=compute_103a,code=sm_103a"}
INSTANTIATIONS = frozenset(
    {
        "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER",
        "INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER",
        "INSTANCE_FP8_GEMM_TEMPLATE_SM100",
        "INSTANCE_BF16_GEMM_TEMPLATE_SM100",
        "CutlassMXFP4GroupwiseScaledGroupGEMMSM100",
        "CutlassGroupwiseScaledGEMMSM100",
        "CutlassGroupwiseScaledGEMMSM100LowLatency",
        "CutlassFP8GroupwiseScaledGroupGEMMSM100",
        "INSTANTIATE_FP4_ULTRA_GEMM_KERNEL_LAUNCHER",
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_TACTIC",
    }
)
_FILES = (
    "fp4_gemm_cutlass_",
    "mxfp8_gemm_cutlass_",
    "fp8_gemm_cutlass_",
    "bf16_gemm_cutlass_",
    "group_gemm_mxfp4_groupwise_e",
    "gemm_groupwise_e",
    "group_gemm_fp8_groupwise_e",
    "nvfp4_svdquant_gemm_cutlass_",
)


def claims_file(path: Path) -> bool:
    return path.name.startswith(_FILES)


def tu_key(path: Path) -> str:
    """One translation unit per module (the real build's files are TUs of their own); the SM103
    module's ultra files apart from its generic ones (fp4_gemm_cutlass_template_sm103.h and
    fp4_gemm_cutlass_template.h share one include guard, and the ultra header includes the SM100
    one without the store256 defines)."""
    ultra = _TILE.match(path.name)
    if ultra is not None and int(ultra["k"]) == ULTRA_TILE_K:
        return f"{path.parent.name}-ultra"
    return path.parent.name


ULTRA_TILE_K = 768
"""fp4_gemm_cutlass_template_sm103.h: the K768 tiles are the ultra kernels."""


_CLUSTER_DIM = re.compile(r"C<(\d+)>")
_PRINTED_AS = {"__half": "half"}
"""How the compiler prints a RET_TYPE the source spells otherwise (cuda_fp16.h: half is __half)."""


def macro_args(where: str) -> tuple[str, ...] | None:
    """`INSTANCE_*_GEMM_TEMPLATE_SM100`'s arguments (RET_TYPE, TILE_M, TILE_N, TILE_K, CGA_M_,
    CGA_N_, CGA_K_, SM_TYPE) from the launcher's `__PRETTY_FUNCTION__`; None for a row of a
    macro-struct kernel (its `where` is a file)."""
    a = template_arguments(where)
    if "CTA_M_" not in a or "ClusterShape_" not in a:
        return None
    cluster = _CLUSTER_DIM.findall(a["ClusterShape_"])
    sm = a["XSM_"].rsplit("::", 1)[-1]
    out = _PRINTED_AS.get(a["T"], a["T"])
    return (out, a["CTA_M_"], a["CTA_N_"], a["CTA_K_"], *cluster, sm)


FILES_PER_COMPILE = 2
"""Two files (up to 18 kernels) per translation unit keep one host-only compile near 2-3 GB."""
MODULE_FILES_PER_COMPILE = {"nvfp4_svdquant_gemm_cutlass": 8}
"""The SVDQuant module's files hold one kernel each: all eight in one translation unit."""

_SAMPLE_TYPES = {"bf16_gemm_cutlass_": ("__nv_bfloat16", "half", "float")}
_TILE = re.compile(
    r"^(?P<prefix>[a-z0-9]+_gemm_cutlass_(?:store256_)?)(?P<type>\w+?)_(?P<m>\d+)_(?P<n>\d+)_(?P<k>\d+)\.cu$"
)


_GROUP_FILE = re.compile(
    r"^group_gemm_mxfp4_groupwise_(?P<a>e4m3|e5m2)_(?P<d>f16|bf16)_mma(?P<mma>\d)_swap(?P<swap>true|false)_sm100\.cu$"
)


_GROUPWISE_FILE = re.compile(
    r"^(?:group_)?gemm_(?:fp8_)?groupwise_(?P<a>e4m3|e5m2)_(?P<d>f16|bf16)_major(?P<major>true|false)_mma(?P<mma>\d)_sm100\.cu$"
)


def sample(path: Path) -> bool:
    """The stratified sample the truth is taken on: every tile of every module once, with its
    output type rotating over the module's types (`(M/64 + N/64 + K/128) mod types`), so that each
    type, each XSM and each cluster argument of the template is compiled; of the grouped MXFP4
    files, one per MmaSM and SwapAB (all eight tiles each), of the blockwise ones one per MmaSM
    and ScaleMajorK (both granularities and the low-latency kernel each), the A and D types
    alternating."""
    w = _GROUPWISE_FILE.match(path.name)
    if w is not None:
        return (w["a"] == "e4m3") == (w["major"] == "true") and (w["d"] == "bf16") == (
            w["mma"] == "1"
        )
    g = _GROUP_FILE.match(path.name)
    if g is not None:
        return (g["a"] == "e4m3") == (g["swap"] == "true") and (g["d"] == "bf16") == (
            g["mma"] == "1"
        )
    if path.name.startswith("nvfp4_svdquant_gemm_cutlass_"):
        return True  # one kernel per file: every Config
    m = _TILE.match(path.name)
    if m is None:
        return False
    generic = "store256" not in m["prefix"] and int(m["k"]) != ULTRA_TILE_K
    if path.parent.name.startswith("gen_gemm_sm103") and generic:
        return False  # the SM100 FP4 kernels again (the SM100 module's rows hold them)
    types = _SAMPLE_TYPES.get(m["prefix"], ("__nv_bfloat16", "half"))
    index = int(m["m"]) // 64 + int(m["n"]) // 64 + int(m["k"]) // 128
    return m["type"] == types[index % len(types)]
