"""What a file's path says about it, in FlashInfer's JIT cache layout (DOMAIN.md section 5):

    ~/.cache/flashinfer/<version>/<arch>/generated/cutlass_instantiations/<sm>/<gemm_kind>/<sm>/
        cutlass_kernel_file_<gemm_kind>_sm<sm>_M<tile_m>[_BS][_Mixed]_group<i>.generated.cu

The file name comes from `generate_gemm_operations` in flashinfer/jit/gemm/cutlass/
generate_kernels.py; the directories from flashinfer/jit/env.py (`FLASHINFER_CACHE_DIR /
<version> / <arch>`) and jit/gemm's `cutlass_instantiations/{device_arch}`.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath

_SM_IN_NAME = re.compile(r"_sm(\d{2,3})[af]?(?=[_.])")
# A directory named for the arch: `120`, `120a`, `sm120`, `sm_120a`.
_SM_DIRECTORY = re.compile(r"(?:sm_?)?(\d{2,3})[af]?")
# PEP 440 as FlashInfer uses it: 0.6.3, 0.7.2.post1, 0.8.0rc1, 0.6.0.dev20250101+cu128.
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:(?:a|b|rc|\.post|\.dev)\d+)*(?:\+[\w.]+)?")


def generated_for_sm(path: str) -> int | None:
    """The arch the file was generated for: in a JIT cache, the device of
    `cutlass_instantiations/<sm>/` (the JIT runs `generate_gemm_operations(out, "<sm>;<sm>-real")`
    there, and the generator writes arch-generic kernels beside the device's own: an SM120 cache's
    `gemm_grouped/80/..._sm80_...` files are Ampere kernels that run on the SM120 device); else
    `_sm<NNN>_` in its name, else the nearest directory named for an arch."""
    p = PurePath(path)
    parts = p.parent.parts
    for i, part in enumerate(parts[:-1]):
        if part == "cutlass_instantiations":
            device = _SM_DIRECTORY.fullmatch(parts[i + 1])
            if device:
                return int(device.group(1))
    m = _SM_IN_NAME.search(p.name)
    if m:
        return int(m.group(1))
    for part in reversed(p.parent.parts):
        d = _SM_DIRECTORY.fullmatch(part)
        if d:
            return int(d.group(1))
    return None


def flashinfer_version(path: str) -> str | None:
    """`<version>` of a `flashinfer/<version>/.../generated/...` path, the JIT cache's shape.

    Read off the absolute path, so that `cutlint check generated/` run inside the cache finds it.
    """
    parts = PurePath(os.path.abspath(path)).parts
    for i, part in enumerate(parts[:-2]):
        if (
            part == "flashinfer"
            and _VERSION.fullmatch(parts[i + 1])
            and "generated" in parts[i + 2 :]
        ):
            return parts[i + 1]
    return None
