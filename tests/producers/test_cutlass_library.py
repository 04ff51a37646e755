"""A real cutlass_library build (CUTLASS's own generator from the nvidia-cutlass wheel, run at test
time): every kernel file holds one kernel and none is reported as holding nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cutlint import api
from cutlint.records import FormKind


def test_every_120a_kernel_file_is_read(cutlass_library_build: Callable[..., Path]) -> None:
    generated = cutlass_library_build("120a")
    result = api.check(generated)
    kernels = [f for f in result.files if f.instantiations]
    assert len(kernels) == len(result.files) == 1337
    assert all(len(f.instantiations) == 1 for f in kernels)
    assert all(
        r.instantiation.form is FormKind.TYPE_ALIAS for f in kernels for r in f.instantiations
    )
    assert not [d for f in result.files for d in f.diagnostics if d.rule == "CUT006"]
    assert len(result.skipped) == 323  # the all_*_operations.cu manifest files
