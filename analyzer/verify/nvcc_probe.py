"""Ask nvcc itself for the shared-memory layout of FlashInfer's SM90+ grouped MoE GEMMs.

This is the referee for cutlint's layout model: no GPU, no GEMM device code.

FlashInfer's generated files (``*.generated.cu``) expand
``INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM`` into a function whose CUTLASS types are local
aliases, so they cannot be named from outside the function. We therefore compile the real
generated file against a patched copy of the real launcher ``.inl`` of the same FlashInfer
version, placed first on the include path:

* everything up to and including ``using GemmGrouped = ...;`` is left byte-for-byte alone, so
  every CUTLASS type is built exactly as in a real build;
* the run-time part after that alias (argument packing, ``initialize``, ``run``) is replaced by a
  call that prints the compile-time numbers. Nothing then references
  ``device_kernel<GemmKernel>``, so nvcc generates no GEMM device code;
* each macro expansion also registers a static object that calls the launcher once at program
  start, so a host-only run of the linked executable prints one JSON line per instantiation.

The host pass's ``sizeof`` is the number that matters: ``GemmUniversalAdapter::initialize()``
passes ``GemmKernel::SharedStorageSize`` from host code to ``cudaFuncSetAttribute``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cutlint.verify import cublas

MACRO_NAME = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"
LAUNCHER_REL = Path(
    "tensorrt_llm/kernels/cutlass_kernels/moe_gemm/launchers/moe_gemm_tma_ws_launcher.inl"
)
# Prefix of the lines the probe executable prints; anything else on stdout is ignored.
OUTPUT_TAG = "CUTLINT_PROBE "

# The flags gen_cutlass_fused_moe_sm120_module() passes (flashinfer/jit/fused_moe.py), plus the
# defaults gen_jit_spec()/build_cuda_cflags() add (flashinfer/jit/core.py, cpp_ext.py).
# -Xfatbin/--compress-mode only affect the fatbin container and are left out.
SM120_DEFINES: tuple[str, ...] = (
    "-DCOMPILE_BLACKWELL_TMA_GEMMS",
    "-DCOMPILE_BLACKWELL_SM120_TMA_GROUPED_GEMMS",
    "-DENABLE_BF16",
    "-DENABLE_FP8",
    "-DENABLE_FP4",
    "-DUSING_OSS_CUTLASS_MOE_GEMM",
    "-DCUTLASS_ENABLE_GDC_FOR_SM100=1",
)
SM120_GENCODE = "-gencode=arch=compute_120a,code=sm_120a"
JIT_DEFAULT_FLAGS: tuple[str, ...] = (
    "-std=c++17",
    "-use_fast_math",
    "-DFLASHINFER_ENABLE_F16",
    "-DFLASHINFER_ENABLE_BF16",
    "-DFLASHINFER_ENABLE_FP8_E4M3",
    "-DFLASHINFER_ENABLE_FP8_E5M2",
    "-DNDEBUG",
    "-O3",
    # torch's ABI flag; 1 is what current torch wheels and gcc both default to.
    "-D_GLIBCXX_USE_CXX11_ABI=1",
    "--compiler-options=-fPIC",
    "--expt-relaxed-constexpr",
    "-static-global-template-stub=false",
)
# Host helpers of TensorRT-LLM that the kept part of the launcher references (TLLM_CHECK /
# TLLM_THROW build a TllmException, which formats with fmtstr). FlashInfer links the same files.
SUPPORT_SOURCES: tuple[str, ...] = (
    "cpp/common/tllmException.cpp",
    "cpp/common/stringUtils.cpp",
    "cpp/common/logger.cpp",
)


class ProbeError(RuntimeError):
    """The probe could not produce numbers; ``stderr_tail`` holds the compiler's last words."""

    def __init__(self, message: str, stderr_tail: str = "", rows: Sequence[ProbeRow] = ()) -> None:
        full = message if not stderr_tail else f"{message}\n--- stderr tail ---\n{stderr_tail}"
        super().__init__(full)
        self.stderr_tail = stderr_tail
        # Rows that did come out, when only some instantiations failed.
        self.rows: tuple[ProbeRow, ...] = tuple(rows)


@dataclass(frozen=True)
class ProbeRow:
    path: str
    line: int  # line of the INSTANTIATE_ macro name in the generated file
    args: tuple[str, ...]  # the 17 macro arguments as written (whitespace-normalized)
    stages: int
    mainloop_smem: int
    epilogue_smem: int
    kernel_smem: int
    kernel_align: int
    max_threads_per_block: int
    members: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MacroCall:
    line: int
    args: tuple[str, ...]


# --------------------------------------------------------------------------------------------
# Reading the generated file
# --------------------------------------------------------------------------------------------


def normalize_arg(text: str) -> str:
    """Collapse whitespace the way the preprocessor's # operator does."""
    return " ".join(text.split())


def _split_top_level(text: str) -> list[str]:
    """Split macro arguments at commas outside parentheses (the preprocessor ignores <>)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _strip_comments(text: str) -> str:
    """Blank out comments but keep newlines, so offsets still map to line numbers."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.DOTALL)


def find_macro_calls(source: str) -> list[MacroCall]:
    """All INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(...) calls, with the line of the name."""
    text = _strip_comments(source)
    calls: list[MacroCall] = []
    for m in re.finditer(rf"\b{MACRO_NAME}\s*\(", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start : m.start()].lstrip().startswith("#"):
            continue  # a #define, not a call
        depth = 1
        i = m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth:
            raise ProbeError(f"unbalanced parentheses in {MACRO_NAME} call at offset {m.start()}")
        args = tuple(normalize_arg(a) for a in _split_top_level(text[m.end() : i - 1]))
        calls.append(MacroCall(line=text.count("\n", 0, m.start()) + 1, args=args))
    return calls


# --------------------------------------------------------------------------------------------
# Patching the launcher
# --------------------------------------------------------------------------------------------

# C++ appended to the end of the patched launcher. Macro bodies are looked up where the macro
# is expanded (the generated file, after this include), so helpers at the end are visible there.
PROBE_HELPERS_CPP = r"""
// ---- cutlint nvcc probe helpers (appended by cutlint.verify.nvcc_probe) ----
#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cutlint_probe {

inline void put_str(const char* s) {
  std::putchar('"');
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') { std::putchar('\\'); std::putchar(c); }
    else if (c < 0x20) { std::printf("\\u%04x", c); }
    else { std::putchar(c); }
  }
  std::putchar('"');
}

inline void put_head(int line, const char* const* args, int nargs) {
  std::printf("CUTLINT_PROBE {\"line\": %d, \"args\": [", line);
  for (int i = 0; i < nargs; ++i) { if (i) std::printf(", "); put_str(args[i]); }
  std::printf("]");
}

// How many launchers reported, so the registrar can tell "returned silently" from "reported".
inline int& report_count() { static int n = 0; return n; }

struct Members {
  bool first = true;
  void add(const char* key, long long v) {
    std::printf("%s\"%s\": %lld", first ? "" : ", ", key, v);
    first = false;
  }
  void add2(const char* scope, const char* path, long long off, long long size) {
    std::printf("%s\"%s.%s.offset\": %lld, \"%s.%s.size\": %lld",
                first ? "" : ", ", scope, path, off, scope, path, size);
    first = false;
  }
};

// offset and size of a (possibly nested) data member, if the struct has it. The struct is never
// constructed: only member addresses are taken, inside raw storage of the right alignment.
#define CUTLINT_PROBE_MEMBER(ID, PATH)                                                          \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T>                                                                            \
  struct has_##ID<T, std::void_t<decltype(std::declval<T&>().PATH)>> : std::true_type {};       \
  template <class T> void emit_##ID(Members& out, const char* scope) {                          \
    if constexpr (has_##ID<T>::value) {                                                         \
      void* raw = ::operator new(sizeof(T), std::align_val_t(alignof(T)));                      \
      T* p = static_cast<T*>(raw);                                                              \
      long long off = reinterpret_cast<const char*>(std::addressof(p->PATH)) -                  \
                      reinterpret_cast<const char*>(p);                                         \
      out.add2(scope, #PATH, off, static_cast<long long>(sizeof(p->PATH)));                     \
      ::operator delete(raw, std::align_val_t(alignof(T)));                                     \
    }                                                                                           \
  }

// A static constexpr member, if the class has it.
#define CUTLINT_PROBE_STATIC(ID, NAME)                                                          \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T> struct has_##ID<T, std::void_t<decltype(T::NAME)>> : std::true_type {};   \
  template <class T> void emit_##ID(Members& out, const char* key) {                            \
    if constexpr (has_##ID<T>::value) { out.add(key, static_cast<long long>(T::NAME)); }        \
  }

// Kernel SharedStorage (sm90_gemm_array_tma_warpspecialized_{cooperative,pingpong}.hpp).
CUTLINT_PROBE_MEMBER(k_tensors, tensors)
CUTLINT_PROBE_MEMBER(k_tensors_mainloop, tensors.mainloop)
CUTLINT_PROBE_MEMBER(k_tensors_epilogue, tensors.epilogue)
CUTLINT_PROBE_MEMBER(k_pipelines, pipelines)
CUTLINT_PROBE_MEMBER(k_pipelines_scheduler, pipelines.scheduler)
CUTLINT_PROBE_MEMBER(k_pipelines_mainloop, pipelines.mainloop)
CUTLINT_PROBE_MEMBER(k_pipelines_epi_load, pipelines.epi_load)
CUTLINT_PROBE_MEMBER(k_pipelines_load_order, pipelines.load_order)
CUTLINT_PROBE_MEMBER(k_scheduler_response, scheduler_response)
CUTLINT_PROBE_MEMBER(k_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(k_tensormaps_mainloop, tensormaps.mainloop)
CUTLINT_PROBE_MEMBER(k_tensormaps_epilogue, tensormaps.epilogue)
// Mainloop SharedStorage (sm120_blockscaled_mma_array_tma.hpp and relatives).
CUTLINT_PROBE_MEMBER(m_tensors, tensors)
CUTLINT_PROBE_MEMBER(m_smem_A, tensors.smem_A)
CUTLINT_PROBE_MEMBER(m_smem_B, tensors.smem_B)
CUTLINT_PROBE_MEMBER(m_smem_SFA, tensors.smem_SFA)
CUTLINT_PROBE_MEMBER(m_smem_SFB, tensors.smem_SFB)
CUTLINT_PROBE_MEMBER(m_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(m_pipeline_storage, pipeline_storage)
CUTLINT_PROBE_MEMBER(m_pipeline, pipeline)
// Epilogue SharedStorage (sm90_epilogue_array_tma_warpspecialized.hpp and relatives).
CUTLINT_PROBE_MEMBER(e_tensors, tensors)
CUTLINT_PROBE_MEMBER(e_collective, tensors.collective)
CUTLINT_PROBE_MEMBER(e_thread, tensors.thread)
CUTLINT_PROBE_MEMBER(e_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(e_pipeline, pipeline)
CUTLINT_PROBE_STATIC(s_sched_stages, TileSchedulerStages)
CUTLINT_PROBE_STATIC(s_stages_c, StagesC)
CUTLINT_PROBE_STATIC(s_stages_d, StagesD)
CUTLINT_PROBE_STATIC(s_reuse_smem_c, ReuseSmemC)
CUTLINT_PROBE_STATIC(s_sched_pipe_stages, SchedulerPipelineStageCount)

// A collective's DispatchPolicy (where StagesC/StagesD are public), or an empty stand-in.
struct no_policy {};
template <class T, class = void> struct policy_of { using type = no_policy; };
template <class T> struct policy_of<T, std::void_t<typename T::DispatchPolicy>> {
  using type = typename T::DispatchPolicy;
};

template <class GemmKernel, class Mainloop, class Epilogue>
void report(int line, const char* const* args, int nargs) {
  using KS = typename GemmKernel::SharedStorage;
  using MS = typename Mainloop::SharedStorage;
  using ES = typename Epilogue::SharedStorage;
  put_head(line, args, nargs);
  std::printf(", \"status\": \"ok\", \"stages\": %lld, \"mainloop_smem\": %lld, "
              "\"epilogue_smem\": %lld, \"kernel_smem\": %lld, \"kernel_sizeof\": %lld, "
              "\"kernel_align\": %lld, \"max_threads_per_block\": %lld, \"members\": {",
              static_cast<long long>(Mainloop::DispatchPolicy::Stages),
              static_cast<long long>(sizeof(MS)), static_cast<long long>(sizeof(ES)),
              static_cast<long long>(GemmKernel::SharedStorageSize),
              static_cast<long long>(sizeof(KS)), static_cast<long long>(alignof(KS)),
              static_cast<long long>(GemmKernel::MaxThreadsPerBlock));
  using EP = typename policy_of<Epilogue>::type;
  Members m;
  m.add("kernel.sizeof", static_cast<long long>(sizeof(KS)));
  m.add("kernel.align", static_cast<long long>(alignof(KS)));
  m.add("mainloop.align", static_cast<long long>(alignof(MS)));
  m.add("epilogue.align", static_cast<long long>(alignof(ES)));
  emit_k_tensors<KS>(m, "kernel");
  emit_k_tensors_mainloop<KS>(m, "kernel");
  emit_k_tensors_epilogue<KS>(m, "kernel");
  emit_k_pipelines<KS>(m, "kernel");
  emit_k_pipelines_scheduler<KS>(m, "kernel");
  emit_k_pipelines_mainloop<KS>(m, "kernel");
  emit_k_pipelines_epi_load<KS>(m, "kernel");
  emit_k_pipelines_load_order<KS>(m, "kernel");
  emit_k_scheduler_response<KS>(m, "kernel");
  emit_k_tensormaps<KS>(m, "kernel");
  emit_k_tensormaps_mainloop<KS>(m, "kernel");
  emit_k_tensormaps_epilogue<KS>(m, "kernel");
  emit_m_tensors<MS>(m, "mainloop");
  emit_m_smem_A<MS>(m, "mainloop");
  emit_m_smem_B<MS>(m, "mainloop");
  emit_m_smem_SFA<MS>(m, "mainloop");
  emit_m_smem_SFB<MS>(m, "mainloop");
  emit_m_tensormaps<MS>(m, "mainloop");
  emit_m_pipeline_storage<MS>(m, "mainloop");
  emit_m_pipeline<MS>(m, "mainloop");
  emit_e_tensors<ES>(m, "epilogue");
  emit_e_collective<ES>(m, "epilogue");
  emit_e_thread<ES>(m, "epilogue");
  emit_e_tensormaps<ES>(m, "epilogue");
  emit_e_pipeline<ES>(m, "epilogue");
  emit_s_sched_stages<GemmKernel>(m, "kernel.TileSchedulerStages");
  emit_s_stages_c<EP>(m, "epilogue.StagesC");
  emit_s_stages_d<EP>(m, "epilogue.StagesD");
  emit_s_reuse_smem_c<EP>(m, "epilogue.ReuseSmemC");
  emit_s_sched_pipe_stages<typename Mainloop::DispatchPolicy>(m,
                                                             "mainloop.SchedulerPipelineStageCount");
  std::printf("}}\n");
  std::fflush(stdout);
  ++report_count();
}

template <class T, class = void> struct has_swap_ab : std::false_type {};
template <class T>
struct has_swap_ab<T, std::void_t<decltype(std::declval<T&>().swap_ab)>> : std::true_type {};

// The launcher checks SwapAB against the run-time flag before the kernel types are built.
template <class T> void set_swap_ab(T& input, bool value) {
  if constexpr (has_swap_ab<T>::value) { input.swap_ab = value; }
}

// Calls the launcher with value-initialized arguments (null pointers, zero counts): only the
// SwapAB flag is checked before the kernel types are built, and the run-time part is gone.
template <class Input, class... Rest>
bool run(void (*launcher)(Input, Rest...), bool swap_ab, int line, const char* const* args,
         int nargs) {
  int before = report_count();
  const char* error = nullptr;
  try {
    std::decay_t<Input> input{};
    set_swap_ab(input, swap_ab);
    launcher(input, std::decay_t<Rest>{}...);
  } catch (std::exception const& e) {
    error = e.what();
  } catch (...) {
    error = "non-std exception";
  }
  if (error != nullptr || report_count() == before) {
    put_head(line, args, nargs);
    std::printf(", \"status\": \"error\", \"error\": ");
    put_str(error != nullptr ? error : "launcher returned without reporting");
    std::printf("}\n");
    std::fflush(stdout);
  }
  return true;
}

}  // namespace cutlint_probe
"""

PROBE_MAIN_CPP = """// Everything happens in static initializers of the probed translation unit.
int main() { return 0; }
"""


# Patch anchors, in the order they must appear inside the macro body.
# 2: the function the macro defines; its ##-pasted name is reused for the static registrar.
ANCHOR_LAUNCHER_NAME = re.compile(
    r"static\s+void\s*(?:\\\s*)?"
    r"(tma_warp_specialized_generic_moe_gemm_kernelLauncher_[\w#]+)\s*\("
)
# 3: the last type definition; kept, with everything before it, byte for byte.
ANCHOR_GEMM_GROUPED = re.compile(r"using\s+GemmGrouped\s*=[^;]*;[^\n]*\n")
# 4: the end of the run-time part; kept, with everything after it.
ANCHOR_FAST_BUILD_ELSE = re.compile(
    r"^[ \t]*\}\s*else\s*\{\s*\\\s*\n\s*"
    r'TLLM_THROW\(\s*"Configuration was disabled by FAST_BUILD"\s*\)\s*;',
    flags=re.MULTILINE,
)


def _require(match: re.Match[str] | None, what: str, launcher: Path) -> re.Match[str]:
    if match is None:
        raise ProbeError(f"patch anchor not found in {launcher}: {what}")
    return match


def _absolutize_includes(text: str, launcher_dir: Path) -> str:
    """Make quoted includes that resolve next to the real launcher absolute.

    The copy lives in another directory, so "../moe_tma_warp_specialized_traits.h" etc. would
    otherwise stop resolving; pointing them at the very same files changes nothing else.
    """

    def fix(m: re.Match[str]) -> str:
        target = (launcher_dir / m.group(2)).resolve()
        return f'{m.group(1)}"{target}"' if target.is_file() else m.group(0)

    return re.sub(r'^(\s*#\s*include\s*)"([^"]+)"', fix, text, flags=re.MULTILINE)


def _macro_span(text: str, launcher: Path) -> tuple[int, int]:
    """Offsets of the #define of the macro up to the end of its last continuation line."""
    m = _require(
        re.search(rf"^[ \t]*#[ \t]*define[ \t]+{MACRO_NAME}[ \t]*\(", text, flags=re.MULTILINE),
        f"#define {MACRO_NAME}(",
        launcher,
    )
    pos = m.start()
    while True:
        eol = text.find("\n", pos)
        if eol < 0:
            return m.start(), len(text)
        if not text[pos:eol].rstrip().endswith("\\"):
            return m.start(), eol
        pos = eol + 1


def _macro_params(body: str, launcher: Path) -> list[str]:
    m = _require(
        re.search(rf"{MACRO_NAME}\s*\(([^)]*)\)", body), f"{MACRO_NAME} parameter list", launcher
    )
    params = [p.strip() for p in m.group(1).replace("\\", " ").split(",")]
    if not all(re.fullmatch(r"\w+", p) for p in params):
        raise ProbeError(f"unexpected {MACRO_NAME} parameter list in {launcher}: {params}")
    return params


def _probe_lines(params: Sequence[str]) -> list[str]:
    """Macro-body lines (without trailing backslash) that report the kernel's numbers."""
    arg_list = ", ".join(f"#{p}" for p in params)
    return [
        "      /* cutlint probe: the run-time part of the launcher is replaced by this report */",
        f"      static const char* const cutlint_probe_args[] = {{{arg_list}}};",
        "      ::cutlint_probe::report<GemmKernel, CollectiveMainloop, CollectiveEpilogue>(",
        f"          __LINE__, cutlint_probe_args, {len(params)});",
    ]


def _registrar_lines(params: Sequence[str], launcher_name: str, swap_param: str) -> list[str]:
    """Macro-body lines that call the launcher once at program start."""
    arg_list = ", ".join(f"#{p}" for p in params)
    return [
        f"  static const char* const cutlint_probe_args_##{launcher_name}[] = {{{arg_list}}};",
        f"  static const bool cutlint_probe_registered_##{launcher_name} = ::cutlint_probe::run(",
        f"      &{launcher_name}, {swap_param}, __LINE__, cutlint_probe_args_##{launcher_name},",
        f"      {len(params)});",
    ]


def _continued(lines: Sequence[str]) -> str:
    return "".join(f"{line} \\\n" for line in lines)


def patch_launcher(text: str, launcher: Path) -> str:
    """Return the probe copy of the launcher .inl.

    Anchors (all inside the macro, each must be found exactly where expected):
      1. ``#define INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(params...)``
      2. ``static void <launcher name with ##-pasted params>(`` -- the function the macro defines
      3. ``using GemmGrouped = ...;`` after ``using GemmKernel``, ``CollectiveMainloop``,
         ``CollectiveEpilogue``: the last type definition, kept with everything before it
      4. ``} else {`` followed by ``TLLM_THROW("Configuration was disabled by FAST_BUILD");``:
         the end of the run-time part, kept with everything after it
    """
    text = _absolutize_includes(text, launcher.parent)
    start, end = _macro_span(text, launcher)
    body = text[start:end]
    params = _macro_params(body, launcher)
    swap_param = params[-1]
    if "SWAP" not in swap_param.upper():
        raise ProbeError(f"last {MACRO_NAME} parameter is not SWAP_AB in {launcher}: {params}")

    name_m = _require(
        ANCHOR_LAUNCHER_NAME.search(body),
        "static void tma_warp_specialized_generic_moe_gemm_kernelLauncher_##...(",
        launcher,
    )
    launcher_name = name_m.group(1)

    alias_m = _require(ANCHOR_GEMM_GROUPED.search(body), "using GemmGrouped = ...;", launcher)
    for needed in ("GemmKernel", "CollectiveMainloop", "CollectiveEpilogue"):
        if not re.search(rf"using\s+{needed}\s*=", body[: alias_m.start()]):
            raise ProbeError(
                f"patch anchor not found in {launcher}: using {needed} = ... before GemmGrouped"
            )

    tail_m = _require(
        ANCHOR_FAST_BUILD_ELSE.search(body, alias_m.end()),
        '} else { TLLM_THROW("Configuration was disabled by FAST_BUILD");',
        launcher,
    )
    removed = body[alias_m.end() : tail_m.start()]
    if "gemm.run" not in removed and ".run(" not in removed:
        raise ProbeError(f"run-time part between anchors 3 and 4 looks wrong in {launcher}")

    new_body = (
        body[: alias_m.end()]
        + _continued(_probe_lines(params))
        + body[tail_m.start() :]
        + " \\\n"
        + _continued(_registrar_lines(params, launcher_name, swap_param)[:-1])
        + _registrar_lines(params, launcher_name, swap_param)[-1]
    )
    return text[:start] + new_body + text[end:] + "\n" + PROBE_HELPERS_CPP


# --------------------------------------------------------------------------------------------
# Building and running
# --------------------------------------------------------------------------------------------


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
    tree: FlashInferTree, overlay: Path, generated_dir: Path, system_includes: Sequence[Path] = ()
) -> list[str]:
    flags = [*JIT_DEFAULT_FLAGS, *tree.include_flags(overlay, generated_dir)]
    for d in system_includes:
        flags += ["-isystem", str(d)]
    return [*flags, *SM120_DEFINES, SM120_GENCODE]


def _tail(text: str, lines: int = 40, max_errors: int = 10) -> str:
    """The compiler's error lines (EDG prints the static_assert text far above the end, under
    pages of instantiation context) followed by the last lines of stderr."""
    all_lines = text.splitlines()
    errors = [ln for ln in all_lines[:-lines] if re.search(r"\berror\b", ln)][:max_errors]
    head = [*errors, "..."] if errors else []
    return "\n".join(head + all_lines[-lines:])


def _run(
    cmd: Sequence[str], what: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, cwd=cwd, check=False)
    except OSError as exc:
        raise ProbeError(f"{what}: cannot run {cmd[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise ProbeError(
            f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}", _tail(proc.stderr)
        )
    return proc


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialize building the shared support objects between parallel probes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _support_objects(
    tree: FlashInferTree, nvcc: str, cache: Path, system_includes: Sequence[Path]
) -> list[Path]:
    """Compile (once per FlashInfer tree) the TensorRT-LLM host helpers and the empty main()."""
    ident = "|".join([str(tree.root.resolve()), nvcc, *map(str, system_includes)])
    key = hashlib.sha256(ident.encode()).hexdigest()[:12]
    out = cache / f"support-{key}"
    objs = [out / (Path(src).stem + ".o") for src in SUPPORT_SOURCES] + [out / "probe_main.o"]
    with _locked(cache / f"support-{key}.lock"):
        if all(o.is_file() for o in objs):
            return objs
        out.mkdir(parents=True, exist_ok=True)
        main_src = out / "probe_main.cpp"
        main_src.write_text(PROBE_MAIN_CPP)
        includes = [f"-I{tree.nv_internal}", f"-I{tree.nv_internal / 'include'}"]
        for d in system_includes:
            includes += ["-isystem", str(d)]
        sources = [tree.nv_internal / s for s in SUPPORT_SOURCES] + [main_src]
        base_flags = ["-std=c++17", "-O1", "-D_GLIBCXX_USE_CXX11_ABI=1", *includes]
        for src, obj in zip(sources, objs, strict=True):
            partial = obj.with_suffix(".o.partial")  # an interrupted build leaves no .o behind
            cmd = [nvcc, *base_flags, "-c", str(src), "-o", str(partial)]
            _run(cmd, f"compiling support file {src.name}")
            partial.replace(obj)
        return objs


def _parse_output(stdout: str) -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    for line in stdout.splitlines():
        if line.startswith(OUTPUT_TAG):
            try:
                records.append(json.loads(line[len(OUTPUT_TAG) :]))
            except json.JSONDecodeError as exc:
                raise ProbeError(f"probe printed malformed JSON: {line[:300]}") from exc
    return records


def _as_int(record: dict[str, object], key: str) -> int:
    value = record.get(key)
    if not isinstance(value, int):
        raise ProbeError(f"probe record lacks integer {key!r}: {record}")
    return value


def _members(record: dict[str, object]) -> dict[str, int]:
    raw = record.get("members", {})
    if not isinstance(raw, dict):
        raise ProbeError(f"probe record has malformed members: {record}")
    return {str(k): int(v) for k, v in raw.items()}


def _match_rows(
    path: Path, calls: Sequence[MacroCall], records: Sequence[dict[str, object]]
) -> list[ProbeRow]:
    """Pair each printed record with a macro call: by args, then by nearest __LINE__."""
    remaining = list(calls)
    rows: list[ProbeRow] = []
    errors: list[str] = []
    for rec in records:
        raw_args = rec.get("args")
        if not isinstance(raw_args, list):
            raise ProbeError(f"probe record lacks args: {rec}")
        args = tuple(normalize_arg(str(a)) for a in raw_args)
        printed_line = _as_int(rec, "line")
        candidates = [c for c in remaining if c.args == args]
        if not candidates:
            raise ProbeError(f"probe reported an instantiation not found in {path}: {args}")
        call = min(candidates, key=lambda c: abs(c.line - printed_line))
        remaining.remove(call)
        if rec.get("status") != "ok":
            errors.append(f"line {call.line} {', '.join(args)}: {rec.get('error')}")
            continue
        rows.append(
            ProbeRow(
                path=str(path),
                line=call.line,
                args=args,
                stages=_as_int(rec, "stages"),
                mainloop_smem=_as_int(rec, "mainloop_smem"),
                epilogue_smem=_as_int(rec, "epilogue_smem"),
                kernel_smem=_as_int(rec, "kernel_smem"),
                kernel_align=_as_int(rec, "kernel_align"),
                max_threads_per_block=_as_int(rec, "max_threads_per_block"),
                members=_members(rec),
            )
        )
    if remaining:
        # Calls under #if guards that are off in this build legitimately print nothing; every
        # generated SM120 call is guarded by ENABLE_FP4, which the SM120 flags turn on.
        missing = "; ".join(f"line {c.line}" for c in remaining)
        errors.append(f"no report for {len(remaining)} call(s): {missing}")
    if errors:
        raise ProbeError(f"probe of {path} incomplete:\n" + "\n".join(errors), rows=rows)
    rows.sort(key=lambda r: r.line)
    return rows


def _job_dir(workdir: Path, generated_cu: Path) -> Path:
    key = hashlib.sha256(str(generated_cu.resolve()).encode()).hexdigest()[:10]
    return workdir / f"{generated_cu.name.split('.')[0]}-{key}"


def _search_flags(flags: Sequence[str]) -> list[str]:
    """The -I / -isystem part of a compile command, for asking the preprocessor alone."""
    out: list[str] = []
    it = iter(flags)
    for flag in it:
        if flag.startswith("-I"):
            out.append(flag)
        elif flag == "-isystem":
            out += [flag, next(it)]
    return out


@dataclass(frozen=True)
class ProbeRun:
    """What one probe of one file produced, and how."""

    rows: tuple[ProbeRow, ...]
    cublas_headers: Path | None  # the real cuBLAS header directory; None: cutlint's shim
    seconds: float  # wall time: compile (dominant), link, run


Log = Callable[[str], None]


def run_probe(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
    keep_build: bool = True,
    log: Log | None = None,
) -> ProbeRun:
    """Compile one generated file against the probe launcher, run it on the host, return rows.

    ``workdir`` keeps the build (and caches the support objects across calls); without it a
    temporary directory is used and removed. ``keep_build=False`` removes this file's build
    directory after a successful probe (the support objects stay). ``extra_include_dirs`` are
    added with -isystem after FlashInfer's own paths. When the compiler finds no cuBLAS headers,
    cutlint's minimal shim is used (cutlint.verify.cublas) and ``log`` is told so.
    """
    t0 = time.monotonic()
    generated_cu = Path(generated_cu)
    tree = FlashInferTree(Path(flashinfer_root))
    if not tree.launcher.is_file():
        raise ProbeError(f"launcher not found: {tree.launcher}")
    system_includes = extra_system_includes(nvcc, extra_include_dirs)
    source = generated_cu.read_text()
    calls = find_macro_calls(source)
    if not calls:
        raise ProbeError(f"no {MACRO_NAME} call in {generated_cu}")

    owned = workdir is None
    base = Path(tempfile.mkdtemp(prefix="cutlint-probe-")) if workdir is None else Path(workdir)
    try:
        job = _job_dir(base, generated_cu)
        overlay = job / "overlay"
        probe_flags = compile_flags(tree, overlay, generated_cu.parent, system_includes)
        real_cublas = cublas.find_real_headers(nvcc, _search_flags(probe_flags))
        if real_cublas is None:
            # Searched last, so it never shadows real headers (see cutlint.verify.cublas).
            shim = cublas.write_shim(base / "cublas-shim")
            system_includes = [*system_includes, shim]
            probe_flags = compile_flags(tree, overlay, generated_cu.parent, system_includes)
            if log is not None:
                log(f"cuBLAS headers not found: using cutlint's minimal shim in {shim}")
        elif log is not None:
            log(f"cuBLAS headers: {real_cublas}")
        patched = overlay / LAUNCHER_REL
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch_launcher(tree.launcher.read_text(), tree.launcher))
        obj = job / "probe.o"
        exe = job / "probe"
        compile_cmd = [nvcc, *probe_flags, "-c", str(generated_cu), "-o", str(obj)]
        # The support objects (once per tree) build beside the file's own compile.
        with ThreadPoolExecutor(max_workers=1) as pool:
            support_job = pool.submit(_support_objects, tree, nvcc, base, system_includes)
            try:
                _run(compile_cmd, f"compiling {generated_cu.name}")
            finally:
                support = support_job.result()
        _run([nvcc, SM120_GENCODE, "-o", str(exe), str(obj), *map(str, support)], "linking probe")
        proc = _run([str(exe)], "running probe", cwd=job)
        rows = _match_rows(generated_cu, calls, _parse_output(proc.stdout))
        if not keep_build and not owned:
            shutil.rmtree(job, ignore_errors=True)
        return ProbeRun(tuple(rows), real_cublas, time.monotonic() - t0)
    finally:
        if owned:
            shutil.rmtree(base, ignore_errors=True)


def probe_file(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
) -> list[ProbeRow]:
    """run_probe's rows (see there)."""
    return list(run_probe(generated_cu, flashinfer_root, nvcc, workdir, extra_include_dirs).rows)


def timed_probe_file(
    generated_cu: Path,
    flashinfer_root: Path,
    nvcc: str = "nvcc",
    workdir: Path | None = None,
    extra_include_dirs: Sequence[Path] = (),
) -> tuple[list[ProbeRow], float]:
    """probe_file plus its wall time in seconds (compile dominates)."""
    run = run_probe(generated_cu, flashinfer_root, nvcc, workdir, extra_include_dirs)
    return list(run.rows), run.seconds


__all__ = [
    "MacroCall",
    "ProbeError",
    "ProbeRow",
    "ProbeRun",
    "compile_flags",
    "extra_system_includes",
    "find_macro_calls",
    "patch_launcher",
    "probe_file",
    "run_probe",
    "timed_probe_file",
]
