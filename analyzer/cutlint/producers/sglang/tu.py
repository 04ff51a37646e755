"""A translation unit as SGLang's JIT compiles a kernel source: the `cuda.cu` wrapper it
generates for the module (sglang/kernels/jit/utils/compile/spec.py `_wrapper_source`), written
into cutlint's cache, and the nvcc flags of its build file for one GPU (`jit.cuda_flags`).

`cutlint tu FILE` takes this command when FILE is an SGLang JIT source (context/sglang_jit.py)
and no compile command is given. The module is the loader's whose `cuda_files` name FILE, else
the one whose entry lies in FILE's directory (a header its entry includes); a file no loader
compiles (0.5.23's expert-specialization SM100 headers) gets a wrapper that only includes it.
CUTLASS is the installed FlashInfer's (SGLang's `cutlass` dependency), or what the user adds
after `--` (`-I$FLASHINFER/data/cutlass/include ...`).
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict

from cutlint import inputs
from cutlint.cache_dir import cache_dir
from cutlint.context import packages
from cutlint.context.resolve import resolve
from cutlint.context.sglang_jit import jit_source
from cutlint.producers.sglang import jit


class JitTu(BaseModel):
    """The wrapper SGLang's JIT would compile for a file, and the nvcc flags it would use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wrapper: str
    """The generated `cuda.cu`, in cutlint's cache."""
    argv: tuple[str, ...]
    """`nvcc` and the flags of the JIT's `compile_cuda` rule for the GPU."""
    module: str | None
    release: str
    said: str
    """What was assumed, for the user: the release, the module, the GPU, CUTLASS's origin."""


def _module(rel: jit.JitRelease, relative: str) -> jit.JitModule | None:
    own = next((m for m in rel.module if relative in m.cuda_files), None)
    if own is not None:
        return own
    folder = PurePosixPath(relative).parent
    return next(
        (m for m in rel.module if any(PurePosixPath(f).parent == folder for f in m.cuda_files)),
        None,
    )


def _cutlass_includes(site: tuple[str, ...]) -> tuple[list[str], str]:
    fi = packages.installed_producer("flashinfer", site)
    if fi is None or fi.cutlass is None:
        return [], "CUTLASS: no FlashInfer installed, so the -I after `--`"
    include = Path(fi.cutlass[1])
    util = include.parent / "tools" / "util" / "include"
    return [str(include), str(util)], f"CUTLASS {fi.cutlass[0]} of {fi.where}"


def _tvm_ffi_include(site: tuple[str, ...]) -> tuple[list[str], str]:
    """tvm-ffi's headers, first on the JIT's include path (toolchain.py base_include_paths):
    the installed `apache-tvm-ffi`'s `tvm_ffi/include`, else none (cutlint tu stubs them)."""
    dists = metadata.distributions(path=list(site)) if site else metadata.distributions()
    for d in dists:
        if (d.metadata["Name"] or "").lower().replace("_", "-") == "apache-tvm-ffi":
            include = Path(str(d.locate_file("tvm_ffi/include")))
            if (include / "tvm" / "ffi" / "function.h").is_file():
                return [str(include)], f"tvm-ffi {d.version}"
    return [], "tvm-ffi: not installed (stubbed, or the -I after `--`)"


def jit_tu(file: Path, gpu: int | None, site: tuple[str, ...] = ()) -> JitTu | None:
    """The JIT's translation unit for `file` on `gpu` (None: the module's first GPU, else
    sm_120), or None when `file` lies in no SGLang JIT kernel tree."""
    src = jit_source(str(file))
    if src is None or src.kernel_dir is None or src.csrc_relative is None:
        return None
    build = resolve(str(file))
    version = build.release.value if build.release is not None else None
    rel, own = jit.release(version)
    module = _module(rel, src.csrc_relative)
    sm = gpu or (module.gpus[0] if module is not None and module.gpus else 120)
    csrc = Path(src.kernel_dir) / "csrc"
    files = [str(csrc / f) for f in module.cuda_files] if module else [str(file.absolute())]
    text = jit.wrapper_source(files, module.wrappers if module else ())
    cutlass, cutlass_said = _cutlass_includes(site)
    tvm, tvm_said = _tvm_ffi_include(site)
    includes = [*tvm, str(Path(src.kernel_dir) / "include"), *cutlass]
    argv = ("nvcc", *jit.cuda_flags(rel, sm, module, includes))
    key = hashlib.sha256("\0".join((text, *argv)).encode()).hexdigest()[:16]
    out = cache_dir() / "sglang-jit" / key / "cuda.cu"
    out.parent.mkdir(parents=True, exist_ok=True)
    inputs.write_atomically(out, text.encode())
    said = (
        f"SGLang {rel.version}'s JIT" + ("" if own else " (release unknown: its flags)")
        + (f", module {module.name} ({module.source})" if module else ", no loader compiles it: "
           "the JIT's default flags")
        + f", sm_{sm}; {cutlass_said}; {tvm_said}"
    )  # fmt: skip
    return JitTu(
        wrapper=str(out), argv=argv, module=module.name if module else None,
        release=rel.version, said=said,
    )  # fmt: skip
