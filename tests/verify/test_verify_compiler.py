"""`cutlint verify` end to end: the real generated files, the real headers, the real nvcc.

The default run holds one compile: FlashInfer 0.6.3's M256_BS_group0 file, which has both the
failing FINALIZE SwapAB-off tactic (102,400 B against 101,376 B) and fitting ones (SwapAB on,
74,752 B). The perturbed-model test reads the same results from the cache, so nothing compiles
twice. The full 16-file verification and the shim-against-real-headers proof are `slow`.
Without nvcc, or without the flashinfer-python wheels, these tests are skipped with the reason.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.cutlass.layout import Block
from cutlint.families.sm120_blockscaled_grouped import model as sm120
from cutlint.verify import nvcc_probe, probe_flags

M256 = "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"
OPTIN = (
    101376  # sm_120 opt-in shared memory per block (cutlass/arch/arch.h: sm120_smem_capacity_bytes)
)
COMPARED = ("stages", "smem_bytes", "mainloop_smem_bytes", "epilogue_smem_bytes")
TRUTH_KEYS = {
    "stages": "stages",
    "smem_bytes": "kernel_smem",
    "mainloop_smem_bytes": "mainloop_smem",
    "epilogue_smem_bytes": "epilogue_smem",
    "max_threads_per_block": "max_threads_per_block",
}


@dataclasses.dataclass(frozen=True)
class Run:
    code: int
    data: dict[str, Any]
    stderr: str


def verify(paths: list[Path], roots: list[Path], cache: Path, *extra: str) -> Run:
    args = ["verify", *map(str, paths), "--cache-dir", str(cache), "--format", "json", *extra]
    for root in roots:
        args += ["--headers", str(root)]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return Run(result.exit_code, json.loads(result.stdout), result.stderr)


@pytest.fixture(scope="session")
def verify_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the session: every file compiles at most once. $CUTLINT_TEST_VERIFY_CACHE
    names a cache kept across sessions (then a warm cache means nothing compiles at all)."""
    kept = os.environ.get("CUTLINT_TEST_VERIFY_CACHE")
    return Path(kept) if kept else tmp_path_factory.mktemp("verify-cache")


@pytest.fixture(scope="session")
def m256(
    nvcc: str,
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    verify_cache: Path,
) -> tuple[Path, Path, Run]:
    """0.6.3's M256_BS_group0, verified once (the default run's one compile)."""
    path = real_cache("0.6.3") / M256
    root = flashinfer_root("0.6.3")
    return path, root, verify([path], [root], verify_cache)


def truth_for(nvcc_truth: list[dict[str, Any]], version: str, name: str) -> dict[int, Any]:
    return {r["line"]: r for r in nvcc_truth if r["version"] == version and r["file"] == name}


@pytest.mark.compiler
def test_verify_real_file_with_failing_and_fitting_tactics(
    m256: tuple[Path, Path, Run], nvcc_truth: list[dict[str, Any]]
) -> None:
    _, _, run = m256
    assert run.code == 0, run.stderr
    rows = run.data["instantiations"]
    assert len(rows) == 8 and all(r["agree"] for r in rows)
    compiled = run.data["summary"]["files_compiled"]
    assert compiled == 1 or os.environ.get("CUTLINT_TEST_VERIFY_CACHE"), "a fresh cache compiles"
    args = [r["recipe"]["args"] for r in rows]
    failing = [
        r for r, a in zip(rows, args, strict=True) if a["fusion"] == "FINALIZE" and not a["swap_ab"]
    ]
    fitting = [
        r for r, a in zip(rows, args, strict=True) if a["fusion"] == "FINALIZE" and a["swap_ab"]
    ]
    assert failing and all(r["smem_bytes"] == 102400 > OPTIN and r["stages"] == 3 for r in failing)
    assert fitting and all(r["smem_bytes"] == 74752 <= OPTIN and r["stages"] == 2 for r in fitting)
    truth = truth_for(nvcc_truth, "0.6.3", M256)
    for r in rows:
        assert {k: r[k] for k in TRUTH_KEYS} == {
            k: truth[r["line"]][v] for k, v in TRUTH_KEYS.items()
        }
        assert r["model"] == {k: r[k] for k in TRUTH_KEYS}


def _without_final_round_up(original: Callable[..., Block]) -> Callable[..., Block]:
    """The kernel layout minus the round-up of sizeof to alignof(SharedStorage) = 1024."""

    def kernel_shared_storage(*args: Any) -> Block:
        b = original(*args)
        pieces = tuple(p for p in b.pieces if p.name != "(tail padding)")
        return Block(b.name, max(p.offset + p.size for p in pieces), b.align, b.source, pieces)

    return kernel_shared_storage


@pytest.mark.compiler
def test_verify_catches_a_wrong_model(
    m256: tuple[Path, Path, Run], verify_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, root, _ = m256
    monkeypatch.setattr(
        sm120, "kernel_shared_storage", _without_final_round_up(sm120.kernel_shared_storage)
    )
    run = verify([path], [root], verify_cache)
    assert run.data["summary"]["files_compiled"] == 0, "the compiler's numbers come from the cache"
    assert run.code == 1
    rows = run.data["instantiations"]
    wrong = [r for r in rows if not r["agree"]]
    assert len(wrong) == 8 and all(r["status"] == "disagree" for r in wrong)
    for r in wrong:
        (d,) = r["differences"]
        assert d["field"] == "smem_bytes" and 0 < d["difference"] < 1024
    # The headline case: its tensormaps end at 101,632 B; alignas(1024) makes it 102,400 B.
    headline = [r for r in rows if r["smem_bytes"] == 102400]
    assert headline and all(r["model"]["smem_bytes"] == 101632 for r in headline)


@pytest.mark.compiler
def test_second_run_is_instant(m256: tuple[Path, Path, Run], verify_cache: Path) -> None:
    path, root, _ = m256
    run = verify([path], [root], verify_cache)
    assert run.code == 0 and run.data["summary"]["files_compiled"] == 0
    assert all(r["cached"] for r in run.data["instantiations"])
    assert run.data["summary"]["seconds"] < 10


@pytest.mark.slow
def test_all_sm120_files_of_both_releases(
    nvcc: str,
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    verify_cache: Path,
    nvcc_truth: list[dict[str, Any]],
) -> None:
    """128 of 128: every SM120 instantiation of FlashInfer 0.6.3 and 0.7.2.post1."""
    versions = ("0.6.3", "0.7.2.post1")
    run = verify(
        [real_cache(v) for v in versions], [flashinfer_root(v) for v in versions], verify_cache
    )
    assert run.code == 0, run.stderr
    rows = run.data["instantiations"]
    assert len(rows) == 128 and all(r["agree"] for r in rows)
    for r in rows:
        truth = truth_for(nvcc_truth, r["flashinfer_version"], Path(r["path"]).name)[r["line"]]
        assert {k: r[k] for k in TRUTH_KEYS} == {k: truth[v] for k, v in TRUTH_KEYS.items()}


@pytest.mark.slow
def test_cublas_shim_gives_the_real_headers_numbers(
    nvcc: str,
    real_cache: Callable[[str], Path],
    flashinfer_root: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Set CUTLINT_CUBLAS_INCLUDE to a directory holding the real cublasLt.h (nvidia-cublas)."""
    real = os.environ.get("CUTLINT_CUBLAS_INCLUDE")
    if not real or not (Path(real) / "cublasLt.h").is_file():
        pytest.skip("CUTLINT_CUBLAS_INCLUDE does not name a directory with the real cublasLt.h")
    monkeypatch.delenv(nvcc_probe.INCLUDE_ENV, raising=False)
    monkeypatch.setattr(probe_flags, "_site_package_includes", list)
    path, root = real_cache("0.6.3") / M256, flashinfer_root("0.6.3")
    with_real = nvcc_probe.run_probe(path, root, nvcc, tmp_path / "a", [Path(real)])
    with_shim = nvcc_probe.run_probe(path, root, nvcc, tmp_path / "b")
    if with_shim.cublas_headers is not None:
        pytest.skip(f"the compiler finds real cuBLAS headers in {with_shim.cublas_headers}")
    assert with_real.cublas_headers == Path(real).resolve()
    assert with_real.rows == with_shim.rows  # every number, every member offset
