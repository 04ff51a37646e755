"""FlashInfer's JIT build file, written as its JIT writes it, so that a generated cache is a
user's cache: `<ws>/<version>/<archdir>/cached_ops/<module>/build.ninja` (flashinfer/jit/core.py
`JitSpec.ninja_path`, `write_ninja`) in the form of flashinfer/jit/cpp_ext.py
`generate_ninja_build_for_op`: `common_cflags` (the include path: FlashInfer's data/include,
data/csrc, data/cutlass/include, data/cutlass/tools/util/include as `-isystem`, jit/env.py and
cpp_ext.py `get_system_includes`; the module's `extra_include_paths` as `-I`), `cuda_cflags`
(the module's -D flags and the `-gencode` of its arch directory: jit/fused_moe.py
`gen_cutlass_fused_moe_sm<dev>_module`), and one `build ...: cuda_compile <source>` per source.
cutlint writes the parts a check reads (include path, defines, targets, sources); the host
compiler's flags and the link step are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cutlint.producers.flashinfer.releases import JitModule

SYSTEM_INCLUDES = ("include", "csrc", "cutlass/include", "cutlass/tools/util/include")
"""Under the wheel's `flashinfer/data/` (jit/env.py FLASHINFER_INCLUDE_DIR, FLASHINFER_CSRC_DIR,
CUTLASS_INCLUDE_DIRS)."""

MOE_INCLUDES = (
    "csrc/nv_internal",
    "csrc/nv_internal/include",
    "csrc/nv_internal/tensorrt_llm/cutlass_extensions/include",
    "csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/include",
    "csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels",
)
"""The fused-MoE module's `extra_include_paths` (jit/fused_moe.py gen_cutlass_fused_moe_module)."""


def _join(flags: Sequence[str]) -> str:
    return " $\n    ".join(flags)  # cpp_ext.py join_multiline


def gencode(arch_dir: str) -> str:
    """`120f` -> `-gencode=arch=compute_120f,code=sm_120f`: the JIT compiles for the target its
    arch directory names (jit/env.py `_get_workspace_dir_name` and the compilation context's
    `get_nvcc_flags_list` read the same TARGET_CUDA_ARCHS)."""
    return f"-gencode=arch=compute_{arch_dir},code=sm_{arch_dir}"


def moe_flags(module: JitModule, arch_dir: str) -> list[str]:
    """The fused-MoE module's nvcc flags: its -D list (releases.toml `jit_modules`, read off
    jit/fused_moe.py) and the `-gencode` of the arch directory."""
    return [*(f"-D{d}" for d in sorted(module.defined)), gencode(arch_dir)]


def include_flags(wheel_root: Path) -> tuple[list[str], list[str]]:
    """(system, extra): the `-isystem` dirs every module gets and the fused-MoE module's `-I`."""
    data = (wheel_root / "flashinfer" / "data").resolve()
    system = [f"-isystem {data / d}" for d in SYSTEM_INCLUDES if (data / d).is_dir()]
    extra = [f"-I{data / d}" for d in MOE_INCLUDES if (data / d).is_dir()]
    return system, extra


def moe_command(wheel_root: Path, module: JitModule, arch_dir: str) -> str:
    """The nvcc command the fused-MoE module's build file holds for each of its sources (what
    `write_build_ninja` writes for it), as one command line."""
    system, extra = include_flags(wheel_root)
    return " ".join(["nvcc", *extra, *system, *moe_flags(module, arch_dir)])


def write_build_ninja(
    wheel_root: Path,
    workspace: Path,
    name: str,
    cuda_flags: Sequence[str],
    sources: Sequence[Path],
) -> Path:
    """Write `workspace/cached_ops/<name>/build.ninja` compiling `sources` with `cuda_flags` (the
    module's `extra_cuda_cflags`: defines and `-gencode`); `workspace` is
    `<ws>/<version>/<archdir>`. Returns the file's path."""
    system, extra = include_flags(wheel_root)
    arch = [f for f in cuda_flags if f.startswith("-gencode")]
    out_dir = workspace / "cached_ops" / name
    lines = [
        "ninja_required_version = 1.3",
        f"name = {name}",
        "nvcc = $cuda_home/bin/nvcc",
        "",
        "common_cflags = " + _join([*extra, *system]),
        "cuda_cflags = " + _join(["$common_cflags", *cuda_flags]),
        "cuda_arch_flags = " + _join(arch),
        "",
        "rule cuda_compile",
        "  command = $nvcc --generate-dependencies-with-compile -MF $out.d $cuda_cflags "
        "-c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "",
    ]
    for s in sources:
        obj = out_dir / f"{s.parent.name}_{s.stem}.cuda.o"
        lines.append(f"build {obj.resolve()}: cuda_compile {s.resolve()}")
    lines.append("")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "build.ninja"
    path.write_text("\n".join(lines))
    return path
