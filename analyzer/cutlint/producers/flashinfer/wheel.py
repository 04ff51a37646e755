"""Real inputs from FlashInfer itself: its wheel, its kernel generator, its JIT cache layout.

The generator (`flashinfer/jit/gemm/cutlass/generate_kernels.py`) is pure Python and needs only
the standard library, its sibling `cutlass_library.py` and, in some releases, one helper from
`flashinfer/jit/cpp_ext.py` whose module imports torch. It is loaded here with stand-in parent
packages so that no `__init__` (and no torch) runs.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path

from cutlint.cache_dir import wheels_dir
from cutlint.producers import wheels

GENERATOR = "flashinfer.jit.gemm.cutlass.generate_kernels"


class FlashInferError(Exception):
    """A FlashInfer wheel could not be fetched or its generator could not run; says why."""


def download_wheel(
    version: str,
    dest: Path | None = None,
    progress: Callable[[str], None] | None = None,
    meter: wheels.Meter | None = None,
) -> Path:
    """`pip download --no-deps flashinfer-python==VERSION` into `dest` (default: the wheel cache,
    cutlint.cache_dir); returns the unpacked root (the directory that holds `flashinfer/`).
    Reuses an earlier download (up to ~60 MB to download, ~430 MB unpacked)."""
    dest = dest if dest is not None else wheels_dir()
    try:
        return wheels.download_wheel(
            "flashinfer-python",
            version,
            dest / f"flashinfer-{version}",
            "flashinfer/jit",
            "8 MB for 0.6.x, 60 MB for 0.7.x",
            progress,
            meter,
        )
    except wheels.WheelError as e:
        raise FlashInferError(str(e)) from e


def _cuda_at_least(version: str) -> bool:
    """Stand-in for flashinfer.jit.cpp_ext.is_cuda_version_at_least: cutlint targets CUDA >= 12.8
    (the first CUDA with sm_120), so every check the generator makes with it holds."""
    return True


def load_generator(root: Path) -> types.ModuleType:
    """Import the generator of the FlashInfer tree at `root` without running any package __init__."""
    for name in list(sys.modules):
        if name == "flashinfer" or name.startswith("flashinfer."):
            del sys.modules[name]
    for name in (
        "flashinfer",
        "flashinfer.jit",
        "flashinfer.jit.gemm",
        "flashinfer.jit.gemm.cutlass",
    ):
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(root / name.replace(".", "/"))]
        sys.modules[name] = pkg
    stub = types.ModuleType("flashinfer.jit.cpp_ext")
    stub.is_cuda_version_at_least = _cuda_at_least  # type: ignore[attr-defined]
    sys.modules["flashinfer.jit.cpp_ext"] = stub
    try:
        return importlib.import_module(GENERATOR)
    except SystemExit as e:  # a generator that exits on import: an input error, not our exit
        raise FlashInferError(
            f"cannot load {GENERATOR} from {root}: it called sys.exit({e.code!r}) on import"
        ) from None
    except Exception as e:  # the generator is third-party code: report, do not crash
        raise FlashInferError(f"cannot load {GENERATOR} from {root}: {e}") from e


def cache_dir(base: Path, version: str, sm: int = 120, cuda: str | None = None) -> Path:
    """Where FlashInfer's JIT puts the generated files on a device `sm`: `<base>/flashinfer/
    <version>/<archdir>/generated/cutlass_instantiations/<dev>` (jit/fused_moe.py, jit/env.py
    FLASHINFER_GEN_SRC_DIR), where `<dev>` is the fused-MoE module the device builds
    (`moe_device`: a Jetson Thor, 11.0, builds the SM100 module, `cutlass_instantiations/100`)
    and `<archdir>` is `arch_dir(version, sm, cuda)`."""
    return (
        base
        / "flashinfer"
        / version
        / arch_dir(version, sm, cuda)
        / "generated"
        / "cutlass_instantiations"
        / moe_device(version, sm)
    )


def arch_dir(version: str, sm: int, cuda: str | None) -> str:
    """The arch directory FlashInfer `version`'s JIT computes on a device `sm` with CUDA `cuda`
    (releases.toml `jit_arch_dirs`, run from each wheel's compilation_context.py and jit/env.py
    `_get_workspace_dir_name`: 0.7.x writes `120f` for 12.0 on CUDA >= 12.9 and `120a` on 12.8;
    0.6.x `<sm>a`); `<sm>a` where the table has no entry or no CUDA is given. FlashInferError
    where that release's JIT builds nothing for the device with that CUDA."""
    from cutlint.producers.flashinfer.releases import known_release

    release = known_release(version)[0]
    found = release.jit_arch_dir(sm, cuda) if release is not None and cuda else None
    if found == "":
        raise FlashInferError(
            f"FlashInfer {version}'s JIT targets no arch for sm_{sm} on CUDA {cuda}"
        )
    return found or f"{sm}a"


def moe_device(version: str, sm: int) -> str:
    """The `<dev>` FlashInfer `version`'s JIT passes to the generator on a device `sm`
    (releases.toml `moe_dev`, read off fused_moe/core.py `get_cutlass_fused_moe_module`: backend
    "110" builds `gen_cutlass_fused_moe_sm100_module`, which generates for "100"); `sm` itself
    where the table has no entry."""
    from cutlint.producers.flashinfer.releases import known_release

    release = known_release(version)[0]
    dev = release.moe_dev_for(sm) if release is not None else None
    return dev if dev else str(sm)


def generate_cache(
    root: Path, version: str, base: Path, sm: int = 120, cuda: str | None = None
) -> Path:
    """Run the generator as FlashInfer's JIT does on a device `sm`
    (`generate_gemm_operations(out, "<dev>;<dev>-real")`, `<dev>` = `moe_device`) and return the
    directory of the generated device files (`.../<dev>/gemm_grouped/<dev>`)."""
    dev = moe_device(version, sm)
    out = cache_dir(base, version, sm, cuda)
    generator = load_generator(root)
    try:
        generator.generate_gemm_operations(str(out), f"{dev};{dev}-real")
    except Exception as e:
        raise FlashInferError(f"the FlashInfer {version} generator failed: {e}") from e
    _write_build_file(root, version, out, dev)
    return out / "gemm_grouped" / dev


def _write_build_file(root: Path, version: str, out: Path, dev: str) -> None:
    """The fused-MoE module's build.ninja beside `generated/` (producers/flashinfer/jit_build),
    naming every generated file (jit/fused_moe.py compiles `output_dir.rglob("*.generated.cu")`),
    where cutlint's release table knows the module."""
    from cutlint.producers.flashinfer.jit_build import moe_flags, write_build_ninja
    from cutlint.producers.flashinfer.releases import known_release

    release = known_release(version)[0]
    module = release.jit_module(dev) if release is not None else None
    if module is None:
        return
    workspace = out.parent.parent.parent  # <ws>/<version>/<archdir>
    flags = moe_flags(module, workspace.name)
    write_build_ninja(root, workspace, module.name, flags, sorted(out.rglob("*.generated.cu")))


CUBIN_VERSION = "0.6.13"
"""The newest `flashinfer-cubin` on PyPI (2026-12): FlashInfer's prebuilt cubins, one directory
per module (`fmha`, `batched_gemm-*`, `gemm-*`, `deep-gemm`), what its runtime loads instead of
compiling (flashinfer/jit/cubin_loader.py)."""


def download_cubins(
    version: str = CUBIN_VERSION, progress: Callable[[str], None] | None = None
) -> Path:
    """`pip download --no-deps flashinfer-cubin==VERSION`, unpacked into the wheel cache; returns
    its `flashinfer_cubin/cubins` directory (a 458 MB download, 1.9 GB unpacked for 0.6.13: the
    binary reader's benchmark and its slow test read it)."""
    try:
        root = wheels.download_wheel(
            "flashinfer-cubin",
            version,
            wheels_dir() / f"flashinfer-cubin-{version}",
            "flashinfer_cubin/cubins",
            "458 MB for 0.6.13",
            progress,
        )
    except wheels.WheelError as e:
        raise FlashInferError(str(e)) from e
    return root / "flashinfer_cubin" / "cubins"
