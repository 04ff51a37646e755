"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

`CutlassSegmentGEMMSM90Run` is a function template whose kernel types are local to each branch of
DISPATCH_WEIGHT_LAYOUT. The probe copy of `group_gemm_sm90.cuh` keeps the function up to `using
Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;`, odr-uses a registration of
`GemmKernel` labelled by the branch's weight layout (`b_k_major` for ColumnMajor B, `b_n_major`
for RowMajor B) and named by the function's `__PRETTY_FUNCTION__` (its template arguments),
returns, and resumes at the closing of the macro's `else` block: the run-time part (arguments,
`initialize`, `run`) is dropped, so no GEMM device code is generated.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

SM = 90
"""The device whose JIT modules are rendered (producers.flashinfer.jit_modules.GEN_PREFIXES)."""
GENCODE = "-gencode=arch=compute_90a,code=sm_90a"
"""What the JIT passes for a 9.0 part (jit/core.py sm90a_nvcc_flags)."""

_INSERT = (
    "      struct CutlintProbeTag {\n"
    "        static const char* name() { return __PRETTY_FUNCTION__; }\n"
    "        static const char* label() {\n"
    '          return std::is_same_v<WEIGHT_LAYOUT, cutlass::layout::ColumnMajor> ? "b_k_major"\n'
    '                                                                           : "b_n_major";\n'
    "        }\n"
    "      };\n"
    "      (void)::cutlint_jit_probe::registered<GemmKernel, CutlintProbeTag>::done;\n"
    "      return cudaSuccess;\n"
)
_KEEP = re.compile(
    r"using\s+Gemm\s*=\s*cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;[^\n]*\n"
)
# the end of DISPATCH_WEIGHT_LAYOUT's body: `    }` (the else block) and `  });`
_RESUME = re.compile(r"^    \}\n  \}\);", re.M)

PATCHES = (HeaderPatch("flashinfer/gemm/group_gemm_sm90.cuh", _KEEP, _INSERT, _RESUME),)

MODULE = "gemm_sm90"
INSTANTIATIONS = frozenset({"CutlassSegmentGEMMSM90Run"})


def claims_file(path: Path) -> bool:
    return path.name.startswith("group_gemm_") and path.name != "group_gemm_sm90.cu"
