"""What cutlint knows of CUTLASS's own generator, `cutlass_library` (the `nvidia-cutlass` package,
`python/cutlass_library` in CUTLASS): the files it writes (`cutlint.sources.cutlass_library_files`,
one floor down, where the parser may read them) and how to run it (`generate`, `enumerate`)."""

from cutlint.sources.cutlass_library_files import (
    MANIFEST,
    TARGET_UNKNOWN,
    in_build,
    manifest_path,
    manifest_source,
)

__all__ = ["MANIFEST", "TARGET_UNKNOWN", "in_build", "manifest_path", "manifest_source"]
