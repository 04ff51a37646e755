"""How `cutlint verify` asks nvcc for this family's numbers (cutlint.families.probe; cutlint.verify.jit_probe runs it).

`INSTANTIATE_TGV_GEMM_HOST_{BF16_BF16,FP16_FP16}(CTA_M, CTA_N, DMA_Stage)` is an explicit
instantiation of the launcher `tgv_gemm_host` (tgv_gemm_template.h). The launcher's types are
local: the probe copy of `flashinfer/gemm/tgv_gemm.cuh` keeps the function up to the launch's
`config.blockDim = 256;` (after `int smemBytes = sizeof(SMEMStorage);`), odr-uses a registration
of `SMEMStorage` (jit_probe.hpp `registered_storage`) named by the function's
`__PRETTY_FUNCTION__`, with the launcher's `DMA_Stage` and the `blockDim` it sets, returns, and
resumes at the function's closing brace: no kernel is referenced, so nvcc generates no device
code. `macro_args` turns the function's template arguments back into the macro's arguments.
"""

from __future__ import annotations

import re
from pathlib import Path

from cutlint.families.probe import HeaderPatch, template_arguments

SM = 100
"""The device whose JIT modules are rendered (producers.flashinfer.jit_modules.GEN_PREFIXES)."""
GENCODE = "-gencode=arch=compute_100a,code=sm_100a"
"""What the probe compiles for (the cache's `100a` directory)."""

_INSERT = (
    "  struct CutlintProbeTag {\n"
    "    static const char* name() { return __PRETTY_FUNCTION__; }\n"
    '    static const char* label() { return "default"; }\n'
    "    static int stages() { return DMA_Stage; }\n"
    "    static int threads() { return $threads; }\n"
    "  };\n"
    "  (void)::cutlint_jit_probe::registered_storage<SMEMStorage, CutlintProbeTag>::done;\n"
    "  return;\n"
)

PATCHES = (
    HeaderPatch(
        "flashinfer/gemm/tgv_gemm.cuh",
        re.compile(r"config\.blockDim\s*=\s*(?P<threads>\d+);[^\n]*\n"),
        _INSERT,
        re.compile(r"^\}[ \t]*\n", re.M),
    ),
)
MODULES = ("tgv_gemm_bf16", "tgv_gemm_fp16")
INSTANTIATIONS = frozenset(
    {"INSTANTIATE_TGV_GEMM_HOST_BF16_BF16", "INSTANTIATE_TGV_GEMM_HOST_FP16_FP16"}
)

_FILE = re.compile(r"^tgv_gemm_(?P<dtype>bf16|fp16)_(?P<m>\d+)x(?P<n>\d+)_(?P<stages>\d+)\.cu$")


def claims_file(path: Path) -> bool:
    return _FILE.match(path.name) is not None


def tu_key(path: Path) -> str:
    """One translation unit per module (the real build's files are TUs of their own)."""
    return path.parent.name


def macro_args(where: str) -> tuple[str, ...] | None:
    """(CTA_M, CTA_N, DMA_Stage) from the launcher's `__PRETTY_FUNCTION__`."""
    a = template_arguments(where)
    if not {"CTA_M", "CTA_N", "DMA_Stage"} <= a.keys():
        return None
    return (a["CTA_M"], a["CTA_N"], a["DMA_Stage"])


FILES_PER_COMPILE = 11
"""A module's eleven files (one launcher each, host code only) in one translation unit."""


def sample(path: Path) -> bool:
    """Every file of both modules: eleven tiles and stage counts, both element types."""
    return claims_file(path)
