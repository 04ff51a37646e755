"""What a source file's path and text say of the producer that wrote it (FlashInfer's JIT cache
layout, cutlass_library's build tree and manifests), before anything is parsed.

The lowest floor with `cutlint.inputs` and `cutlint.records`: the parser asks it which files hold
no kernel (a FlashInfer attention module, a cutlass_library manifest) and what arch and release a
path names, and knows no producer; the producers (`cutlint.producers`) build on it.
"""
