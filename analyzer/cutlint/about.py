"""What this cutlint is: `cutlint --version`. Reads two small data files and a directory name;
imports neither pydantic nor libclang, so it answers in the time Python takes to start."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from cutlint import __version__


def libclang_release() -> str:
    """The libclang bindings' wheel and version (`libclang-ng 22.1.4.2`), read off its
    `.dist-info` beside the `clang` package, without loading libclang or importlib.metadata."""
    spec = importlib.util.find_spec("clang")
    if spec is None or not spec.submodule_search_locations:
        return "libclang: not installed (cutlint check needs libclang-ng)"
    site = Path(next(iter(spec.submodule_search_locations))).parent
    for info in sorted(site.glob("libclang*.dist-info")):
        m = re.fullmatch(r"(libclang(?:_ng)?)-(.+)\.dist-info", info.name)
        if m:
            return f"{m[1].replace('_', '-')} {m[2]}"
    return "libclang bindings of unknown version"


def version_text() -> str:
    from cutlint.cutlass.versions import format_version, modeled_range, verified_versions

    first, last = modeled_range()
    verified = ", ".join(format_version(v) for v in verified_versions())
    return "\n".join(
        [
            f"cutlint {__version__}",
            f"models CUTLASS {format_version(first)} to {format_version(last)} "
            f"(compiler-verified: {verified})",
            f"parses with {libclang_release()}",
            # platform.python_version() reads the same word off sys.version; importing
            # platform is a tenth of what --version costs beyond Python's own start-up
            f"Python {sys.version.split()[0]}",
        ]
    )
