"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

The probe copy of `flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h` keeps the header whole
(every config, its `GemmKernel` and `GemmKernelNoInlineDown`, and the class-scope static_asserts
on their SharedStorageSize) and redefines, for the host pass, the two macros the rendered files
call: `INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC(Config)` (which
`..._STATIC_TACTIC(Config)` expands to) reports `Config::GemmKernel` (label `default`), and
`INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC(Config)` reports
`Config::GemmKernelNoInlineDown` (label `no_inline_down`), instead of explicitly instantiating
the launcher functions (`run_tactic`, ... whose bodies call `initialize` and `run`).
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch

HEADER = "flashinfer/gemm/nvfp4_svdquant_gemm_template_sm120.h"

LABELS = {
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC": "default",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC": "default",
    "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC": "no_inline_down",
}
"""Which probe row (its label) each macro's call instantiates (cutlint.verify.jit_truth keeps
only that row for the call: a file's TACTIC and NO_INLINE_DOWN_TACTIC calls share their argument)."""


def _patch(macro: str, label: str, kernel: str) -> HeaderPatch:
    return HeaderPatch(
        header=HEADER,
        keep_through=re.compile(rf"#define {macro}\(Config\)[ \t]*\\\n"),
        insert=(
            f"  static const bool cutlint_probe_{label}_##Config =                     \\\n"
            f"      ::cutlint_jit_probe::report<Config::{kernel}>(                       \\\n"
            f'          "{label}", __FILE__, __LINE__, {{#Config}});\n'
        ),
    )


PATCHES = (
    _patch("INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_TACTIC", "default", "GemmKernel"),
    _patch(
        "INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC",
        "no_inline_down",
        "GemmKernelNoInlineDown",
    ),
)

MODULE = "nvfp4_svdquant_gemm_cutlass_sm120"
"""The JIT module whose rendered files this family's instantiations live in."""

INSTANTIATIONS = frozenset(LABELS)
"""The macro names whose instantiations this probe reports."""


def claims_file(path: Path) -> bool:
    """The module's rendered files that hold this family's instantiations."""
    return path.name.startswith("nvfp4_svdquant_gemm_cutlass_sm120_")
