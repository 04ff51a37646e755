"""Installed distributions that say which producer and CUTLASS a build used
(`importlib.metadata`): weaker than the build's own files, stronger than a path."""

from __future__ import annotations

from functools import cache
from importlib import metadata

from cutlint import inputs

DISTRIBUTIONS = (
    ("flashinfer", "flashinfer-python"),
    ("tensorrt_llm", "tensorrt_llm"),
    ("cutlass_library", "nvidia-cutlass"),
)
"""(producer, distribution name) cutlint asks about."""


@cache
def installed(distribution: str) -> str | None:
    """The installed version of `distribution`, or None."""
    for directory in inputs.package_dirs():  # an install there is a change (inputs.recording)
        inputs.looked_at(directory)
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def cutlass_of_nvidia_cutlass(version: str) -> str:
    """nvidia-cutlass 4.2.0.0 ships CUTLASS 4.2.0 (its version is CUTLASS's plus a build number:
    its `cutlass_library/source/include/cutlass/version.h` says 4.2.0)."""
    return ".".join(version.split(".")[:3])
