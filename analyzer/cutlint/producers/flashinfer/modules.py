"""Which FlashInfer JIT module compiles a generated file, with which defines, and whether the body
of the launcher an instantiation names is compiled there.

A file under `cutlass_instantiations/<dev>/` is compiled by the fused-MoE module of that `<dev>`
(`gen_cutlass_fused_moe_sm<dev>_module` compiles every `*.generated.cu` below it: releases.toml
`jit_modules`, `jit_module_compiles`), whatever arch its own directory names: an SM120 cache's
`gemm/90/` files are compiled by fused_moe_120, with the SM120 module's defines. A launcher whose
body only a define compiles (releases.toml `launcher_guards`: `fpA_intB_launcher_sm90.inl`'s
`#ifdef COMPILE_HOPPER_TMA_GEMMS`) then instantiates to a throw where the module lacks the
define: the instantiation is inactive, and this says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath

from cutlint.producers.flashinfer.releases import FlashInferRelease, JitModule
from cutlint.records import FormKind, Instantiation

INSTANTIATIONS_DIR = "cutlass_instantiations"


def module_dev(path: str) -> str | None:
    """The `<dev>` of `.../cutlass_instantiations/<dev>/...` in `path`, if it has one."""
    parts = PurePath(path).parent.parts
    for i, part in enumerate(parts[:-1]):
        if part == INSTANTIATIONS_DIR and parts[i + 1].isdigit():
            return parts[i + 1]
    return None


def module_for(path: str, release: FlashInferRelease | None) -> JitModule | None:
    """The module of `release` that compiles the generated file at `path` (None when the path
    is not under `cutlass_instantiations/<dev>/` or the release has no such module)."""
    dev = module_dev(path)
    if dev is None or release is None:
        return None
    return release.jit_module(dev)


def defined(
    module: JitModule,
    defines: Mapping[str, str],
    undefines: Sequence[str],
    defaults: Mapping[str, str],
) -> frozenset[str]:
    """The macro names defined when `module` compiles a file: its own -D flags, plus what the
    user defines beyond cutlint's defaults (-D), less what the user undefines (-U)."""
    extra = {d for d in defines if d not in defaults}
    return frozenset((module.defined | extra) - set(undefines))


def compiled_out(
    inst: Instantiation,
    release: FlashInferRelease | None,
    module: JitModule | None,
    defines: frozenset[str],
    command: str | None = None,
) -> str | None:
    """Why `inst` instantiates no kernel in `module` (its launcher's body is under a define the
    module does not set), or None when it does, or when cutlint cannot say (no module known).
    `command`: where the file's compile command was read (its -D list is `defines`), which says
    it as well as a module does."""
    if release is None or inst.form is not FormKind.EXPLICIT_INSTANTIATION:
        return None
    if module is None and command is None:
        return None
    guard = release.launcher_guard(inst.name)
    if guard is None or guard.define in defines:
        return None
    where = guard.source.split(" ", 1)[0]
    if module is not None:
        who = f"{module.name} does not define ({module.source.split(',', 1)[0]})"
    else:
        who = f"the compile command does not define ({command})"
    return (
        f"compiled out: the body of `{guard.launcher}` is under `#ifdef {guard.define}` "
        f"({PurePath(where).name}), which {who}; the "
        "instantiation holds no kernel and throws if called"
    )
