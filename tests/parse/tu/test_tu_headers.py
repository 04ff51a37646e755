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
