"""An `#error` decided for the build that compiles the file: a JIT's defines per target (SGLang's
`SGL_CUDA_ARCH`), another vendor's guard a note (CUT216), never a false CUT009."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutlint.api import check
from cutlint.build_context import Request
from cutlint.context.resolve import resolve
from cutlint.engine.options import CheckOptions
from cutlint.producers.sglang import jit
from cutlint.producers.sglang.wheel import SglangError, download_wheel

# Written for this test, in the shape of SGLang's convrot_int8_entry.cuh: an entry header of the
# JIT that builds only for some GPUs.
ENTRY = b"""#pragma once
#include <sgl_kernel/utils.h>
#if SGL_CUDA_ARCH != 900 && SGL_CUDA_ARCH != 1200
#error "no GEMM path for this SGL_CUDA_ARCH (supported: 900, 1200)"
#endif
#ifdef __CUDACC__
#define OWN_IS_CUDA
#endif
#ifndef OWN_IS_CUDA
#error "compile with nvcc"
#endif
"""
ROCM = b"""#pragma once
#ifndef USE_ROCM
#error "targets gfx950; it is wave64 DPP"
#endif
"""


def jit_tree(root: Path) -> Path:
    """A JIT kernel directory as SGLang's install lays it out: include/sgl_kernel/ and csrc/."""
    (root / "include" / "sgl_kernel").mkdir(parents=True)
    (root / "include" / "sgl_kernel" / "utils.h").write_text("#pragma once\n")
    (root / "csrc" / "gemm").mkdir(parents=True)
    (root / "csrc" / "gemm" / "entry.cuh").write_bytes(ENTRY)
    (root / "csrc" / "rocm.cuh").write_bytes(ROCM)
    return root


def rules(path: Path, arch: str | None = None) -> list[tuple[str, int | None]]:
    result = check([path], CheckOptions(arch=arch) if arch else CheckOptions())
    return [(d.rule, d.line) for f in result.files for d in f.diagnostics]


def test_the_jit_define_decides_the_error_per_target(tmp_path: Path) -> None:
    entry = jit_tree(tmp_path / "jit") / "csrc" / "gemm" / "entry.cuh"
    # the GPU cutlint assumes (sm_120) and sm_90: SGL_CUDA_ARCH 1200 / 900, no error reached;
    # the file's own `#ifdef __CUDACC__` define counts, as nvcc compiles it
    assert rules(entry) == [("CUT006", None)]
    assert rules(entry, "sm_90") == [("CUT006", None)]
    # sm_89: the JIT passes -DSGL_CUDA_ARCH=890 and nvcc stops at the #error: a true CUT009
    assert rules(entry, "sm_89") == [("CUT009", 4)]
    msg = next(d.message for f in check([entry], CheckOptions(arch="sm_89")).files
               for d in f.diagnostics)  # fmt: skip
    assert "SGL_CUDA_ARCH=890" in msg


def test_another_vendors_error_is_a_note(tmp_path: Path) -> None:
    rocm = jit_tree(tmp_path / "jit") / "csrc" / "rocm.cuh"
    assert rules(rocm) == [("CUT216", 3)]
    # outside any JIT, too: the guard says whose file it is
    alone = tmp_path / "alone.cuh"
    alone.write_bytes(ROCM)
    assert rules(alone) == [("CUT216", 3)]


def test_without_a_jit_the_error_stands(tmp_path: Path) -> None:
    plain = tmp_path / "plain.cuh"
    plain.write_bytes(ENTRY.replace(b"#include <sgl_kernel/utils.h>\n", b""))
    assert ("CUT009", 3) in rules(plain)


def test_an_sglang_jit_source_is_known_by_what_it_is(tmp_path: Path) -> None:
    tree = jit_tree(tmp_path / "jit")
    inside = resolve(str(tree / "csrc" / "gemm" / "entry.cuh"))
    assert inside.producer is not None and inside.producer.value == "sglang"
    # a kernel of the user's own, outside the tree, that includes the JIT's headers
    own = tmp_path / "mine" / "kernel.cuh"
    own.parent.mkdir()
    own.write_bytes(ENTRY)
    assert resolve(str(own)).producer.value == "sglang"  # type: ignore[union-attr]
    # a header beside a csrc/ with no include/sgl_kernel/, that includes none: not SGLang's
    other = tmp_path / "other" / "csrc" / "x.cuh"
    other.parent.mkdir(parents=True)
    other.write_bytes(ROCM)
    assert resolve(str(other), request=Request()).producer is None


def test_the_jit_flags_per_arch() -> None:
    rel, own = jit.release("0.5.23")
    assert own
    assert jit.defines(120) == {"SGL_CUDA_ARCH": "1200"}
    assert jit.defines(103) == {"SGL_CUDA_ARCH": "1030"}
    flags = jit.cuda_flags(rel, 120, None, ["/inc"])
    assert "-gencode=arch=compute_120f,code=sm_120f" in flags  # nvcc >= 12.9: the family target
    assert "-gencode=arch=compute_120a,code=sm_120a" in jit.cuda_flags(rel, 120, None, [], (12, 8))
    assert "-gencode=arch=compute_100a,code=sm_100a" in jit.cuda_flags(rel, 100, None, [])
    assert "-gencode=arch=compute_121a,code=sm_121a" in jit.cuda_flags(rel, 121, None, [])


@pytest.fixture(scope="module")
def sglang_csrc() -> Path:
    try:
        root = download_wheel("0.5.23")
    except SglangError as e:
        pytest.skip(f"sglang 0.5.23 unavailable: {e}")
    return root / "sglang" / "kernels" / "jit" / "csrc"


def test_sglang_0_5_23_jit_sources_have_no_false_cut009(sglang_csrc: Path) -> None:
    """Every source and header of the real JIT tree (fetched at test time): the 10 CUT009 errors
    of a context-blind reading (8 ROCm headers, convrot_int8's SGL_CUDA_ARCH guard, kerutils'
    __CUDACC__ guard) are 8 CUT216 notes and nothing; on sm_89 convrot_int8's #error is real."""
    files = sorted(p for p in sglang_csrc.rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".hpp"))
    found = [r for p in files for r in rules(p)]  # one file at a time: a bounded memory
    codes = [c for c, _ in found]
    assert "CUT009" not in codes
    assert codes.count("CUT216") == 8
    convrot = sglang_csrc / "gemm" / "convrot_int8" / "convrot_int8_entry.cuh"
    assert rules(convrot, "sm_89") == [("CUT009", 62)]
    assert rules(convrot, "sm_100") == [("CUT006", None)]
