"""Ask nvcc for the numbers `cutlint tu` measured with libclang: the referee for a hand-written TU.

The probe is one host-only translation unit built from what the front end already knows:

* the TU's own `#include` lines (quoted ones made absolute), so that every config struct and
  kernel shell it names is declared exactly as in the build; the TU's function bodies are left
  out (they take `torch::Tensor`s, which the stubs only declare), and the templates of the
  headers are instantiated only for the probed types;
* the same stubs for missing headers (`parse/tu/headers.py`), searched last;
* one line per kernel naming the candidate type as clang resolved it (`TuKernel.type_expr`,
  e.g. `typename ::vllm::sm120_fp8_config_M16<...>::Cutlass3xGemm`), reduced to its
  `GemmKernel` by the same traits the libclang probe uses (`parse/tu/probe.py`), and a `main`
  that prints `sizeof(SharedStorage)`, `SharedStorageSize` (a 2.x kernel has none: its
  `sizeof(SharedStorage)`, what its adapter asks for) and `DispatchPolicy::Stages`.

The probe part sits under `#ifndef __CUDA_ARCH__`: nvcc's device pass reads the headers only, so
no GEMM device code is generated; the host pass's `sizeof` is the number
`GemmUniversalAdapter::initialize()` hands to `cudaFuncSetAttribute`.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.cache_dir import cache_dir
from cutlint.parse.lexmask import mask
from cutlint.parse.tu import headers
from cutlint.parse.tu.probe import PRELUDE
from cutlint.tu_records import TuKernel, TuNvccCheck, TuRead
from cutlint.verify.probe_records import ProbeError

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)
_ROW = re.compile(r"^cutlint-tu (\d+) (-?\d+) (-?\d+) (-?\d+)$", re.MULTILINE)
_KEEP_SINGLE = ("-I", "-D", "-U", "-isystem", "-include")
# Spelled differently for nvcc, which knows neither: a quoted-only or a searched-last directory
# is searched as a system one (it only matters which header a name finds, and these hold none
# that an earlier directory also holds in the builds cutlint reads).
_NVCC_SPELLING = {"-iquote": "-I", "-idirafter": "-isystem"}

SIZE_TRAIT = r"""
namespace cutlint_tu {
// The bytes the device adapter asks for: a CUTLASS 3.x kernel's SharedStorageSize; a 2.x kernel
// has none and its adapter takes sizeof(SharedStorage) (cutlass/gemm/device/gemm_universal_base.h:
// `int(sizeof(typename GemmKernel::SharedStorage))`; SGLang's GemmUniversalBaseCompat the same).
template <class K, class = void> struct smem_size
    : std::integral_constant<long, static_cast<long>(sizeof(typename K::SharedStorage))> {};
template <class K> struct smem_size<K, std::void_t<decltype(K::SharedStorageSize)>>
    : std::integral_constant<long, static_cast<long>(K::SharedStorageSize)> {};
}  // namespace cutlint_tu
"""

METHOD = "host-only nvcc probe of the TU's includes and kernel types (cutlint.verify.tu_probe)"


@dataclass(frozen=True)
class NvccRow:
    """nvcc's numbers for one kernel of the read, by its index in `TuRead.kernels`."""

    index: int
    shared_storage: int
    shared_storage_size: int
    stages: int


def gencode(arch: str) -> str:
    """`sm_120a` -> `-gencode=arch=compute_120a,code=sm_120a`."""
    sm = arch.removeprefix("sm_")
    return f"-gencode=arch=compute_{sm},code=sm_{sm}"


def probe_source(read: TuRead) -> str:
    """The probe translation unit for every measured kernel of `read`."""
    main = Path(read.command.file)
    text = main.read_text(errors="replace")
    lines = ["// cutlint tu --verify: host-only probe (generated)", "#include <cstdio>"]
    measured = [k for k in read.kernels if k.shared_storage is not None]
    own_alias = any(_own_alias(k, main) for k in measured)
    own_types = not own_alias and any(_chosen_in(k, main) for k in measured)
    if own_types:
        # Kernels the main file's own class templates define (vLLM's W4A8 `W4A8GemmKernel<...>`,
        # chosen at a call of the main file): its declarations, without its function bodies.
        lines += [_include_line(m, main) for m in _INCLUDE.finditer(text)]
        lines += ["#ifndef __CUDA_ARCH__  // cutlint probe: host pass only"]
        lines.append(declarations_only(text))
    for m in [] if own_alias or own_types else _INCLUDE.finditer(text):
        local = main.parent / m.group(2)
        if m.group(1) == '"' and local.is_file():
            lines.append(f'#include "{local.resolve()}"')
        else:
            close = ">" if m.group(1) == "<" else '"'
            lines.append(f"#include {m.group(1)}{m.group(2)}{close}")
    if not own_types:
        lines += ["#ifndef __CUDA_ARCH__  // cutlint probe: host pass only"]
    if own_alias:
        # A kernel the main file names by its own namespace-scope alias (CUTLASS's examples):
        # its declarations are needed, so the main file is compiled instead of its includes
        # (a header without a guard must not be read twice), in the host pass only, its `main`
        # renamed so that the probe's is the program's.
        lines += ["#define main cutlint_tu_main_of_the_tu", f'#include "{main.resolve()}"']
        lines += ["#undef main"]
    lines += [PRELUDE, SIZE_TRAIT]
    body = []
    for i, k in enumerate(read.kernels):
        if k.shared_storage is None:
            continue
        lines.append(f"using cutlint_k{i} = ::cutlint_tu::kernel_t<{k.type_expr}>;")
        body.append(
            f'  std::printf("cutlint-tu {i} %ld %ld %ld\\n", '
            f"(long)sizeof(typename cutlint_k{i}::SharedStorage), "
            f"(long)::cutlint_tu::smem_size<cutlint_k{i}>::value, "
            f"(long)::cutlint_tu::stages<cutlint_k{i}>::value);"
        )
    lines += ["int main() {", *body, "  return 0;", "}", "#endif"]
    return "\n".join(lines) + "\n"


def _include_line(m: re.Match[str], main: Path) -> str:
    """An `#include` of the main file, a quoted one made absolute where it is beside it."""
    local = main.parent / m.group(2)
    if m.group(1) == '"' and local.is_file():
        return f'#include "{local.resolve()}"'
    close = ">" if m.group(1) == "<" else '"'
    return f"#include {m.group(1)}{m.group(2)}{close}"


def _chosen_in(kernel: TuKernel, main: Path) -> bool:
    """Whether a dispatch path chose the kernel at a line of the main file."""
    return any(Path(p[-1].path) == main for p in kernel.paths if p)


_BODY_AFTER = ("const", "noexcept", "override", "final")
_MACRO = re.compile(r"\s*([A-Z][A-Z0-9_]*)\s*\(")


def declarations_only(text: str) -> str:
    """The file with every function body left out (`) { ... }` -> `);`), its `#include` lines
    dropped (the probe includes them first) and its comments kept out: the class templates and
    aliases a kernel type names stay, while what only a body calls (the stable-ABI torch calls of
    vLLM's entry points, which the stubs only declare) is never compiled. A macro call with a
    body (`STABLE_TORCH_LIBRARY_IMPL(_C, CUDA, m) { ... }`) is left out whole.

    Structure is scanned on the lexical mask's `code` (parse/lexmask.py: comments and literals
    blanked, digit separators and raw strings as the lexer reads them); what is kept is copied
    from its `uncommented` text, byte for byte the same length."""
    masked = mask(text.encode("utf-8", "surrogateescape"))
    code, kept = masked.code, masked.uncommented
    out = bytearray()
    stmt = 0  # where the current declaration starts in `out`
    i, n = 0, len(code)
    while i < n:
        ch = code[i]
        if ch == 0x23 and not out[stmt:].strip():  # `#` opening a directive
            end = _line_end(code, i)
            line = bytes(kept[i:end])
            if not _INCLUDE.match(line.decode("utf-8", "surrogateescape")):
                out += line + b"\n"
            stmt = len(out)
            i = end
            continue
        if ch == 0x7B and _body_follows(out[stmt:].decode("utf-8", "surrogateescape")):
            i = _block_end(code, i)
            head = out[stmt:].decode("utf-8", "surrogateescape")
            del out[stmt:]
            if not _MACRO.match(head):
                out += (head.rstrip() + ";\n").encode("utf-8", "surrogateescape")
            stmt = len(out)
            continue
        out.append(kept[i])
        if ch in b";{}":
            stmt = len(out)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _body_follows(head: str) -> bool:
    words = head.split()
    if not words:
        return False
    last = words[-1]
    return last.endswith(")") or last in _BODY_AFTER


def _line_end(code: bytes, i: int) -> int:
    """Past the end of the preprocessor line at i (continuations followed)."""
    while True:
        end = code.find(b"\n", i)
        if end < 0:
            return len(code)
        if not code[:end].endswith(b"\\"):
            return end + 1
        i = end + 1


def _block_end(code: bytes, i: int) -> int:
    """Past the `}` closing the block that opens at i (comments and literals are blanked in
    `code`, so every brace left is one)."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == 0x7B:
            depth += 1
        elif code[j] == 0x7D:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(code)


def _own_alias(kernel: TuKernel, main: Path) -> bool:
    """Whether the kernel is named by a `using` of the main file (chain.Index.aliases)."""
    return any(
        len(p) == 1 and p[0].call.startswith("using ") and Path(p[0].path) == main
        for p in kernel.paths
    )


def nvcc_flags(read: TuRead) -> list[str]:
    """The build's flags nvcc takes as they are (include directories, defines, the standard),
    the target's gencode, `-x cu`, and `--expt-relaxed-constexpr`: the CUTLASS builds cutlint
    reads pass it (vLLM's CMake, SGLang's JIT: sglang/kernels/jit/utils/arch.py
    get_default_target_flags), and without it a CUTLASS 4.5 SM120 blockwise mainloop calls a
    constexpr host `min` from device code (sm120_mma_tma_blockwise_scaling.hpp); it changes no
    type."""
    out: list[str] = ["-x", "cu", "-DCUTLINT_TU_NVCC", "--expt-relaxed-constexpr"]
    it = iter(read.command.args)
    for a in it:
        if a in _KEEP_SINGLE:
            out += [a, next(it, "")]
        elif a in _NVCC_SPELLING:
            out += [_NVCC_SPELLING[a], next(it, "")]
        elif a.startswith(("-I", "-D", "-U", "-std=")):
            out.append(a)
    if not any(a.startswith("-std=") for a in out):
        out.append("-std=c++17")
    return [*out, gencode(read.arch)]


def _nvcc_version(nvcc: str) -> str:
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ProbeError(f"nvcc not found ({nvcc}): {exc}") from exc
    return out.stdout.strip()


def cache_key(read: TuRead, source: str, flags: Sequence[str], version: str) -> str:
    """The probe's source, the flags, nvcc's version text and every kernel's spelling."""
    h = hashlib.sha256()
    for part in (source, "\0".join(flags), version, *(k.kernel_type for k in read.kernels)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def run(read: TuRead, nvcc: str = "nvcc", use_cache: bool = True) -> tuple[list[NvccRow], bool]:
    """nvcc's rows for `read`'s kernels, and whether they came from the cache
    (`$CUTLINT_CACHE/tu-verify/`)."""
    version = _nvcc_version(nvcc)
    source = probe_source(read)
    flags = nvcc_flags(read)
    entry = cache_dir() / "tu-verify" / f"{cache_key(read, source, flags, version)}.json"
    if use_cache and entry.is_file():
        data = json.loads(entry.read_text())
        return [NvccRow(**r) for r in data["rows"]], True
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cutlint-tu-verify-") as tmp:
        work = Path(tmp)
        stubs = work / "stubs"
        stubs.mkdir()
        headers.write_stubs(read.missing_headers, stubs)
        src = work / "probe.cu"
        src.write_text(source)
        exe = work / "probe"
        link = _link_flags(flags)
        cmd = [nvcc, *flags, "-isystem", str(stubs), str(src), *link, "-o", str(exe)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            errors = [ln for ln in proc.stderr.splitlines() if "error" in ln][:10]
            raise ProbeError(
                f"nvcc could not compile the probe (exit {proc.returncode})",
                "\n".join(errors or proc.stderr.splitlines()[-20:]),
            )
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    rows = [NvccRow(*map(int, m.groups())) for m in _ROW.finditer(ran.stdout)]
    if not rows and any(k.shared_storage is not None for k in read.kernels):
        # nothing to compare: said as such, and not kept in the cache as nvcc's answer
        raise ProbeError(
            f"the probe compiled but printed no numbers (exit {ran.returncode})",
            "\n".join(ran.stderr.splitlines()[-20:]),
        )
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(
        json.dumps(
            {
                "method": METHOD,
                "nvcc": version.splitlines()[-1] if version else "",
                "seconds": round(time.monotonic() - t0, 1),
                "rows": [r.__dict__ for r in rows],
            },
            indent=1,
        )
    )
    return rows, False


def _link_flags(flags: Sequence[str]) -> list[str]:
    """What the probe links besides the CUDA runtime: tvm-ffi's library when its headers are on
    the include path (SGLang's JIT links `-ltvm_ffi` beside them: sglang/kernels/jit/utils/
    compile/toolchain.py base_link_flags, tvm_ffi_paths), since SGLang's `sgl_kernel/` headers
    call into it; any other symbol a header leaves to a library of the build is left unresolved
    (the probe's main prints sizes and calls none of them)."""
    out = ["-Xlinker", "--unresolved-symbols=ignore-all"]
    for f in flags:
        if f.startswith("-I") and f.rstrip("/").endswith("tvm_ffi/include"):
            lib = Path(f[2:]).parent / "lib"
            if (lib / "libtvm_ffi.so").is_file():
                out += [f"-L{lib}", "-ltvm_ffi", "-Xlinker", f"-rpath={lib}"]
    return out


def compare(read: TuRead, rows: Sequence[NvccRow], cached: bool = False) -> list[TuNvccCheck]:
    """Each measured kernel of `read` beside nvcc's row for it."""
    by_index = {r.index: r for r in rows}
    out: list[TuNvccCheck] = []
    for i, k in enumerate(read.kernels):
        if k.shared_storage is None:
            continue
        n = by_index.get(i)
        out.append(
            TuNvccCheck(
                type_expr=k.type_expr,
                arch=read.arch,
                shared_storage=k.shared_storage,
                stages=k.stages,
                nvcc_shared_storage=None if n is None else n.shared_storage,
                nvcc_shared_storage_size=None if n is None else n.shared_storage_size,
                nvcc_stages=None if n is None else n.stages,
                cached=cached,
            )
        )
    return out


def check(read: TuRead, nvcc: str = "nvcc", use_cache: bool = True) -> list[TuNvccCheck]:
    """`run`, then `compare`."""
    rows, cached = run(read, nvcc, use_cache)
    return compare(read, rows, cached)


__all__ = [
    "METHOD",
    "NvccRow",
    "check",
    "compare",
    "gencode",
    "nvcc_flags",
    "probe_source",
    "run",
]
