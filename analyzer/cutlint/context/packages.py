"""Installed distributions that say which producer and CUTLASS a build used
(`importlib.metadata`): weaker than the build's own files, stronger than a path.

FlashInfer's wheel (flashinfer-python) vendors CUTLASS at `flashinfer/data/cutlass/include`
(flashinfer/jit/env.py `CUTLASS_INCLUDE_DIRS`); TensorRT-LLM's wheel (tensorrt_llm) ships its
kernels prebuilt and no CUTLASS headers, so only its version is read. The environment is the one
cutlint runs in, or the site-packages directories the user names (`--site-packages`, another
Python's environment).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from cutlint import inputs
from cutlint.context.build_files import exists
from cutlint.context.headers import cutlass_on_path

if TYPE_CHECKING:
    from importlib import metadata

DISTRIBUTIONS = (
    ("flashinfer", "flashinfer-python"),
    ("tensorrt_llm", "tensorrt_llm"),
    ("cutlass_library", "nvidia-cutlass"),
    ("sglang", "sglang"),
)
"""(producer, distribution name) cutlint asks about."""

_CUTLASS_IN = {
    "flashinfer": "flashinfer/data/cutlass/include",
    "cutlass_library": "cutlass_library/source/include",
}
"""Where a producer's distribution vendors CUTLASS, relative to its site directory."""


class Installed(BaseModel):
    """One producer's installed distribution: its version and the CUTLASS it vendors."""

    # defer_build: built where a file's context asks for a package, not by every check
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    producer: str
    distribution: str
    version: str
    where: str
    """`flashinfer-python 0.7.4 (installed in /…/site-packages)`, for the user."""
    cutlass: tuple[str, str] | None = None
    """(version, include dir) of the vendored `cutlass/version.h`, when it has one."""


def site_dirs(given: Sequence[str]) -> tuple[str, ...]:
    """The site-packages directories of what the user named: a site-packages directory as
    is, a virtual environment or prefix as its `lib/python3*/site-packages`."""
    out: list[str] = []
    for g in given:
        found = sorted(Path(g).glob("lib/python3*/site-packages"))
        out += [str(p) for p in found] if found else [g]
    return tuple(out)


def _dist(name: str, site: tuple[str, ...]) -> metadata.Distribution | None:
    # Imported here, where a file's context asks for a package: importlib.metadata (with the
    # email package, zipfile and csv) was 15-25 ms of a one-file check on the 2-core machine
    # whose file says its release in a header, as a generator's files do.
    from importlib import metadata

    for directory in site or inputs.package_dirs():  # an install there is a change
        inputs.looked_at(directory)  # (inputs.recording: the check cache's manifest)
    if site:
        wanted = {name.lower().replace("-", "_"), name.lower()}
        for d in metadata.distributions(path=list(site)):
            n = d.metadata["Name"] or ""
            if n.lower() in wanted or n.lower().replace("-", "_") in wanted:
                return d
        return None
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None


@cache
def installed_producer(producer: str, site: tuple[str, ...] = ()) -> Installed | None:
    """The installed distribution of `producer` in this environment (or in `site`), if any."""
    name = dict(DISTRIBUTIONS).get(producer)
    dist = _dist(name, site) if name is not None else None
    if dist is None or name is None:
        return None
    base = Path(str(dist.locate_file("")))
    cutlass = None
    sub = _CUTLASS_IN.get(producer)
    if sub is not None and exists(base / sub / "cutlass" / "version.h"):
        cutlass = cutlass_on_path([str(base / sub)])
    return Installed(
        producer=producer,
        distribution=name,
        version=dist.version,
        where=f"{name} {dist.version} (installed in {base})",
        cutlass=cutlass,
    )


@cache
def installed(distribution: str, site: tuple[str, ...] = ()) -> str | None:
    """The installed version of `distribution`, or None."""
    d = _dist(distribution, site)
    return d.version if d is not None else None


def cutlass_of_nvidia_cutlass(version: str) -> str:
    """nvidia-cutlass 4.2.0.0 ships CUTLASS 4.2.0 (its version is CUTLASS's plus a build number:
    its `cutlass_library/source/include/cutlass/version.h` says 4.2.0)."""
    return ".".join(version.split(".")[:3])
