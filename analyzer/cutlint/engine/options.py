"""The options of one check run, shared by the CLI, the Python API, pregen, verify and explain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cutlint import parse
from cutlint.build_context import BuildInfo, Request
from cutlint.context.packages import site_dirs
from cutlint.engine.selection import Selection
from cutlint.parse.defines import SECONDS_PER_FILE

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
    parse_timeout: float = SECONDS_PER_FILE
    """Seconds one file may take in a parser worker before it is reported as CUT007."""
    root: Path | None = None
    """The project root that fingerprints and reported URIs are relative to (default: cwd)."""
    build_dir: str | None = None
    """`-p BUILD_DIR`: a compile_commands.json (or its directory) that says how files are built."""
    compile_command: str | None = None
    """`--compile-command`: one nvcc command line that builds every file checked."""
    site_packages: Sequence[str] = ()
    """`--site-packages`: the build's Python environment, whose installed flashinfer-python /
    tensorrt_llm say the release and CUTLASS (cutlint.context.packages); empty: this one."""
    cache: bool = False
    """Keep each file's result in cutlint's cache and reuse it while the file's bytes, its
    context and cutlint are unchanged (engine/cache.py); the command line turns it on."""
    exclude: Sequence[str] = ()
    """Glob patterns (`--exclude`): files and directories found inside a directory that match
    one are skipped; a file named in `paths` is always checked, as ruff does."""

    def build_info(self) -> BuildInfo:
        """What the user said of the build, as cutlint.context.resolve reads it: made once per
        options (every file of a run asks, and `--site-packages` globs the file system). The
        record is read from fields a frozen options never changes; it is kept beside them, not
        among them (equality, hashing and `replace` read the fields only)."""
        kept = self.__dict__.get("_build_info")
        if not isinstance(kept, BuildInfo):
            kept = BuildInfo(
                database=self.build_dir,
                command=self.compile_command,
                site_packages=site_dirs(self.site_packages),
            )
            object.__setattr__(self, "_build_info", kept)
        return kept

    def request(self) -> Request:
        """The flags that decide context fields (the strongest origin); made once per options,
        as `build_info`."""
        kept = self.__dict__.get("_request")
        if not isinstance(kept, Request):
            kept = Request(
                gpu=self.arch,
                cutlass_version=self.cutlass_version,
                release=self.flashinfer_version,
            )
            object.__setattr__(self, "_request", kept)
        return kept

    def __post_init__(self) -> None:
        if self.arch is not None:
            known_arch(self.arch)  # an unknown arch is a ValueError naming the known ones


def known_arch(arch: str) -> str:
    """`arch` when cutlint knows it; else a ValueError that lists the arches it knows."""
    from cutlint.model.arch import arch_for, arches

    try:
        arch_for(arch)
    except KeyError:
        raise ValueError(f"unknown arch {arch!r}; known: {', '.join(arches())}") from None
    return arch
