"""Verify: ask the compiler for the numbers the model predicts (`cutlint verify`).

    run.verify(paths, options)   check's model beside nvcc's numbers -> VerifyResult
    nvcc_probe                   compiles a generated file against a patched copy of its launcher;
                                 its stages: the families' launcher patch (registry),
                                 probe_flags, probe_build, probe_output, probe_records
    cublas                       the real cuBLAS headers, or the minimal shim the probe writes
    headers                      finds nvcc and the FlashInfer headers of a file's release
    cache                        the compiler's answers on disk, keyed by all that decides them
    result, report               the result records, their text/JSON rendering
    flashinfer                   FlashInfer wheels and FlashInfer's own kernel generator

Importing this package loads nothing heavy; the command is cutlint/cli/commands/verify.py.
"""
