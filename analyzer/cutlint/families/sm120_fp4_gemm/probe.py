"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

The probe copy of `flashinfer/gemm/fp4_gemm_template_sm120.h` keeps each expansion of
`INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER` up to the end of its `DeviceGemmFp4GemmSm120_...` struct
(the last type definition: `using Gemm = GemmDefault;` and `};`) and replaces the rest of the
macro (the two launcher specializations that call `initialize` and `run`) by static
registrations that report both kernels the struct defines: `GemmKernelDefault` (the persistent
launcher's) and `GemmKernelStreamK` (the Stream-K launcher's). The headers of 0.5.0 - 0.6.3
define one kernel, `GemmKernel` (`using Gemm = typename ...GemmUniversalAdapter<GemmKernel>;`):
it is reported as `default`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

HEADER = "flashinfer/gemm/fp4_gemm_template_sm120.h"
_ARGS = "#T, #CTA_M_, #CTA_N_, #CTA_K_, #CGA_M_, #CGA_N_, #CGA_K_, #XSM_"
_NAME = "T##_##CTA_M_##_##CTA_N_##_##CTA_K_##_##CGA_M_##_##CGA_N_##_##CGA_K_##XSM_"


def _report(groups: dict[str, str]) -> str:
    """Both kernels' registrations, for the 9-argument macro (0.6.11 on) or the 8-argument one
    (0.6.8rc1 - 0.6.10.post1: no SWAP_AB_)."""
    swap = groups["struct"].endswith("##SWAP_AB_")
    name = _NAME + ("##SWAP_AB_" if swap else "")
    args = "{" + _ARGS + (", #SWAP_AB_" if swap else "") + "}"
    struct = groups["struct"]
    if groups["one"]:  # 0.5.0 - 0.6.3: one kernel, GemmKernel
        return (
            f"  static const bool cutlint_probe_default_##{name} =                \\\n"
            f"      ::cutlint_jit_probe::report<{struct}::GemmKernel>(               \\\n"
            f'          "default", __FILE__, __LINE__, {args});\n'
        )
    return (
        f"  static const bool cutlint_probe_default_##{name} =                \\\n"
        f"      ::cutlint_jit_probe::report<{struct}::GemmKernelDefault>(        \\\n"
        f'          "default", __FILE__, __LINE__, {args});                    \\\n'
        f"  static const bool cutlint_probe_streamk_##{name} =                \\\n"
        f"      ::cutlint_jit_probe::report<{struct}::GemmKernelStreamK>(        \\\n"
        f'          "streamk", __FILE__, __LINE__, {args});\n'
    )


PATCHES = (
    # Copied unchanged, so that its `#include "fp4_gemm_template_sm120.h"` finds the patched copy.
    HeaderPatch("flashinfer/gemm/fp4_gemm_cutlass_template_sm120.h", None, ""),
    HeaderPatch(
        header=HEADER,
        keep_through=re.compile(
            r"struct\s*(?:\\\s*)?(?P<struct>DeviceGemmFp4GemmSm120_[\w#]+)\s*\{.*?"
            r"using\s+Gemm\s*=\s*(?:GemmDefault|(?P<one>typename\s+cutlass::gemm::device::"
            r"GemmUniversalAdapter<GemmKernel>));[^\n]*\n[^\n]*\};[^\n]*\n",
            re.S,
        ),
        insert=_report,
    ),
)

MODULE = "fp4_gemm_cutlass_sm120"
INSTANTIATIONS = frozenset({"INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER"})


def claims_file(path: Path) -> bool:
    return path.name.startswith("fp4_gemm_cutlass_")
