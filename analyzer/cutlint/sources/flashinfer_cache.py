"""What a file's path says about it, in FlashInfer's JIT cache layout (flashinfer/jit/env.py FLASHINFER_GEN_SRC_DIR, flashinfer/jit/fused_moe.py; docs/flashinfer-releases.md):

    ~/.cache/flashinfer/<version>/<arch>/generated/cutlass_instantiations/<sm>/<gemm_kind>/<sm>/
        cutlass_kernel_file_<gemm_kind>_sm<sm>_M<tile_m>[_BS][_Mixed]_group<i>.generated.cu

The file name comes from `generate_gemm_operations` in flashinfer/jit/gemm/cutlass/
generate_kernels.py; the directories from flashinfer/jit/env.py (`FLASHINFER_CACHE_DIR /
<version> / <arch>`) and jit/gemm's `cutlass_instantiations/{device_arch}`.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import PurePath

_SM_IN_NAME = re.compile(r"_sm([0-9]{2,3})[af]?(?=[_.])")
# The Ampere fused-MoE files the generator writes for every device, whatever arch string it is
# given (generate_kernels.py generate_gemm_operations: gemm_grouped/80), and which an SM89-SM121
# device runs: their `_sm80_` (and their `gemm_grouped/80/` directory) names the kernel, not the
# device, so a copy outside the cache layout says no GPU (judged for the default, a guess: a failure is "context unknown"). (Its gemm/90
# fpA_intB files, also written for every device, run only on sm_90: their name's guess is kept.)
_EVERY_DEVICE = re.compile(r"cutlass_kernel_file_gemm_grouped_sm80_")
# A directory spelled as an arch, anywhere: `sm120`, `sm_120a`, `120a`, `120f`.
_SM_DIRECTORY = re.compile(r"sm_?([0-9]{2,3})[af]?|([0-9]{2,3})[af]")
# A bare number is an arch only where FlashInfer's layout puts one: `<version>/<arch>/generated`,
# `cutlass_instantiations/<sm>/<gemm_kind>/<sm>/`. Elsewhere (`runs/42/`) it is the user's.
_BARE = re.compile(r"[0-9]{2,3}")
_GEMM_KIND = re.compile(r"gemm\w*")
# PEP 440 as FlashInfer uses it: 0.6.3, 0.7.2.post1, 0.8.0rc1, 0.6.0.dev20250101+cu128.
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+(?:(?:a|b|rc|\.post|\.dev)[0-9]+)*(?:\+[\w.]+)?")


ARCH_DIRECTORY_DEPTH = 2
"""How far up a directory spelled `sm<NNN>` names the file's arch: further up (a checkout named
`sm100`, say) it says nothing about the file. FlashInfer's own `<NNN>a` / `<NNN>f` arch
directories count at any depth."""


def generated_for_sm(path: str) -> int | None:
    """The arch the file was generated for: in a JIT cache, the device its arch directory names
    (`<version>/<arch>/generated/`, `compile_target`: everything below it is compiled for that
    device, whatever module and kernel arch it holds: a Jetson Thor's `110a/generated/
    cutlass_instantiations/100/` holds the SM100 fused-MoE module's files, compiled for sm_110a,
    and an SM120 cache's `gemm_grouped/80/..._sm80_...` files are Ampere kernels that run on the
    SM120 device; a 103a cache's `gen_gemm_sm100/..._sm100.cu` runs on the 10.3 part); else the
    device of `cutlass_instantiations/<sm>/` (the JIT runs `generate_gemm_operations(out,
    "<sm>;<sm>-real")` there); else
    `_sm<NNN>_` in its name, else the nearest directory named for an arch (`120f`, or `sm_120a`
    among the file's ARCH_DIRECTORY_DEPTH nearest), or a bare number where the layout puts one.
    Whether cutlint's arch table has that arch is the model's question."""
    split = _split(path)
    if split is None:
        return _generated_for_sm(PurePath(path).parent.parts, PurePath(path).name)
    return _generated_for_sm(_parts(split[0]), split[1])


def _generated_for_sm(parts: tuple[str, ...], name: str) -> int | None:
    """`generated_for_sm` of the file `name` in the directory of `parts`."""
    device = _layout_device(parts)
    if device is not None:
        return device
    m = _SM_IN_NAME.search(name) if not _EVERY_DEVICE.search(name) else None
    if m:
        return int(m.group(1))
    return _sm_directory(parts)


@lru_cache(maxsize=4096)
def _layout_device(parts: tuple[str, ...]) -> int | None:
    """The device of a JIT arch directory or of `cutlass_instantiations/<sm>/` among `parts`
    (`generated_for_sm`'s first steps). The key is complete: the answer reads nothing but
    `parts`."""
    target = _compile_target(parts)
    if target is not None:
        return target[0]
    for i, part in enumerate(parts[:-1]):
        if part == "cutlass_instantiations" and _BARE.fullmatch(parts[i + 1]):
            return int(parts[i + 1])
    return None


@lru_cache(maxsize=4096)
def _sm_directory(parts: tuple[str, ...]) -> int | None:
    """The nearest directory of `parts` named for an arch (`generated_for_sm`'s last step). The
    key is complete: the answer reads nothing but `parts`."""
    for i in range(len(parts) - 1, -1, -1):
        part = parts[i]
        d = _SM_DIRECTORY.fullmatch(part)
        if d and (d.group(2) or len(parts) - i <= ARCH_DIRECTORY_DEPTH):
            return int(d.group(1) or d.group(2))
        if _BARE.fullmatch(part) and _arch_position(parts, i):
            if i > 0 and parts[i - 1] == "gemm_grouped" and part == "80":
                continue  # the Ampere fused MoE of every device's module (_EVERY_DEVICE)
            return int(part)
    return None


def _split(path: str) -> tuple[str, str] | None:
    """`path` as (its directory, its name), strings whose PurePath parts are
    `PurePath(path).parent.parts` and whose name is `PurePath(path).name`: what the layout
    functions read of a path, with the directory's part looked up once per directory (they run
    several times for every file, and PurePath's parsing was most of their cost). None where
    the string split and PurePath's could differ (a name `.`, `..` or empty: PurePath drops
    a `.` and a trailing `/`)."""
    head, sep, name = path.rpartition(os.sep)
    if name in ("", ".", "..") or (os.altsep and os.altsep in name):
        return None
    return (head or sep), name  # "/x.cu": the root; "x.cu": "" (PurePath(".") has no parts)


@lru_cache(maxsize=4096)
def _parts(directory: str) -> tuple[str, ...]:
    """PurePath(directory).parts. The key is complete: parsing reads only the string."""
    return PurePath(directory).parts


_COMPILE_TARGET = re.compile(r"([0-9]{2,3})([af])")


def jit_module_dir(path: str) -> str | None:
    """The JIT module directory a file was rendered into (`<version>/<arch>/generated/<dir>/...`,
    a `gen_*` directory such as `gen_gemm_sm120_cutlass_fp4`), or None outside that layout. It
    names the module's header: the SM100 and SM120 FP4 modules define the same macro name, with
    the same 8 parameters in some releases (0.5.x - 0.6.10 for SM120)."""
    split = _split(path)
    return _jit_module_dir(_parts(split[0]) if split else PurePath(path).parent.parts)


@lru_cache(maxsize=4096)
def _jit_module_dir(parts: tuple[str, ...]) -> str | None:
    """`jit_module_dir` of a file in the directory of `parts`. The key is complete: the answer
    reads nothing but `parts`."""
    for i in range(1, len(parts) - 1):
        if parts[i] == "generated" and parts[i + 1].startswith("gen_"):
            if _COMPILE_TARGET.fullmatch(parts[i - 1]):
                return parts[i + 1]
    return None


def compile_target(path: str) -> tuple[int, str] | None:
    """What everything under a FlashInfer JIT arch directory is compiled for: `<version>/120a/
    generated/...` is `-gencode arch=compute_120a,code=sm_120a`, `120f` the family target
    `compute_120f` (flashinfer/jit/env.py: the directory is the device's `<major><minor>` and the
    target suffix the JIT compiles with). (120, "a"), or None outside that layout."""
    split = _split(path)
    return _compile_target(_parts(split[0]) if split else PurePath(path).parent.parts)


@lru_cache(maxsize=4096)
def _compile_target(parts: tuple[str, ...]) -> tuple[int, str] | None:
    """`compile_target` of a file in the directory of `parts`. The key is complete: the answer
    reads nothing but `parts`."""
    for i in range(1, len(parts) - 1):
        if parts[i + 1] == "generated" and _VERSION.fullmatch(parts[i - 1]):
            m = _COMPILE_TARGET.fullmatch(parts[i])
            if m:
                return int(m[1]), m[2]
    return None


def _arch_position(parts: tuple[str, ...], i: int) -> bool:
    before = parts[i - 1] if i > 0 else ""
    after = parts[i + 1] if i + 1 < len(parts) else ""
    return (
        before == "cutlass_instantiations"
        or bool(_GEMM_KIND.fullmatch(before))
        or after == "generated"
        or bool(_VERSION.fullmatch(before))
    )


_GEMM_NAME = re.compile(r"gemm", re.IGNORECASE)


def jit_source(path: str) -> bool:
    """Whether `path` is a FlashInfer JIT source outside the fused-MoE generator's output: under
    `flashinfer/<version>/<arch>/generated/` but not under `cutlass_instantiations/`, where the
    JIT renders and copies every other module's sources (attention, sampling, norm, GEMMs of
    `gen_gemm_*`, ...)."""
    return flashinfer_version(path) is not None and (
        "cutlass_instantiations" not in _absolute_parts(path)
    )


def _absolute_parts(path: str) -> tuple[str, ...]:
    """`PurePath(os.path.abspath(path)).parts`, its directory's part parsed once per directory."""
    absolute = os.path.abspath(path)
    split = _split(absolute)
    if split is None:
        return PurePath(absolute).parts
    return (*_parts(split[0]), split[1])


def names_a_gemm(instantiated: str) -> bool:
    """Whether an explicitly instantiated template is a GEMM by its name: every CUTLASS GEMM
    launcher FlashInfer instantiates says so (`sm80_generic_fused_moe_gemm_kernelLauncher`,
    `CutlassGroupwiseScaledGEMMSM120`, ...), and its attention, sampling and norm kernels never
    do (`BatchPrefillWithRaggedKVCacheDispatched`, ...)."""
    return _GEMM_NAME.search(instantiated) is not None


NON_GEMM = (
    "FlashInfer JIT sources under generated/ with no CUTLASS GEMM instantiation (attention, "
    "sampling, norm and other modules' kernels, bindings)"
)
"""Why such a file is skipped: what the summary line says of them."""


def flashinfer_version(path: str) -> str | None:
    """`<version>` of a `flashinfer/<version>/.../generated/...` path, the JIT cache's shape.

    Read off the absolute path, so that `cutlint check generated/` run inside the cache finds it.
    """
    absolute = os.path.abspath(path)
    split = _split(absolute)
    if split is None:
        return _version_of(PurePath(absolute).parts)
    return _version_in(_parts(split[0]), split[1] == "generated")


@lru_cache(maxsize=4096)
def _version_in(directory: tuple[str, ...], named_generated: bool) -> str | None:
    """`flashinfer_version` of a file in the directory of the absolute path's parts
    `directory`. The key is complete: of the file's name, `_version_of` reads only whether it
    is `generated` (the name is last, so it can only be one of the parts after the version)."""
    return _version_of((*directory, "generated" if named_generated else ""))


def _version_of(parts: tuple[str, ...]) -> str | None:
    for i, part in enumerate(parts[:-2]):
        if (
            part == "flashinfer"
            and _VERSION.fullmatch(parts[i + 1])
            and "generated" in parts[i + 2 :]
        ):
            return parts[i + 1]
    return None
