"""Fixtures for the parse-stage tests: the hand-written fixtures and real generated caches."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def generated_cache(real_cache: Callable[[str], Path]) -> Callable[[str], Path]:
    """version -> the root FlashInfer's own generator writes (gemm/90, gemm_grouped/80,
    gemm_grouped/120), made at test time from the flashinfer-python wheel (tests/conftest.py)."""

    def get(version: str) -> Path:
        return real_cache(version).parent.parent

    return get
