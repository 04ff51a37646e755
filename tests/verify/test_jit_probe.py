"""The JIT-module probe's header copies (no compiler needed) and one real compile."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cutlint.verify.jit_probe import HeaderPatch, patch_header, run_probe, template_arguments
from cutlint.verify.probe_records import ProbeError

HEADER = """#pragma once
#include "sibling.h"
#ifdef PLACEHOLDER
#define INSTANTIATE_X(T, N) void f_##T##N() {}
#else
#define INSTANTIATE_X(T, N)                \\
  struct S_##T##_##N {                     \\
    using K = int;                         \\
    using Gemm = typename Adapter<K>;      \\
  };                                       \\
  void run_##T##_##N() { launch(); }
#endif
int after;
"""


def test_macro_patch_keeps_the_types_and_is_host_only(tmp_path: Path) -> None:
    (tmp_path / "sibling.h").write_text("")
    patch = HeaderPatch(
        "x.h",
        re.compile(
            r"struct\s+(?P<struct>S_[\w#]+)\s*\{.*?using\s+Gemm[^\n]*\n[^\n]*\};[^\n]*\n", re.S
        ),
        "  static const bool r_##T##_##N = report<$struct::K>(#T);\n",
    )
    out = patch_header(HEADER, patch, tmp_path)
    assert out.startswith('#include "cutlint_jit_probe.hpp"\n')
    assert f'#include "{(tmp_path / "sibling.h").resolve()}"' in out
    assert "#define INSTANTIATE_X(T, N) void f_##T##N() {}" in out  # the placeholder is untouched
    assert "static const bool r_##T##_##N = report<S_##T##_##N::K>(#T);" in out
    assert "launch()" not in out and "int after;" in out
    host = out.index("#ifndef __CUDA_ARCH__")
    assert host < out.index("struct S_") < out.index("#define INSTANTIATE_X(...)")


def test_missing_anchor_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match="anchor"):
        patch_header("int x;\n", HeaderPatch("x.h", re.compile("nothing"), ""), tmp_path)


def test_template_arguments_from_pretty_function() -> None:
    pretty = (
        "static const char* flashinfer::gemm::CutlassGroupwiseScaledGEMMSM120(void*, size_t)"
        "::CutlintProbeTag::name() [with int ScaleGranularityM = 1; int ScaleGranularityN = 128; "
        "int ScaleGranularityK = 128; bool ScaleMajorK = true; DTypeIn = cutlass::float_e4m3_t; "
        "DTypeOut = cutlass::half_t]"
    )
    assert list(template_arguments(pretty).values()) == [
        "1", "128", "128", "true", "cutlass::float_e4m3_t", "cutlass::half_t",
    ]  # fmt: skip


@pytest.mark.compiler
def test_one_real_mxfp8_compile(jit_modules: Any, flashinfer_root: Any, tmp_path: Path) -> None:
    """The representative compile of the JIT families: the 256x128 MXFP8 file of 0.6.11.post2,
    whose kernels need 111,616 B (flashinfer#3568)."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    from cutlint.families.sm120_mxfp8_gemm import probe

    module = next(m for m in jit_modules("0.6.11.post2") if m.name == probe.MODULE)
    files = [p for p in module.generated if p.name.endswith("half_256_128_128.cu")]
    run = run_probe(
        flashinfer_root("0.6.11.post2"), files, probe.PATCHES, module.cuda_flags, tmp_path
    )
    assert [(r.args[-1], r.stages, r.kernel_smem) for r in run.rows] == [
        ("true", 2, 111616),
        ("false", 2, 111616),
    ]


def test_svdquant_patches_the_real_header(flashinfer_root: Any, tmp_path: Path) -> None:
    """The SVDQuant probe keeps the 0.7.4 header whole (configs, kernels, class-scope
    static_asserts) and redefines, for the host pass only, the two macros the rendered files call;
    STATIC_TACTIC expands to the patched TACTIC."""
    from cutlint.families.sm120_svdquant import probe

    real = flashinfer_root("0.7.4") / "flashinfer" / "data" / "include" / probe.HEADER
    text = real.read_text()
    for p in probe.PATCHES:
        text = patch_header(text, p, real.parent)
    assert text.count("#ifndef __CUDA_ARCH__  // cutlint probe: host pass only") == 2
    assert "report<Config::GemmKernel>(" in text
    assert "report<Config::GemmKernelNoInlineDown>(" in text
    for macro in ("TACTIC", "NO_INLINE_DOWN_TACTIC"):
        start = text.index(f"#define INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_{macro}(Config)")
        body = text[start : text.index("#else", start)]
        assert "report<" in body and "template void" not in body, body
    assert (
        "static_assert(GemmKernel::SharedStorageSize <= cutlass::arch::sm120_smem_capacity_bytes"
        in text
    )
    assert "#define INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_STATIC_TACTIC(Config)" in text
    assert "#define INSTANTIATE_NVFP4_SVDQUANT_GEMM_SM120_NO_INLINE_DOWN_TACTIC(...)" in text


@pytest.mark.parametrize(("version", "swap_ab"), [("0.6.8.post1", False), ("0.6.11.post2", True)])
def test_fp4_group_gemm_patch_follows_the_macro_parameters(
    flashinfer_root: Any, version: str, swap_ab: bool
) -> None:
    """0.6.8rc1 - 0.6.10.post1's grouped FP4 macros have no SwapAB: the probe's tail names the
    function and reports the arguments without it there, and with it from 0.6.11rc1."""
    from cutlint.families.sm120_fp4_group_gemm import probe

    include = flashinfer_root(version) / "flashinfer" / "data" / "include"
    for p in probe.PATCHES:
        real = include / p.header
        text = patch_header(real.read_text(), p, real.parent)
        tail = text[text.index("::cutlint_jit_probe::report<GemmKernel>") :]
        tail = tail[: tail.index("#else")]
        assert ("#SwapAB" in tail) is swap_ab
        assert ("##_##SwapAB##_##" in tail) is swap_ab
