"""Fetch SGLang's wheel (`pip download --no-deps sglang==VERSION`, ~39 MB for 0.5.23) into
cutlint's wheel cache: its JIT's kernel sources (`sglang/kernels/jit/csrc`), headers
(`include/sgl_kernel`) and loaders, read by `cutlint check` and `cutlint tu` as an install
would hold them. Nothing of it is committed to cutlint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cutlint.cache_dir import wheels_dir
from cutlint.producers import wheels

JIT_CSRC = "sglang/kernels/jit/csrc"


class SglangError(Exception):
    """SGLang's wheel could not be fetched; says why."""


def download_wheel(
    version: str, dest: Path | None = None, progress: Callable[[str], None] | None = None
) -> Path:
    """The unpacked wheel's root (the directory that holds `sglang/`), downloaded once."""
    dest = dest if dest is not None else wheels_dir()
    try:
        return wheels.download_wheel(
            "sglang", version, dest / f"sglang-{version}", JIT_CSRC, "39 MB for 0.5.23", progress
        )
    except wheels.WheelError as e:
        raise SglangError(str(e)) from e


def download_tvm_ffi(version: str, dest: Path | None = None) -> Path:
    """The unpacked `apache-tvm-ffi` wheel (its headers at `tvm_ffi/include`), SGLang's JIT's
    FFI: what its `cuda.cu` wrapper and `sgl_kernel/` headers include."""
    dest = dest if dest is not None else wheels_dir()
    try:
        return wheels.download_wheel(
            "apache-tvm-ffi", version, dest / f"tvm-ffi-{version}", "tvm_ffi/include", "2 MB"
        )
    except wheels.WheelError as e:
        raise SglangError(str(e)) from e
