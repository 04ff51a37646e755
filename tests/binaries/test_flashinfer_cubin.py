"""The reader on real prebuilt binaries: every cubin of FlashInfer's `flashinfer-cubin` wheel
(0.6.13 from PyPI: 15,970 cubins in four module directories, 1.9 GB unpacked, fetched into
cutlint's wheel cache on first use; tests/benchmark.py --case binaries times the same read)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cutlint.binaries.read import read_paths


@pytest.fixture(scope="module")
def cubins() -> Path:
    from cutlint.producers.flashinfer.wheel import FlashInferError, download_cubins

    try:
        return download_cubins()
    except FlashInferError as e:
        pytest.skip(f"flashinfer-cubin unavailable: {e}")


@pytest.mark.slow
def test_every_cubin_of_every_module_is_read(cubins: Path) -> None:
    modules = [d for d in sorted(cubins.glob("*/*")) if any(d.rglob("*.cubin"))]
    assert {d.name.split("-")[0] for d in modules} >= {"fmha", "gemm", "batched_gemm", "deep"}
    for d in modules:
        files = sorted(d.rglob("*.cubin"))
        reading = read_paths([d])
        assert reading.problems == [], (d.name, reading.problems[:3])
        assert reading.files == len(files)
        per_file = Counter(k.path for k in reading.kernels)
        assert set(per_file) == {str(f) for f in files}, d.name  # each holds a kernel
        assert all(k.origin == "cubin" for k in reading.kernels)
        assert all(k.kernel.registers is not None for k in reading.kernels)
        assert {k.kernel.sm for k in reading.kernels} <= {100, 103, 110}
