"""The probe's compile command: FlashInfer's JIT flags, its include layout, extra system headers.

Mirrors what FlashInfer's own JIT build of the fused-MoE module of the file's arch passes, so the probe
compiles the generated file exactly as a real build would (the sources are named beside each
flag list).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.context.of_file import target_at
from cutlint.producers.flashinfer.jit_flags import (
    JIT_DEFAULT_FLAGS,
    SM90_DEFINES,
    SM90_GENCODE,
    SM100_DEFINES,
    SM100_GENCODE,
    SM103_DEFINES,
    SM103_GENCODE,
    SM120_DEFINES,
    SM120_GENCODE,
)
from cutlint.verify import cublas

LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
)


@dataclass(frozen=True)
class ProbeTarget:
    """The arch-specific part of the compile command: the module's defines and its gencode."""

    arch_tag: str
    defines: tuple[str, ...]
    gencode: str


SM120_TARGET = ProbeTarget("Sm120", SM120_DEFINES, SM120_GENCODE)
SM90_TARGET = ProbeTarget("Sm90", SM90_DEFINES, SM90_GENCODE)
SM100_TARGET = ProbeTarget("Sm100", SM100_DEFINES, SM100_GENCODE)
SM103_TARGET = ProbeTarget("Sm103", SM103_DEFINES, SM103_GENCODE)
TARGETS: dict[str, ProbeTarget] = {
    t.arch_tag: t for t in (SM120_TARGET, SM90_TARGET, SM100_TARGET, SM103_TARGET)
}


def target_for(arch_tags: Sequence[str]) -> ProbeTarget:
    """The target of a generated file from its macro calls' arch tags (FlashInfer writes one
    arch per file: `gemm_grouped/<sm>/`). Raises ValueError for a mix or an arch without flags."""
    tags = {t.strip() for t in arch_tags}
    if len(tags) != 1 or next(iter(tags)) not in TARGETS:
        raise ValueError(
            f"the probe builds one arch per file, one of {sorted(TARGETS)}; this file has "
            f"{sorted(tags)}"
        )
    return TARGETS[next(iter(tags))]


_OWN_TARGET_SMS = frozenset({90, 100, 103, 120})
"""The devices whose fused-MoE module a ProbeTarget above mirrors, gencode included."""


def for_device(target: ProbeTarget, path: Path) -> ProbeTarget:
    """`target` with the gencode of the device the file is compiled for (its resolved context:
    the JIT's build.ninja or compile command, else its arch directory), where that device builds
    another device's module: a Jetson Thor's `110a/generated/cutlass_instantiations/
    100/` files are compiled by the SM100 module (its defines) with
    `-gencode=arch=compute_110a,code=sm_110a` (flashinfer/compilation_context.py
    `get_nvcc_flags_list`, `_normalize_cuda_arch`: SM 10+ -> 'a' suffix)."""
    gencode = device_gencode(path)
    return target if gencode is None else ProbeTarget(target.arch_tag, target.defines, gencode)


def device_gencode(path: Path | str) -> str | None:
    """The gencode `for_device` puts in place of the module's own, or None where it keeps it."""
    device = target_at(str(path))
    if device is None or device[0] in _OWN_TARGET_SMS:
        return None
    code = f"{device[0]}{device[1]}"
    return f"-gencode=arch=compute_{code},code=sm_{code}"


# Host helpers of TensorRT-LLM that the kept part of the launcher references (TLLM_CHECK /
# TLLM_THROW build a TllmException, which formats with fmtstr). FlashInfer links the same files.
SUPPORT_SOURCES: tuple[str, ...] = (
    "cpp/common/tllmException.cpp",
    "cpp/common/stringUtils.cpp",
    "cpp/common/logger.cpp",
)


@dataclass(frozen=True)
class FlashInferTree:
    """Paths inside an unpacked flashinfer-python wheel (root contains flashinfer/data)."""

    root: Path

    @property
    def data(self) -> Path:
        return self.root / "flashinfer" / "data"

    @property
    def nv_internal(self) -> Path:
        return self.data / "csrc" / "nv_internal"

    @property
    def launcher(self) -> Path:
        return self.nv_internal / LAUNCHER_REL

    def include_flags(self, overlay: Path, generated_dir: Path) -> list[str]:
        """Include paths in the order gen_cutlass_fused_moe_module()/build_common_cflags() use."""
        nv = self.nv_internal
        flags = [f"-I{overlay}"]  # the probe copy of the launcher must win
        for d in (
            nv,
            nv / "include",
            nv / "tensorrt_llm" / "cutlass_extensions" / "include",
            nv / "tensorrt_llm" / "kernels" / "cutlass_kernels" / "include",
            nv / "tensorrt_llm" / "kernels" / "cutlass_kernels",
            generated_dir,
        ):
            flags.append(f"-I{d}")
        # 0.7.x vendors CCCL with -I so it beats the toolkit's copy; 0.6.x uses the toolkit's.
        cccl = self.data / "cccl"
        for d in (cccl / "cub", cccl / "libcudacxx" / "include", cccl / "thrust"):
            if d.is_dir():
                flags.append(f"-I{d}")
        for d in (
            self.data / "include",
            self.data / "csrc",
            self.data / "cutlass" / "include",
            self.data / "cutlass" / "tools" / "util" / "include",
            self.data / "spdlog" / "include",
        ):
            if d.is_dir():
                flags += ["-isystem", str(d)]
        return flags


# cudaUtils.h (included by the launcher) includes <cublasLt.h> and <cublas_v2.h> for an
# error-string helper. A CUDA install without cuBLAS (like a bare nvcc) lacks them; the pip wheel
# nvidia-cublas ships them under nvidia/cu13/include. They declare nothing CUTLASS uses: when the
# compiler finds none, the probe uses cutlint's minimal shim (cutlint.verify.cublas).
CUBLAS_HEADER = cublas.HEADERS[0]
INCLUDE_ENV = "CUTLINT_PROBE_INCLUDE"  # extra -isystem dirs, os.pathsep-separated


def _site_package_includes() -> list[Path]:
    roots = [Path(p) for p in sys.path if p and Path(p).is_dir()]
    return [r / "nvidia" / sub / "include" for r in roots for sub in ("cu13", "cublas", "cu12")]


def extra_system_includes(nvcc: str, extra: Sequence[Path] = ()) -> list[Path]:
    """Directories to add with -isystem: the caller's, $CUTLINT_PROBE_INCLUDE, and the cuBLAS
    header directory of an installed nvidia-cublas wheel, if there is one. Whether the compiler
    then finds real cuBLAS headers is asked of the compiler itself (cublas.find_real_headers)."""
    dirs = [Path(d) for d in extra]
    dirs += [Path(d) for d in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if d]
    if not any((d / CUBLAS_HEADER).is_file() for d in dirs):
        wheel = next((d for d in _site_package_includes() if (d / CUBLAS_HEADER).is_file()), None)
        if wheel is not None:
            dirs.append(wheel)
    return dirs


def compile_flags(
    tree: FlashInferTree,
    overlay: Path,
    generated_dir: Path,
    system_includes: Sequence[Path] = (),
    target: ProbeTarget = SM120_TARGET,
) -> list[str]:
    flags = [*JIT_DEFAULT_FLAGS, *tree.include_flags(overlay, generated_dir)]
    for d in system_includes:
        flags += ["-isystem", str(d)]
    return [*flags, *target.defines, target.gencode]


def search_flags(flags: Sequence[str]) -> list[str]:
    """The -I / -isystem part of a compile command, for asking the preprocessor alone."""
    out: list[str] = []
    it = iter(flags)
    for flag in it:
        if flag.startswith("-I"):
            out.append(flag)
        elif flag == "-isystem":
            out += [flag, next(it)]
    return out


__all__ = [
    "CUBLAS_HEADER",
    "INCLUDE_ENV",
    "JIT_DEFAULT_FLAGS",
    "LAUNCHER_REL",
    "SM90_DEFINES",
    "SM90_GENCODE",
    "SM90_TARGET",
    "SM100_TARGET",
    "SM103_TARGET",
    "SM120_DEFINES",
    "SM120_GENCODE",
    "SM120_TARGET",
    "SUPPORT_SOURCES",
    "TARGETS",
    "FlashInferTree",
    "ProbeTarget",
    "compile_flags",
    "extra_system_includes",
    "search_flags",
    "target_for",
]
