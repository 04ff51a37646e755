"""vLLM's source distribution, fetched into cutlint's cache (never committed).

`pip download --no-binary :all: vllm==V` cannot be used: pip builds the sdist's metadata, which
imports torch. So the file is taken from the package index's simple API (PEP 691 JSON, the
client protocol pip itself speaks), checked against the index's sha256 and unpacked.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import ssl
import tarfile
import urllib.request
from pathlib import Path

from cutlint.cache_dir import cache_dir

INDEX = "https://pypi.org/simple/vllm/"
CA_FILE = "/etc/ssl/certs/ca-certificates.crt"


class SdistError(Exception):
    """The sdist could not be fetched or unpacked; says why."""


def _context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=CA_FILE if Path(CA_FILE).is_file() else None)


def download_sdist(version: str, dest: Path | None = None) -> Path:
    """The unpacked `vllm-VERSION/` tree (holds `csrc/`, `CMakeLists.txt`); reuses a download."""
    base = dest if dest is not None else cache_dir() / "sdist"
    root = base / f"vllm-{version}"
    if (root / "CMakeLists.txt").is_file():
        return root
    base.mkdir(parents=True, exist_ok=True)
    name = f"vllm-{version}.tar.gz"
    try:
        req = urllib.request.Request(
            INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"}
        )
        with urllib.request.urlopen(req, timeout=60, context=_context()) as r:
            files = json.load(r)["files"]
        entry = next((f for f in files if f["filename"] == name), None)
        if entry is None:
            raise SdistError(f"the index has no {name}")
        archive = base / name
        with urllib.request.urlopen(entry["url"], timeout=600, context=_context()) as r:
            archive.write_bytes(r.read())
    except (OSError, ValueError, KeyError) as err:
        raise SdistError(f"cannot fetch {name}: {err}") from err
    want = entry.get("hashes", {}).get("sha256")
    if want and hashlib.sha256(archive.read_bytes()).hexdigest() != want:
        archive.unlink()
        raise SdistError(f"{name}: sha256 does not match the index")
    tmp = base / f".vllm-{version}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
    (tmp / f"vllm-{version}").rename(root)
    shutil.rmtree(tmp, ignore_errors=True)
    archive.unlink()
    return root


def cmake_flags(root: Path, cutlass_include: Path, arch: str) -> list[str]:
    """The flags vLLM's CMakeLists.txt gives a `csrc/quantization/w8a8/cutlass/c3x` source for
    one target (`9.0a`, `10.0a`, `12.0a`), as a compile database entry would list them:
    `csrc/` and CUTLASS's `include/` and `tools/util/include/` (INCLUDE_DIRECTORIES of the
    `_C_stable_libtorch` target), `-std=c++17`, and the ENABLE_SCALED_MM_SMxx define the
    arch's block appends to VLLM_GPU_FLAGS."""
    major = arch.split(".")[0]
    define = {"9": "ENABLE_SCALED_MM_SM90", "10": "ENABLE_SCALED_MM_SM100"}.get(
        major, "ENABLE_SCALED_MM_SM120"
    )
    sm = arch.replace(".", "")
    util = cutlass_include.parent / "tools" / "util" / "include"
    return [
        f"-I{root / 'csrc'}",
        f"-I{cutlass_include}",
        f"-I{util}",
        "-std=c++17",
        f"-D{define}=1",
        f"-gencode=arch=compute_{sm},code=sm_{sm}",
    ]


__all__ = ["SdistError", "cmake_flags", "download_sdist"]
