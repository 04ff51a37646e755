"""The device compile's flags of a generated FlashInfer file, derived as the host probes derive them.

`cutlint verify --device-code` compiles a file as FlashInfer's JIT would, with `-cubin -Xptxas -v`:
- a fused-MoE macro file (`cutlass_instantiations/<sm>/gemm_grouped/<sm>/`): the flags of the
  fused-MoE module of the file's arch tag (probe_flags.compile_flags, FlashInfer's
  gen_cutlass_fused_moe_*_module) with the real launcher, not the probe's overlay;
- a JIT module file (`generated/gen_gemm_*/`): JIT_DEFAULT_FLAGS, the include layout of
  jit/cpp_ext.py build_common_cflags and the module's own `extra_cuda_cflags`, rendered again
  from the release (producers.flashinfer.jit_modules), as verify/probes.py's jit-module probe does.

The target is the file's JIT arch directory (`120f` -> `sm_120f`) unless the caller names one.
Files of any other layout get no derived flags: the caller passes `--device-flag`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cutlint.context.of_file import release_at, target_at
from cutlint.sources.flashinfer_cache import jit_module_dir
from cutlint.verify.probe_flags import (
    FlashInferTree,
    compile_flags,
    for_device,
    target_for,
)
from cutlint.verify.probe_output import moe_macro_calls

_GENCODE = re.compile(r"-gencode=arch=compute_(\w+),code=sm_(\w+)")


class DeviceFlagsError(ValueError):
    """The file's flags cannot be derived (another layout, an unknown arch tag)."""


@dataclass(frozen=True)
class DeviceFlags:
    flags: tuple[str, ...]
    """Everything but the target: FlashInfer's default flags, include dirs, defines."""
    target: str
    """`sm_120f`: what the file's module is compiled for."""
    source: str
    """Where the flags come from, in words (the module or the macro's arch tag)."""


def _split_gencode(flags: Sequence[str]) -> tuple[list[str], str | None]:
    rest, target = [], None
    for f in flags:
        if m := _GENCODE.fullmatch(f):
            target = f"sm_{m[2]}"
        else:
            rest.append(f)
    return rest, target


def macro_file_flags(path: Path, root: Path, system_includes: Sequence[Path] = ()) -> DeviceFlags:
    """A fused-MoE macro file: the module of its calls' arch tag, for the file's device."""
    calls = moe_macro_calls(path.read_text(errors="replace"))
    if not calls:
        raise DeviceFlagsError(f"{path}: no INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM call")
    try:
        target = for_device(target_for([c.args[0] for c in calls]), path)
    except ValueError as e:
        raise DeviceFlagsError(f"{path}: {e}") from e
    tree = FlashInferTree(root)
    flags = compile_flags(tree, path.parent, path.parent, system_includes, target)
    rest, gencode_target = _split_gencode(flags)
    assert gencode_target is not None
    return DeviceFlags(tuple(rest), gencode_target, f"fused-MoE module, {target.arch_tag}")


def jit_module_flags(
    path: Path, root: Path, workdir: Path, system_includes: Sequence[Path] = ()
) -> DeviceFlags:
    """A JIT module file: its module's `extra_cuda_cflags`, rendered again from the release."""
    from cutlint.producers.flashinfer.jit_modules import JitRenderError, render_jit_specs
    from cutlint.verify.jit_probe import include_flags
    from cutlint.verify.probe_flags import JIT_DEFAULT_FLAGS

    target = target_at(str(path))
    module_dir = jit_module_dir(str(path))
    if target is None or module_dir is None:
        raise DeviceFlagsError(f"{path}: not under <version>/<arch>/generated/gen_*/")
    sm, suffix = target
    try:
        modules = render_jit_specs(
            root, release_at(str(path)) or "unknown", workdir, sm, f"{sm}{suffix}"
        )
    except JitRenderError as e:
        raise DeviceFlagsError(f"rendering the release's JIT modules: {e}") from e
    module = next(
        (m for m in modules if any(p.parent.name == module_dir for p in m.generated)), None
    )
    if module is None:
        raise DeviceFlagsError(f"the release's JIT functions render no module into {module_dir}")
    includes = include_flags(root, path.parent)
    for d in system_includes:
        includes += ["-isystem", str(d)]
    rest, _ = _split_gencode([*JIT_DEFAULT_FLAGS, *includes, *module.cuda_flags])
    return DeviceFlags(tuple(rest), f"sm_{sm}{suffix}", f"JIT module {module.name}")


def derivable(path: Path) -> bool:
    """Whether the file sits where `derive` knows its module: a fused-MoE macro file or a JIT
    module file of a FlashInfer cache."""
    return "cutlass_instantiations" in path.parts or jit_module_dir(str(path)) is not None


def derive(
    path: Path, root: Path, workdir: Path, system_includes: Sequence[Path] = ()
) -> DeviceFlags:
    """The device compile flags of a generated file of FlashInfer (unpacked wheel at `root`)."""
    if "cutlass_instantiations" in path.parts:
        return macro_file_flags(path, root, system_includes)
    if jit_module_dir(str(path)) is not None:
        return jit_module_flags(path, root, workdir, system_includes)
    raise DeviceFlagsError(
        f"{path}: neither a fused-MoE macro file nor a JIT module file; pass --device-flag"
    )


def without_pic(flags: Sequence[str]) -> list[str]:
    """`-cubin` builds no host object: the host-only -fPIC is dropped (it is harmless either way)."""
    return [f for f in flags if f != "--compiler-options=-fPIC"]
