"""The compiler's answers, kept so that a second `cutlint verify` is instant.

A result is keyed by everything that decides it:

- the toolchain: the FlashInfer release, a hash of its launcher `.inl` (the kernel recipe) and
  of its `cutlass/version.h`, the whole `nvcc --version` text, and a hash of the probe's method
  (the patched launcher as nvcc sees it and the probe's flags: a change to either invalidates
  every entry made with the old one);
- the file: a hash of its bytes;
- the instantiation: its macro arguments as written.

One JSON file per key, under `<cache>/verify/results/<key[:2]>/<key>.json`. Writes go through a
temporary file and a rename, so parallel runs never read half an entry. The cache directory is
`--cache-dir`, else `$CUTLINT_CACHE`, else `~/.cache/cutlint`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cutlint import cache_dir
from cutlint.verify import nvcc_probe
from cutlint.verify.headers import Headers
from cutlint.verify.nvcc_probe import ProbeRow
from cutlint.verify.probe_flags import TARGETS

CACHE_ENV = cache_dir.ENV
CACHE_FORMAT = 1
"""Bump when what an entry holds changes."""


def default_cache_dir() -> Path:
    """cutlint's one cache directory (cutlint.cache_dir): results under `verify/`."""
    return cache_dir.cache_dir()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def probe_method_hash(launcher: Path, root: Path) -> str:
    """The probe's method for this launcher: the patched launcher as compiled (the patch and the
    C++ it appends), the flags that do not name a path, and the support sources. Cosmetic edits
    of the probe's Python leave it alone; any change to what nvcc is given changes it."""
    patched = nvcc_probe.patch_launcher(launcher.read_text(), launcher)
    patched = patched.replace(str(root.resolve()), "<root>")
    method = [
        patched,
        *nvcc_probe.JIT_DEFAULT_FLAGS,
        # every target's flags: the probe picks one per file by its arch tag (probe_flags.TARGETS)
        *(flag for t in TARGETS.values() for flag in (*t.defines, t.gencode)),
        *nvcc_probe.SUPPORT_SOURCES,
        nvcc_probe.PROBE_MAIN_CPP,
    ]
    return hashlib.sha256("\n".join(method).encode()).hexdigest()


@dataclass(frozen=True)
class Toolchain:
    """What, besides the file, decides the compiler's numbers."""

    flashinfer_version: str
    launcher_sha256: str
    cutlass_version_h_sha256: str
    nvcc_version: str
    probe_sha256: str

    @classmethod
    def of(
        cls,
        flashinfer_version: str,
        headers: Headers,
        nvcc_version: str,
        launcher: Path | None = None,
    ) -> Toolchain:
        """Raises ProbeError when the launcher cannot be patched. `launcher`: the one the
        file's build reaches, when it is not the headers' own (verify.run._launcher_of)."""
        version_h = headers.cutlass_include / "cutlass" / "version.h"
        launcher = launcher or headers.launcher
        return cls(
            flashinfer_version=flashinfer_version,
            launcher_sha256=sha256_file(launcher),
            cutlass_version_h_sha256=sha256_file(version_h) if version_h.is_file() else "",
            nvcc_version=nvcc_version,
            probe_sha256=probe_method_hash(launcher, headers.root),
        )


def cache_key(
    toolchain: Toolchain, file_sha256: str, args: Sequence[str], device: str | None = None
) -> str:
    """The key of one instantiation's result. `device`: the gencode of a device that builds
    another device's module (probe_flags.device_gencode: a Jetson Thor's sm_110a), so that its
    results are never those of the same file compiled for the module's own device."""
    material: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "toolchain": asdict(toolchain),
        "file": file_sha256,
        "args": [" ".join(a.split()) for a in args],
    }
    if device is not None:
        material["device"] = device
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def _row_to_json(row: ProbeRow) -> dict[str, Any]:
    data = asdict(row)
    data["args"] = list(row.args)
    data["unmeasured"] = list(row.unmeasured)
    del data["path"]  # the same bytes may live at another path; the caller's path is used
    return data


def _row_from_json(data: dict[str, Any], path: str) -> ProbeRow:
    return ProbeRow(
        path=path,
        line=int(data["line"]),
        args=tuple(str(a) for a in data["args"]),
        stages=int(data["stages"]),
        mainloop_smem=int(data["mainloop_smem"]),
        epilogue_smem=int(data["epilogue_smem"]),
        kernel_smem=int(data["kernel_smem"]),
        kernel_align=int(data["kernel_align"]),
        max_threads_per_block=int(data["max_threads_per_block"]),
        members={str(k): int(v) for k, v in data.get("members", {}).items()},
        unmeasured=tuple(str(f) for f in data.get("unmeasured", ())),
    )


class ResultCache:
    """Compiler results on disk, one entry per instantiation."""

    def __init__(self, base: Path) -> None:
        self.root = base / "verify" / "results"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str, path: str) -> ProbeRow | None:
        """The cached row (with `path` as its path), or None; an unreadable entry is a miss."""
        try:
            data = json.loads(self._path(key).read_text())
            return _row_from_json(data["row"], path)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, row: ProbeRow, seconds: float) -> None:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        entry = {
            "format": CACHE_FORMAT,
            "row": _row_to_json(row),
            "file_seconds": round(seconds, 1),
        }
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".entry-")
        with os.fdopen(fd, "w") as fh:
            json.dump(entry, fh)
        os.replace(tmp, target)
