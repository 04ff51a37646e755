"""How SGLang's JIT compiles a kernel source, per release (data/jit.toml, each value with the
file and function of the release's wheel it mirrors): the defines and nvcc flags for a GPU, the
modules its loaders build, and the `cuda.cu` wrapper it compiles them through.

The JIT builds for the GPU it runs on: `-DSGL_CUDA_ARCH=<major*100+minor*10>` and one
`-gencode` for that GPU's `a` or `f` target (sglang/kernels/jit/utils/arch.py), so a header's
`#if SGL_CUDA_ARCH ...` is decided per target, never by a default.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

ARCH_DEFINE = "SGL_CUDA_ARCH"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class JitModule(_Frozen):
    """One `load_jit(...)` call of a loader: what it compiles and with which flags."""

    name: str
    cuda_files: tuple[str, ...] = Field(description="relative to the JIT's `csrc/`")
    wrappers: tuple[tuple[str, str], ...] = Field(description="(export name, C++ function)")
    dependencies: tuple[str, ...] = ()
    flags: tuple[str, ...] = Field(default=(), description="the loader's extra_cuda_cflags")
    gpus: tuple[int, ...] = Field(description="the compute capabilities the loader builds for")
    source: str


class JitRelease(_Frozen):
    """One SGLang release's JIT."""

    version: str
    flashinfer: str
    flashinfer_source: str
    tvm_ffi: str
    tvm_ffi_source: str
    cutlass_from: str
    cutlass_source: str
    base: tuple[str, ...]
    base_source: str
    default: tuple[str, ...]
    default_source: str
    gencode: str
    gencode_source: str
    suffix_source: str
    family_suffix_nvcc: str
    include: str
    include_source: str
    hip_defines: tuple[str, ...]
    hip_source: str
    module: tuple[JitModule, ...] = ()


@cache
def releases() -> dict[str, JitRelease]:
    data = resources.files("cutlint.producers.sglang").joinpath("data", "jit.toml")
    with data.open("rb") as f:
        raw = tomllib.load(f)
    return {v: JitRelease(version=v, **entry) for v, entry in raw["release"].items()}


def release(version: str | None) -> tuple[JitRelease, bool]:
    """The release's JIT and whether it is that release's own data (False: the newest known
    release's, for a version cutlint has no data for or none said)."""
    known = releases()
    if version is not None and version in known:
        return known[version], True
    newest = max(known, key=lambda v: tuple(int(p) for p in v.split(".") if p.isdigit()))
    return known[newest], False


def arch_value(sm: int) -> int:
    """SGL_CUDA_ARCH for compute capability `sm` (120 -> 1200): ArchInfo.jit_flag."""
    return (sm // 10) * 100 + (sm % 10) * 10


def defines(sm: int) -> Mapping[str, str]:
    """The macros the JIT defines for an NVIDIA GPU of compute capability `sm`."""
    return {ARCH_DEFINE: str(arch_value(sm))}


def suffix(sm: int, rel: JitRelease, nvcc: tuple[int, int] = (13, 0)) -> str:
    """The target suffix the JIT compiles for (`_cuda_arch_suffix`)."""
    major, minor = divmod(sm, 10)
    family = tuple(int(p) for p in rel.family_suffix_nvcc.split("."))
    if major == 12:
        return "f" if minor == 0 and nvcc >= family else "a"
    return "a" if major >= 9 else ""


def cuda_flags(
    rel: JitRelease,
    sm: int,
    module: JitModule | None,
    includes: Sequence[str],
    nvcc: tuple[int, int] = (13, 0),
) -> list[str]:
    """The nvcc flags of the JIT's `compile_cuda` rule for this GPU (ninja.py `generate`:
    base, target, default and module flags, then the include directories)."""
    target = f"{sm}{suffix(sm, rel, nvcc)}"
    default = [f.replace("{arch}", str(arch_value(sm))) for f in rel.default]
    return [
        *rel.base,
        rel.gencode.replace("{target}", target),
        *default,
        *(module.flags if module else ()),
        *(f"-I{d}" for d in includes),
    ]


_FFI_INCLUDES = (
    "#include <tvm/ffi/container/tensor.h>",
    "#include <tvm/ffi/dtype.h>",
    "#include <tvm/ffi/error.h>",
    "#include <tvm/ffi/extra/c_env_api.h>",
    "#include <tvm/ffi/function.h>",
)
"""What spec.py `_FFI_INCLUDES` puts first in every generated unit."""


def wrapper_source(files: Sequence[str], wrappers: Sequence[tuple[str, str]]) -> str:
    """The `cuda.cu` the JIT writes for a header-only module (spec.py `_wrapper_source`)."""
    lines = list(_FFI_INCLUDES)
    lines += [f'#include "{path}"' for path in files]
    lines.append("namespace sglang {")
    lines += [f"TVM_FFI_DLL_EXPORT_TYPED_FUNC({e}, ({k}));" for e, k in wrappers]
    lines.append("}  // namespace sglang")
    return "\n".join(lines) + "\n"


def module_for(rel: JitRelease, path: str) -> JitModule | None:
    """The module whose `cuda_files` the file at `path` is (matched by its path's tail)."""
    posix = path.replace("\\", "/")
    return next(
        (m for m in rel.module if any(posix.endswith("/csrc/" + f) for f in m.cuda_files)), None
    )


def flag_defines(flags: Sequence[str]) -> dict[str, str]:
    """The `-DNAME[=VALUE]` of a flag list, as nvcc reads them (a bare name is 1)."""
    out: dict[str, str] = {}
    for f in flags:
        if f.startswith("-D") and len(f) > 2:
            name, _, value = f[2:].partition("=")
            out[name] = value or "1"
    return out
