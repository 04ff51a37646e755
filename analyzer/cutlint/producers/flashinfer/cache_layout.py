"""What a file's path says in FlashInfer's JIT cache layout: kept here under its old name for the
producer's readers; the functions live one floor down, in `cutlint.sources.flashinfer_cache`,
where the parser may read them (it imports no producer)."""

from cutlint.sources.flashinfer_cache import (
    ARCH_DIRECTORY_DEPTH,
    NON_GEMM,
    compile_target,
    flashinfer_version,
    generated_for_sm,
    jit_module_dir,
    jit_source,
    names_a_gemm,
)

__all__ = [
    "ARCH_DIRECTORY_DEPTH",
    "NON_GEMM",
    "compile_target",
    "flashinfer_version",
    "generated_for_sm",
    "jit_module_dir",
    "jit_source",
    "names_a_gemm",
]
