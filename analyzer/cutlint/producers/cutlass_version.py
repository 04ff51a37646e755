"""Which CUTLASS version a file is built against, in this order: the user (`--cutlass-version`, a
version or a header directory's `cutlass/version.h`), the FlashInfer release in a JIT cache path
(the CUTLASS its wheel vendors, producers/flashinfer/releases), or else the newest version
modeled; the result says which. Here, above `cutlint.cutlass`, because the middle step is
producer data (CUTLASS's own knowledge imports no producer)."""

from __future__ import annotations

from pathlib import Path

from cutlint.cutlass.versions import (
    CutlassModel,
    cutlass_model,
    format_version,
    is_directory,
    modeled_range,
    parse_version,
    version_h,
)
from cutlint.producers.flashinfer.releases import known_release


def resolve(
    override: str | None,
    flashinfer_version: str | None,
) -> CutlassModel:
    """Decide the CUTLASS version for one file (see the module docstring for the order)."""
    if override is not None:
        if is_directory(override):
            return cutlass_model(version_h(Path(override)), f"{override}/cutlass/version.h")
        return cutlass_model(parse_version(override), "--cutlass-version")
    release, note = known_release(flashinfer_version)
    if release is not None:
        origin = f"FlashInfer {release.version} vendors CUTLASS {format_version(release.cutlass)}"
        return cutlass_model(release.cutlass, f"{note} {origin}" if note else origin)
    _, last = modeled_range()
    why = (
        f"FlashInfer {flashinfer_version} is not in cutlint's table"
        if flashinfer_version
        else "no version in the path and no --cutlass-version"
    )
    return cutlass_model(last, f"newest modeled ({why})")
