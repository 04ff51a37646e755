"""Shared fixtures: real generated caches (made at test time by FlashInfer's own generator from
the flashinfer-python wheels: ~60 MB downloaded and ~430 MB unpacked per release, two releases, in
cutlint's cache, cutlint.cache_dir) and the compiler truth committed in tests/data."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cutlint.producers.cutlass_library import generate as cutlass_library
from cutlint.producers.flashinfer.wheel import FlashInferError, download_wheel, generate_cache

# Results are not kept between test runs or tests (engine/cache.py): a test that replaces a stage
# in-process must see that stage run. tests/engine/test_cache.py turns the cache on where it tests it.
os.environ.setdefault("CUTLINT_NO_CACHE", "1")
# Nor is any check handed to a daemon a developer left running (cutlint/daemon): each command a
# test runs is its own process. tests/daemon turns it back on where it tests it.
os.environ.setdefault("CUTLINT_NO_DAEMON", "1")

DATA = Path(__file__).parent / "data"
FIXTURES = Path(__file__).parent.parent / "fixtures"
VERSIONS = ("0.6.3", "0.7.2.post1")


@pytest.fixture(scope="session")
def flashinfer_root() -> Any:
    """version -> unpacked wheel root, in cutlint's one wheel cache ($CUTLINT_CACHE/wheels, shared
    with `generate`, `pregen` and `verify --download`); skips when the wheel cannot be had."""
    roots: dict[str, Path] = {}

    def get(version: str) -> Path:
        if version not in roots:
            try:
                roots[version] = download_wheel(version)
            except FlashInferError as e:
                pytest.skip(f"flashinfer-python {version} unavailable: {e}")
        return roots[version]

    return get


@pytest.fixture(scope="session")
def real_cache(flashinfer_root: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """version -> the SM120 gemm_grouped directory written by that release's own generator,
    in FlashInfer's JIT cache layout (so the version is read off the path)."""
    made: dict[str, Path] = {}
    base = tmp_path_factory.mktemp("jit-cache")

    def get(version: str) -> Path:
        if version not in made:
            made[version] = generate_cache(flashinfer_root(version), version, base)
        return made[version]

    return get


@pytest.fixture(scope="session")
def nvcc_truth() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((DATA / "nvcc_sm120_truth.json").read_text())["rows"]
    return rows


JIT_VERSIONS = ("0.6.11.post2", "0.7.2.post1", "0.7.4")
"""Releases whose JIT-rendered SM120 GEMM modules (generated/gen_gemm_sm120*) tests render."""


@pytest.fixture(scope="session")
def jit_modules(flashinfer_root: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """version -> the RenderedModules of that release's own `gen_gemm_sm120*` functions, written
    in FlashInfer's JIT cache layout (`<base>/flashinfer/<version>/120f/generated/...`)."""
    from cutlint.producers.flashinfer.jit_modules import JitRenderError, render_jit_specs

    made: dict[str, Any] = {}
    base = tmp_path_factory.mktemp("jit-modules")

    def get(version: str) -> Any:
        if version not in made:
            try:
                made[version] = render_jit_specs(flashinfer_root(version), version, base)
            except JitRenderError as e:
                pytest.skip(f"cannot render FlashInfer {version}'s SM120 modules: {e}")
        return made[version]

    return get


@pytest.fixture(scope="session")
def cutlass_library_build(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """(archs, kernels filter) -> the `generated/` directory CUTLASS's own generator writes
    (`cutlass_library` from the nvidia-cutlass wheel, in cutlint's wheel cache); skips when the
    wheel cannot be had."""
    made: dict[tuple[str, str], Path] = {}

    def get(archs: str = "120a", kernels: str = "") -> Path:
        key = (archs, kernels)
        if key not in made:
            try:
                root = cutlass_library.download()
                out = tmp_path_factory.mktemp("cutlass-library")
                made[key] = cutlass_library.generate(root, out, archs, kernels)
            except cutlass_library.CutlassLibraryError as e:
                pytest.skip(f"nvidia-cutlass unavailable: {e}")
        return made[key]

    return get
