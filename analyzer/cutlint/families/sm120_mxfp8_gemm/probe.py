"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

The probe copy of `flashinfer/gemm/mxfp8_gemm_template_sm120.h` keeps each expansion of
`INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120` up to the end of its
`DeviceGemmMxfp8GemmSm120_...` struct (the last type definition: `using Gemm = ...;` and `};`),
and replaces the rest of the macro (argument packing, the launcher specialization that calls
`initialize` and `run`) by a static registration that reports the struct's `GemmKernel`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

HEADER = "flashinfer/gemm/mxfp8_gemm_template_sm120.h"


def _report(groups: dict[str, str]) -> str:
    """The registration, for the 5-argument macro (0.6.11 on) or the 4-argument one (0.6.8rc1 -
    0.6.10.post1: no SWAP_AB_)."""
    swap = groups["swap"]
    args = "#T, #CTA_M_, #CTA_N_, #CTA_K_" + (", #SWAP_AB_" if swap else "")
    return (
        f"  static const bool cutlint_probe_##T##_##CTA_M_##_##CTA_N_##_##CTA_K_{swap} = \\\n"
        f"      ::cutlint_jit_probe::report<{groups['struct']}::GemmKernel>(              \\\n"
        f'          "default", __FILE__, __LINE__, {{{args}}});\n'
    )


PATCHES = (
    HeaderPatch(
        header=HEADER,
        keep_through=re.compile(
            r"struct\s+(?P<struct>DeviceGemmMxfp8GemmSm120_##T##_##CTA_M_##_##CTA_N_##_##CTA_K_"
            r"(?P<swap>##SWAP_AB_)?)\s*\{.*?"
            r"using\s+Gemm\s*=\s*typename\s+cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;"
            r"[^\n]*\n[^\n]*\};[^\n]*\n",
            re.S,
        ),
        insert=_report,
    ),
)
"""The macro is defined twice (the PLACEHOLDER_KERNELS stub has no struct): only the real one
matches."""

MODULE = "mxfp8_gemm_cutlass_sm120"
"""The JIT module whose rendered files this family's instantiations live in."""

INSTANTIATIONS = frozenset({"INSTANTIATE_MXFP8_GEMM_KERNEL_LAUNCHER_SM120"})
"""The macro (or launcher) names whose instantiations this probe reports."""


def claims_file(path: Path) -> bool:
    """The module's rendered files that hold this family's instantiations (not the copies)."""
    return path.name.startswith("mxfp8_gemm_cutlass_sm120_")
