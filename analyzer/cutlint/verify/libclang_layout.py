"""A second referee without nvcc: libclang's own record layout of the same CUTLASS types.

`cutlint verify --backend libclang` parses the generated file with libclang (the `libclang`
Python bindings, no nvcc run) as CUDA host code, against the same patched launcher copy the nvcc
probe uses (nvcc_probe.patch_launcher), the same include order and defines (probe_flags) and the same cuBLAS
shim (cublas). libclang's `Type.get_size()` / `get_align()` are clang's ASTContext record layout,
the Itanium C++ ABI layout that nvcc's host compiler (g++) also uses for these plain structs.

The kernel types are aliases local to each launcher function the macro defines, so they cannot
be named from outside it. Rather than looking nested names up through libclang's cursor tree
(which does not list the members of implicit template instantiations), the patch adds, right
after ``using GemmGrouped = ...;``, local aliases whose *size* is the number wanted:

    using cutlint_layout_kernel = typename GemmKernel::SharedStorage;          // sizeof, alignof
    using cutlint_layout_stages = char[CollectiveMainloop::DispatchPolicy::Stages];  // = Stages

so clang's constant evaluator computes every number and the walk only has to find aliases by
name. Function bodies are therefore parsed (the aliases live in them); a file of 8
instantiations takes a few seconds.

The host pass is what matters, as for nvcc: `GemmUniversalAdapter::initialize()` passes
`GemmKernel::SharedStorageSize` from host code to `cudaFuncSetAttribute`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from cutlint.families.probe import MacroCall
from cutlint.families.registry import probe_spec
from cutlint.verify import cublas
from cutlint.verify.nvcc_probe import PROBE, Log, ProbeRun, patch_launcher
from cutlint.verify.probe_flags import LAUNCHER_REL, FlashInferTree, compile_flags
from cutlint.verify.probe_output import MACRO_NAME, moe_macro_calls
from cutlint.verify.probe_records import ProbeError, ProbeRow

Cursor = Any  # clang.cindex.Cursor: the bindings are untyped


def cindex() -> ModuleType:
    """The clang bindings, imported when first needed so that `cutlint` starts without them."""
    from clang import cindex as module  # type: ignore[import-untyped]

    return module  # type: ignore[no-any-return]


LAUNCHER_PREFIX = "tma_warp_specialized_generic_moe_gemm_kernelLauncher_"

# Alias name -> the type whose size (or, for char[N], whose N) is the number. Stages and the
# two ints are wrapped in char[N] because libclang exposes sizes of types, not constant values.
ALIASES: tuple[tuple[str, str], ...] = (
    ("cutlint_layout_kernel", "typename GemmKernel::SharedStorage"),
    ("cutlint_layout_mainloop", "typename CollectiveMainloop::SharedStorage"),
    ("cutlint_layout_epilogue", "typename CollectiveEpilogue::SharedStorage"),
    ("cutlint_layout_kernel_size", "char[GemmKernel::SharedStorageSize]"),
    ("cutlint_layout_stages", "char[CollectiveMainloop::DispatchPolicy::Stages]"),
    ("cutlint_layout_threads", "char[GemmKernel::MaxThreadsPerBlock]"),
)

# nvcc-only flags of compile_flags() with no clang meaning; clang's CUDA mode already allows
# constexpr host functions in device code (--expt-relaxed-constexpr).
_NVCC_ONLY = re.compile(
    r"^(-use_fast_math|-O\d|--compiler-options=.*|--expt-relaxed-constexpr"
    r"|-static-global-template-stub=.*|-gencode=.*)$"
)

# clang's CUDA wrapper header force-includes curand_mtgp32_kernel.h (only to redeclare
# blockDim/threadIdx); a toolkit without cuRAND (a bare nvcc) lacks it. Nothing here uses it.
CURAND_STUB = "curand_mtgp32_kernel.h"


def libclang_version() -> str:
    """The bindings' release (`libclang-ng` or `libclang` wheel): part of the cache key."""
    from importlib import metadata

    for dist in ("libclang-ng", "libclang"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def method_text() -> str:
    """What, besides the launcher and the file, decides this backend's numbers: for the cache
    key (it stands where `nvcc --version` stands for the nvcc backend). Its last line is the
    release that reports name (Nvcc.release falls back to it)."""
    aliases = "; ".join(f"{n} = {t}" for n, t in ALIASES)
    return f"libclang backend\n{aliases}\n{_NVCC_ONLY.pattern}\n{libclang_version()}"


def find_cuda_path() -> Path | None:
    """The CUDA toolkit whose headers clang parses with (`cuda_runtime.h`, CCCL)."""
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates += ["/usr/local/cuda"]
    for c in candidates:
        if c and (Path(c) / "include" / "cuda_runtime.h").is_file():
            return Path(c).resolve()
    return None


def clang_args(
    tree: FlashInferTree, overlay: Path, generated_dir: Path, shim: Path, cuda: Path
) -> list[str]:
    """compile_flags() (FlashInfer's includes and defines, the shim last) as clang CUDA args."""
    args = [
        "-x",
        "cuda",
        "--cuda-host-only",
        "--cuda-gpu-arch=sm_120a",
        f"--cuda-path={cuda}",
        "-Wno-unknown-cuda-version",  # clang may predate the toolkit; the host layout is the same
    ]
    args += [
        f for f in compile_flags(tree, overlay, generated_dir, [shim]) if not _NVCC_ONLY.match(f)
    ]
    # nvcc adds the toolkit's CCCL itself; 0.7.x's vendored CCCL (-I) still comes first.
    cccl = cuda / "include" / "cccl"
    if cccl.is_dir():
        args += ["-isystem", str(cccl)]
    return args


def patch_for_layout(text: str, launcher: Path) -> str:
    """The probe copy of the launcher (patch_launcher) plus the ALIASES after GemmGrouped."""
    patched = patch_launcher(text, launcher)
    m = probe_spec(PROBE).ANCHOR_GEMM_GROUPED.search(patched)
    if m is None:  # patch_launcher found it already; kept for the type checker
        raise ProbeError(f"patch anchor not found in {launcher}: using GemmGrouped = ...;")
    lines = "".join(f"      using {name} = {ty}; \\\n" for name, ty in ALIASES)
    return patched[: m.end()] + lines + patched[m.end() :]


def _launchers(cursor: Cursor, main_file: str) -> Iterator[Cursor]:
    kind = cindex().CursorKind
    for c in cursor.get_children():
        if c.location.file is None or c.location.file.name != main_file:
            continue
        if c.kind == kind.NAMESPACE:
            yield from _launchers(c, main_file)
        elif c.kind == kind.FUNCTION_DECL and c.spelling.startswith(LAUNCHER_PREFIX):
            if c.is_definition():
                yield c


def _aliases(function: Cursor) -> dict[str, Cursor]:
    alias_kind = cindex().CursorKind.TYPE_ALIAS_DECL
    wanted = {name for name, _ in ALIASES}
    return {
        c.spelling: c
        for c in function.walk_preorder()
        if c.kind == alias_kind and c.spelling in wanted
    }


def _size(aliases: dict[str, Cursor], name: str) -> int:
    cursor = aliases.get(name)
    if cursor is None:
        raise ProbeError(f"libclang: alias {name} not found in the launcher")
    size = int(cursor.underlying_typedef_type.get_canonical().get_size())
    if size <= 0:  # libclang returns negative CXTypeLayoutError codes
        raise ProbeError(
            f"libclang: no layout for {name} ({cursor.underlying_typedef_type.spelling})"
        )
    return size


def _row(path: Path, call: MacroCall, function: Cursor) -> ProbeRow:
    aliases = _aliases(function)
    kernel = aliases.get("cutlint_layout_kernel")
    if kernel is None:
        raise ProbeError(f"libclang: aliases not found in {function.spelling}")
    members = {"kernel.align": int(kernel.underlying_typedef_type.get_canonical().get_align())}
    return ProbeRow(
        path=str(path),
        line=call.line,
        args=call.args,
        stages=_size(aliases, "cutlint_layout_stages"),
        mainloop_smem=_size(aliases, "cutlint_layout_mainloop"),
        epilogue_smem=_size(aliases, "cutlint_layout_epilogue"),
        kernel_smem=_size(aliases, "cutlint_layout_kernel_size"),
        kernel_align=members["kernel.align"],
        max_threads_per_block=_size(aliases, "cutlint_layout_threads"),
        members=members,
    )


def run_layout(
    generated_cu: Path,
    flashinfer_root: Path,
    workdir: Path | None = None,
    cuda_path: Path | None = None,
    log: Log | None = None,
    launcher: Path | None = None,
) -> ProbeRun:
    """libclang's numbers for every macro call of one generated file, as ProbeRun rows.

    The rows are paired with the macro calls in source order: the launcher functions the macro
    defines appear in the translation unit in the order of the calls, at the call's line.
    `launcher`: the one check read the calls by, when not the root's (as nvcc_probe.run_probe).
    """
    clang = cindex()
    t0 = time.monotonic()
    generated_cu = Path(generated_cu)
    tree = FlashInferTree(Path(flashinfer_root))
    launcher = launcher or tree.launcher
    if not launcher.is_file():
        raise ProbeError(f"launcher not found: {launcher}")
    cuda = cuda_path or find_cuda_path()
    if cuda is None:
        raise ProbeError("libclang backend: no CUDA toolkit headers (set CUDA_HOME)")
    calls = moe_macro_calls(generated_cu.read_text())
    if not calls:
        raise ProbeError(f"no {MACRO_NAME} call in {generated_cu}")
    owned = workdir is None
    base = Path(tempfile.mkdtemp(prefix="cutlint-libclang-")) if workdir is None else workdir
    try:
        job = base / f"libclang-{generated_cu.stem}"
        overlay = job / "overlay"
        patched = overlay / LAUNCHER_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch_for_layout(launcher.read_text(), launcher))
        shim = cublas.write_shim(job / "shim")
        (shim / CURAND_STUB).write_text("/* empty: see cutlint.verify.libclang_layout */\n")
        args = clang_args(tree, overlay, generated_cu.parent, shim, cuda)
        if log is not None:
            log(f"libclang: parsing {generated_cu.name} with CUDA headers of {cuda}")
        try:
            tu = clang.Index.create().parse(str(generated_cu), args=args)
        except clang.TranslationUnitLoadError as e:
            raise ProbeError(f"libclang could not parse {generated_cu}: {e}") from e
        errors = [str(d) for d in tu.diagnostics if d.severity >= 3]
        if errors:
            raise ProbeError(f"libclang: errors parsing {generated_cu}", "\n".join(errors[:20]))
        functions = list(_launchers(tu.cursor, str(generated_cu)))
        rows = _pair(generated_cu, calls, functions)
        return ProbeRun(tuple(rows), None, time.monotonic() - t0)
    finally:
        if owned:
            shutil.rmtree(base, ignore_errors=True)


def _pair(path: Path, calls: Sequence[MacroCall], functions: Sequence[Cursor]) -> list[ProbeRow]:
    """Each call with the launcher function defined at its line (the macro's expansion point)."""
    by_line = {f.location.line: f for f in functions}
    rows: list[ProbeRow] = []
    missing: list[str] = []
    for call in calls:
        function = by_line.get(call.line)
        if function is None:
            missing.append(f"line {call.line}")  # e.g. under an #if that is off in this build
            continue
        rows.append(_row(path, call, function))
    if missing:
        raise ProbeError(
            f"libclang: no launcher for {len(missing)} call(s) in {path}: {'; '.join(missing)}",
            rows=rows,
        )
    return rows


__all__ = [
    "ALIASES",
    "CURAND_STUB",
    "cindex",
    "clang_args",
    "find_cuda_path",
    "libclang_version",
    "method_text",
    "patch_for_layout",
    "run_layout",
]
