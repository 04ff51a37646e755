"""The options of one check run, shared by the CLI, the Python API, pregen, verify and explain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cutlint import parse
from cutlint.engine.selection import Selection

DEFAULT_ARCH = "sm_120"
"""Target arch when neither --arch nor the file's own path names one."""


@dataclass(frozen=True)
class CheckOptions:
    arch: str | None = None
    cutlass_version: str | None = None
    defines: Mapping[str, str] = field(default_factory=lambda: dict(parse.DEFAULT_DEFINES))
    undefines: Sequence[str] = ()
    selection: Selection = field(default_factory=Selection)
    jobs: int | None = None
    flashinfer_version: str | None = None
    """The FlashInfer release that wrote the files, where their path does not say."""
    parse_timeout: float = parse.DEFAULT_LIMITS.seconds_per_file
    """Seconds one file may take in a parser worker before it is reported as CUT007."""
    root: Path | None = None
    """The project root that fingerprints and reported URIs are relative to (default: cwd)."""
