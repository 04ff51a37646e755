"""`verify --device-code` derives a generated file's flags from its release (device_flags.py):
the fused-MoE module's for a macro file, the JIT module's own `extra_cuda_cflags` for a
`gen_gemm_*` file; no nvcc run."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from cutlint.verify.device_code import file_flags
from cutlint.verify.device_flags import DeviceFlagsError, derivable, derive


def test_macro_file_gets_the_sm120_fused_moe_module_flags(
    real_cache: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    f = sorted(real_cache("0.7.4").glob("*M256_BS_group0*.cu"))[0]
    root = flashinfer_root("0.7.4")
    d = derive(f, root, tmp_path)
    assert d.target == "sm_120a" and d.source == "fused-MoE module, Sm120"
    assert "-DCOMPILE_BLACKWELL_SM120_TMA_GROUPED_GEMMS" in d.flags
    assert f"-I{root / 'flashinfer' / 'data' / 'csrc' / 'nv_internal'}" in d.flags
    assert not any(x.startswith("-gencode") for x in d.flags)  # the target is the caller's


def test_jit_module_file_gets_its_modules_flags(
    jit_modules: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    module = next(m for m in jit_modules("0.7.4") if "mxfp8" in m.name)
    f = module.generated[0]
    d = derive(f, flashinfer_root("0.7.4"), tmp_path / "render")
    assert d.target == "sm_120f" and d.source == f"JIT module {module.name}"
    assert set(module.cuda_flags) - {x for x in module.cuda_flags if "gencode" in x} <= set(d.flags)


def test_other_files_are_not_derived(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k() {}\n")
    assert not derivable(f)
    with pytest.raises(DeviceFlagsError, match="--device-flag"):
        derive(f, tmp_path, tmp_path)
    # as before: a plain file compiles with the caller's flags and the --arch target
    assert file_flags(f, "sm_120", (), object(), "nvcc", tmp_path) == ([], "sm_120a", None)


class _Search:
    """A headers.HeaderSearch that always answers with one root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def for_version(self, version: str | None, path: str) -> Any:
        assert version == "0.7.4"
        return self


def test_file_flags_of_a_cache_file_are_derived(
    real_cache: Any, flashinfer_root: Any, tmp_path: Path
) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH (asked whether cuBLAS headers are real)")
    f = sorted(real_cache("0.7.4").glob("*M128_BS_group0*.cu"))[0]
    search = _Search(flashinfer_root("0.7.4"))
    flags, target, why = file_flags(f, None, (), search, "nvcc", tmp_path)
    assert why is None and target == "sm_120a"
    assert "-DENABLE_FP4" in flags and "--compiler-options=-fPIC" not in flags
    assert file_flags(f, None, ("-DX",), search, "nvcc", tmp_path) == (["-DX"], "sm_90a", None)
