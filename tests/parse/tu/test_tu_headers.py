"""Stubs for missing headers: what each library's stub declares."""

from __future__ import annotations

from pathlib import Path

from cutlint.parse.tu.headers import write_stubs


def test_cublas_stub_declares_the_handle(tmp_path: Path) -> None:
    write_stubs(["cublas_v2.h"], tmp_path)
    assert str(tmp_path / "cutlint_cublas.h") in (tmp_path / "cublas_v2.h").read_text()
    assert (
        "typedef struct cublasContext* cublasHandle_t;"
        in (tmp_path / "cutlint_cublas.h").read_text()
    )


def test_torch_stub_is_complete_only_for_a_real_compiler(tmp_path: Path) -> None:
    """libclang reads the incomplete classes; the nvcc probe (`CUTLINT_TU_NVCC`) gets complete
    ones, since a compiler also compiles the headers' non-template functions."""
    write_stubs(["torch/csrc/stable/tensor.h"], tmp_path)
    text = (tmp_path / "cutlint_torch.h").read_text()
    head, _, nvcc = text.partition("#ifdef CUTLINT_TU_NVCC")
    assert "class Tensor;" in head and "class Tensor {" not in head
    assert "class Tensor {" in nvcc and "int64_t size(int64_t) const" in nvcc


def test_library_includes_in_the_order_a_preprocessor_meets_them(tmp_path: Path) -> None:
    """What the front end parses first as the TU's precompiled preamble: CUTLASS's headers by
    their resolved path, the standard ones by name, the TU's own files never (their bodies are
    read by the dispatch walk), each once."""
    from cutlint.parse.tu.headers import library_includes

    cutlass = tmp_path / "cutlass_inc"
    (cutlass / "cutlass" / "gemm").mkdir(parents=True)
    for h in ("cutlass.h", "gemm/gemm.h"):
        (cutlass / "cutlass" / h).write_text("#include <cute/x.hpp>\n")  # not followed
    src = tmp_path / "src"
    src.mkdir()
    (src / "dispatch.cuh").write_text(
        '#include <vector>\n#include "cutlass/gemm/gemm.h"\n#include "cutlass/cutlass.h"\n'
    )
    main = src / "a.cu"
    main.write_text('#include "cutlass/cutlass.h"\n#include "dispatch.cuh"\n#include <torch/x.h>\n')
    found = library_includes(main, [cutlass])
    root = cutlass.resolve()
    assert found == [
        f'"{root / "cutlass" / "cutlass.h"}"',
        "<vector>",
        f'"{root / "cutlass" / "gemm" / "gemm.h"}"',
    ]


def test_curand_stub_declares_what_cutlass_tools_util_calls(tmp_path: Path) -> None:
    """CUTLASS's examples include tools/util's device reference fills, which use cuRAND's device
    API; a toolkit without cuRAND gets these declarations, so that nvcc (`--verify`) compiles
    them (example 68)."""
    write_stubs(["curand_kernel.h"], tmp_path)
    assert str(tmp_path / "cutlint_curand.h") in (tmp_path / "curand_kernel.h").read_text()
    text = (tmp_path / "cutlint_curand.h").read_text()
    assert "typedef struct curandStateXORWOW curandState_t;" in text
    for f in ("curand_init(", "curand_normal(", "curand_uniform(", "curand_uniform_double("):
        assert f in text
