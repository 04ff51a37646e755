"""Fixtures for `cutlint verify`: a stand-in nvcc and FlashInfer roots for the setup errors, the
real nvcc for the compiler tests (skipped, with the reason, where it is absent)."""

from __future__ import annotations

import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.verify.nvcc_probe import LAUNCHER_REL

# One real line of FlashInfer 0.6.3's M256_BS_group0 file (the FINALIZE SwapAB-off 102,400 B case).
CALL = (
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, "
    "EpilogueOpDefault, FINALIZE, 256, 128, 128, 1, 1, 1, false, false, false, false);\n"
)


def cache_layout_file(base: Path, version: str) -> Path:
    """A one-instantiation file at its place in FlashInfer's JIT cache layout."""
    d = base / "flashinfer" / version / "120a" / "generated" / "cutlass_instantiations" / "120"
    d = d / "gemm_grouped" / "120"
    d.mkdir(parents=True, exist_ok=True)
    f = d / "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"
    f.write_text(f"#if defined(ENABLE_FP4)\n{CALL}#endif\n")
    return f


@pytest.fixture
def generated_file(tmp_path: Path) -> Callable[..., Path]:
    """version, [cache name] -> a one-instantiation file in a JIT cache under tmp_path."""
    return lambda version, cache="jit": cache_layout_file(tmp_path / cache, version)


@pytest.fixture
def fake_nvcc(tmp_path: Path) -> Path:
    """An `nvcc` that only answers --version: enough for every check made before a compile."""
    script = tmp_path / "bin" / "nvcc"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
        "echo 'Cuda compilation tools, release 13.0, V13.0.88'\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture
def fake_root(tmp_path: Path) -> Callable[[str | None, str], Path]:
    """A FlashInfer root with the launcher, a version.h and (optionally) _build_meta.py."""

    def make(flashinfer: str | None, cutlass: str) -> Path:
        root = tmp_path / f"root-{flashinfer}-{cutlass}"
        launcher = root / "flashinfer" / "data" / "csrc" / "nv_internal" / LAUNCHER_REL
        launcher.parent.mkdir(parents=True)
        launcher.write_text("// launcher\n")
        major, minor, patch = cutlass.split(".")
        version_h = root / "flashinfer" / "data" / "cutlass" / "include" / "cutlass" / "version.h"
        version_h.parent.mkdir(parents=True)
        version_h.write_text(
            f"#define CUTLASS_MAJOR {major}\n#define CUTLASS_MINOR {minor}\n"
            f"#define CUTLASS_PATCH {patch}\n"
        )
        if flashinfer is not None:
            (root / "flashinfer" / "_build_meta.py").write_text(f'__version__ = "{flashinfer}"\n')
        return root

    return make


@pytest.fixture(scope="session")
def nvcc() -> str:
    found = shutil.which("nvcc")
    if found is None:
        pytest.skip("nvcc not found on PATH: the compiler tests ask the CUDA compiler (>= 12.8)")
    return found
