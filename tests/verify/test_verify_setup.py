"""`cutlint verify` says exactly what is missing (nvcc, headers, a version mismatch) and exits 2,
before any compile. No real compiler needed: a stand-in nvcc answers --version."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint.cli import main
from cutlint.verify import headers

INSTALLED = headers.installed  # the real lookup, before the fixture below replaces it


@pytest.fixture(autouse=True)
def no_installed_flashinfer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever this machine has installed must not answer for the tests."""
    monkeypatch.setattr(headers, "installed", lambda: None)


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["verify", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def test_no_nvcc(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, generated_file: Callable[..., Path]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(headers, "NVCC_CANDIDATES", (str(tmp_path / "none" / "nvcc"),))
    code, err = run(generated_file("0.6.3"), "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "nvcc not found" in err and "--nvcc" in err
    assert "Traceback" not in err


def test_given_nvcc_missing(tmp_path: Path, generated_file: Callable[..., Path]) -> None:
    code, err = run(generated_file("0.6.3"), "--nvcc", tmp_path / "no-nvcc")
    assert code == 2
    assert f"--nvcc {tmp_path / 'no-nvcc'} is not an executable" in err


def test_no_headers(tmp_path: Path, fake_nvcc: Path, generated_file: Callable[..., Path]) -> None:
    code, err = run(generated_file("0.6.3"), "--nvcc", fake_nvcc, "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "headers not found for FlashInfer 0.6.3" in err
    assert "--headers DIR" in err and "pip install flashinfer-python==0.6.3" in err
    assert "--download" in err and str(tmp_path / "c" / "wheels") in err


def test_flashinfer_version_mismatch(
    tmp_path: Path,
    fake_nvcc: Path,
    generated_file: Callable[..., Path],
    fake_root: Callable[[str | None, str], Path],
) -> None:
    root = fake_root("0.7.2.post1", "4.5.0")
    code, err = run(
        generated_file("0.6.3"), "--nvcc", fake_nvcc, "--headers", root, "--cache-dir", tmp_path
    )
    assert code == 2
    assert "version mismatch" in err
    assert "they are FlashInfer 0.7.2.post1, the file's release is 0.6.3" in err


def test_cutlass_version_mismatch(
    tmp_path: Path,
    fake_nvcc: Path,
    generated_file: Callable[..., Path],
    fake_root: Callable[[str | None, str], Path],
) -> None:
    """A root that does not say its release is judged by the CUTLASS it vendors."""
    root = fake_root(None, "4.5.0")
    code, err = run(
        generated_file("0.6.3"), "--nvcc", fake_nvcc, "--headers", root, "--cache-dir", tmp_path
    )
    assert code == 2
    assert "FlashInfer 0.6.3 vendors CUTLASS 4.2.1" in err and "says 4.5.0" in err


def test_headers_not_a_flashinfer_root(
    tmp_path: Path, fake_nvcc: Path, generated_file: Callable[..., Path]
) -> None:
    (tmp_path / "empty").mkdir()
    code, err = run(generated_file("0.6.3"), "--nvcc", fake_nvcc, "--headers", tmp_path / "empty")
    assert code == 2
    assert "is not a FlashInfer root" in err and "flashinfer/data" in err


def test_path_without_version_needs_headers(tmp_path: Path, fake_nvcc: Path) -> None:
    f = tmp_path / "kernels.cu"
    f.write_text(
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, "
        "EpilogueOpDefault, FINALIZE, 256, 128, 128, 1, 1, 1, false, false, false, false);\n"
    )
    code, err = run(f, "--nvcc", fake_nvcc, "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "its path does not say which FlashInfer release wrote it" in err


def test_every_missing_release_is_named(
    tmp_path: Path,
    fake_nvcc: Path,
    generated_file: Callable[..., Path],
    fake_root: Callable[[str | None, str], Path],
) -> None:
    """Files of two releases, headers for one: the other is named, nothing compiles."""
    a = generated_file("0.6.3", "a")
    b = generated_file("0.7.2.post1", "b")
    root = fake_root("0.6.3", "4.2.1")
    code, err = run(a, b, "--nvcc", fake_nvcc, "--headers", root, "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "headers not found for FlashInfer 0.7.2.post1" in err
    assert "headers not found for FlashInfer 0.6.3" not in err


def test_matching_root_is_accepted(fake_root: Callable[[str | None, str], Path]) -> None:
    search = headers.HeaderSearch.from_options([fake_root("0.6.3", "4.2.1")], False, Path("/nx"))
    found = search.for_version("0.6.3", "f.cu")
    assert found.flashinfer_version == "0.6.3" and found.cutlass_version == (4, 2, 1)
    assert found.origin == "--headers"


def test_root_given_as_the_package_directory(fake_root: Callable[[str | None, str], Path]) -> None:
    root = fake_root("0.6.3", "4.2.1")
    assert headers.open_root(root / "flashinfer", "--headers").root == root


def _install(monkeypatch: pytest.MonkeyPatch, root: Path, version: str) -> None:
    """Pretend `root` is the site-packages of an installed flashinfer-python `version`."""
    spec = importlib.machinery.ModuleSpec("flashinfer", None, is_package=True)
    spec.submodule_search_locations = [str(root / "flashinfer")]
    monkeypatch.setattr(headers, "installed", INSTALLED)
    monkeypatch.setattr(importlib.metadata, "version", lambda name: version)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)


def test_installed_flashinfer_of_the_files_release_is_used(
    monkeypatch: pytest.MonkeyPatch, fake_root: Callable[[str | None, str], Path]
) -> None:
    root = fake_root("0.6.3", "4.2.1")
    _install(monkeypatch, root, "0.6.3")
    found = headers.HeaderSearch.from_options([], False, Path("/nx")).for_version("0.6.3", "f.cu")
    assert found.root == root and found.origin == "installed flashinfer-python"


def test_installed_flashinfer_of_another_release_is_a_mismatch(
    monkeypatch: pytest.MonkeyPatch, fake_root: Callable[[str | None, str], Path]
) -> None:
    root = fake_root("0.7.2.post1", "4.5.0")
    _install(monkeypatch, root, "0.7.2.post1")
    search = headers.HeaderSearch.from_options([], False, Path("/nx"))
    with pytest.raises(headers.SetupError) as e:
        search.for_version("0.6.3", "f.cu")
    assert f"version mismatch: installed flashinfer-python at {root}" in str(e.value)
    assert "they are FlashInfer 0.7.2.post1, the file's release is 0.6.3" in str(e.value)


def test_download_fetches_into_the_wheel_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_root: Callable[[str | None, str], Path]
) -> None:
    root = fake_root("0.6.3", "4.2.1")
    asked: list[tuple[str, Path]] = []

    def download_wheel(version: str, dest: Path) -> Path:
        asked.append((version, dest))
        return root

    monkeypatch.setattr(headers, "download_wheel", download_wheel)
    wheels = tmp_path / "wheels"
    assert headers.HeaderSearch.from_options([], False, wheels).download is False
    found = headers.HeaderSearch.from_options([], True, wheels).for_version("0.6.3", "f.cu")
    assert asked == [("0.6.3", wheels)] and found.root == root
    assert found.origin == "downloaded wheel"


def test_nvcc_too_old(tmp_path: Path, generated_file: Callable[..., Path]) -> None:
    old = tmp_path / "nvcc-12.4"
    old.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    old.chmod(0o755)
    code, err = run(generated_file("0.6.3"), "--nvcc", old, "--cache-dir", tmp_path / "c")
    assert code == 2
    assert "nvcc too old" in err and "CUDA 12.4.131; sm_120a needs CUDA 12.8 or newer" in err
