"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

Both launchers are function templates whose kernel types are local. The probe copies of
`gemm_groupwise_sm120.cuh` and `group_gemm_fp8_groupwise_sm120.cuh` keep each function up to
`using Gemm = ...GemmUniversalAdapter<GemmKernel>;`, then odr-use a registration that reports
`GemmKernel` with the function's `__PRETTY_FUNCTION__` (its template arguments) and return; the
run-time part up to the `#else` of `CUTLASS_ARCH_MMA_SM120_SUPPORTED` is dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

_INSERT = (
    "  struct CutlintProbeTag {\n"
    "    static const char* name() { return __PRETTY_FUNCTION__; }\n"
    '    static const char* label() { return "default"; }\n'
    "  };\n"
    "  (void)::cutlint_jit_probe::registered<GemmKernel, CutlintProbeTag>::done;\n"
    "  return cudaSuccess;\n"
)
_KEEP = re.compile(
    r"using\s+Gemm\s*=\s*(?:typename\s+)?cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;[^\n]*\n"
)
_RESUME = re.compile(r"^#else\b", re.M)

PATCHES = (
    HeaderPatch("flashinfer/gemm/gemm_groupwise_sm120.cuh", _KEEP, _INSERT, _RESUME),
    HeaderPatch("flashinfer/gemm/group_gemm_fp8_groupwise_sm120.cuh", _KEEP, _INSERT, _RESUME),
)

MODULE = "gemm_sm120"
INSTANTIATIONS = frozenset(
    {"CutlassGroupwiseScaledGEMMSM120", "CutlassFP8GroupwiseScaledGroupGEMMSM120"}
)


def claims_file(path: Path) -> bool:
    return path.name.startswith(("gemm_groupwise_e", "group_gemm_fp8_groupwise_e"))
