"""Fixtures for the parse-stage tests: the hand-written fixtures and real generated caches."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

# Made by FlashInfer's own generator (generate_gemm_operations(out, "120;120-real")) from the
# flashinfer-python wheels. A fixture that regenerates them at test time replaces this lookup.
_GENERATED = {
    "0.6.3": Path("/work/dl/gen063"),
    "0.7.2.post1": Path("/work/dl/gen072"),
}


@pytest.fixture(scope="session")
def generated_cache() -> Callable[[str], Path]:
    """version -> the generator's output directory (gemm/90, gemm_grouped/80, gemm_grouped/120);
    skips the test when it is not on this machine."""

    def get(version: str) -> Path:
        root = _GENERATED.get(version)
        if root is None or not (root / "gemm_grouped" / "120").is_dir():
            pytest.skip(f"no generated FlashInfer {version} cache on this machine")
        return root

    return get
