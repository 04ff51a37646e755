"""The verify cache: every part of the key counts, entries round-trip, bad entries are misses."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cutlint.verify import cache, headers
from cutlint.verify.cache import ResultCache, Toolchain, cache_key
from cutlint.verify.nvcc_probe import ProbeRow

TOOLCHAIN = Toolchain(
    flashinfer_version="0.6.3",
    launcher_sha256="a" * 64,
    cutlass_version_h_sha256="b" * 64,
    nvcc_version="Cuda compilation tools, release 13.0, V13.0.88",
    probe_sha256="c" * 64,
)
ARGS = ("Sm120", "SafeFP4", "SafeFP4", "half", "void", "EpilogueOpDefault", "FINALIZE")
FILE = "d" * 64


def row(path: str = "/x/f.cu") -> ProbeRow:
    return ProbeRow(
        path=path,
        line=53,
        args=ARGS,
        stages=3,
        mainloop_smem=83968,
        epilogue_smem=17408,
        kernel_smem=102400,
        kernel_align=1024,
        max_threads_per_block=384,
        members={"kernel.tensors.size": 101376},
    )


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Toolchain)])
def test_every_toolchain_part_changes_the_key(field: str) -> None:
    changed = dataclasses.replace(TOOLCHAIN, **{field: "other"})
    assert cache_key(changed, FILE, ARGS) != cache_key(TOOLCHAIN, FILE, ARGS)


def test_file_and_arguments_change_the_key() -> None:
    key = cache_key(TOOLCHAIN, FILE, ARGS)
    assert cache_key(TOOLCHAIN, "e" * 64, ARGS) != key
    assert cache_key(TOOLCHAIN, FILE, (*ARGS[:-1], "NONE")) != key


def test_whitespace_in_arguments_does_not_change_the_key() -> None:
    spaced = tuple(f"  {a}\n" for a in ARGS)
    assert cache_key(TOOLCHAIN, FILE, spaced) == cache_key(TOOLCHAIN, FILE, ARGS)


def test_key_is_stable() -> None:
    """The key is a content hash: the same inputs give the same key in every process."""
    assert cache_key(TOOLCHAIN, FILE, ARGS) == cache_key(
        dataclasses.replace(TOOLCHAIN), FILE, list(ARGS)
    )
    assert len(cache_key(TOOLCHAIN, FILE, ARGS)) == 64


def test_toolchain_hashes_the_launcher_and_the_probe_method(
    tmp_path: Path, flashinfer_root: Callable[[str], Path]
) -> None:
    real = flashinfer_root("0.6.3")
    root = tmp_path / "root"
    shutil.copytree(real / "flashinfer" / "data" / "csrc", root / "flashinfer" / "data" / "csrc")
    include = root / "flashinfer" / "data" / "cutlass" / "include" / "cutlass"
    include.mkdir(parents=True)
    shutil.copy(
        real / "flashinfer" / "data" / "cutlass" / "include" / "cutlass" / "version.h", include
    )
    h = headers.open_root(root, "--headers")
    first = Toolchain.of("0.6.3", h, "nvcc 13.0")
    assert first == Toolchain.of("0.6.3", h, "nvcc 13.0")
    assert first.probe_sha256 == cache.probe_method_hash(h.launcher, h.root)
    with h.launcher.open("a") as f:
        f.write("\n// a change to the recipe\n")
    second = Toolchain.of("0.6.3", h, "nvcc 13.0")
    assert second.launcher_sha256 != first.launcher_sha256
    assert second.probe_sha256 != first.probe_sha256


def test_probe_method_does_not_depend_on_where_the_headers_are(
    tmp_path: Path, flashinfer_root: Callable[[str], Path]
) -> None:
    real = flashinfer_root("0.6.3")
    copy = tmp_path / "elsewhere"
    shutil.copytree(real / "flashinfer" / "data" / "csrc", copy / "flashinfer" / "data" / "csrc")
    a = headers.open_root(real, "--headers")
    b = headers.open_root(copy, "--headers")
    assert cache.probe_method_hash(a.launcher, a.root) == cache.probe_method_hash(
        b.launcher, b.root
    )


def test_round_trip_uses_the_callers_path(tmp_path: Path) -> None:
    c = ResultCache(tmp_path)
    key = cache_key(TOOLCHAIN, FILE, ARGS)
    assert c.get(key, "/y/f.cu") is None
    c.put(key, row(), seconds=27.1)
    assert c.get(key, "/y/f.cu") == row("/y/f.cu")
    assert (tmp_path / "verify" / "results" / key[:2] / f"{key}.json").is_file()


def test_unreadable_entry_is_a_miss(tmp_path: Path) -> None:
    c = ResultCache(tmp_path)
    key = cache_key(TOOLCHAIN, FILE, ARGS)
    c.put(key, row(), seconds=1.0)
    (tmp_path / "verify" / "results" / key[:2] / f"{key}.json").write_text("{not json")
    assert c.get(key, "/x/f.cu") is None


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    assert cache.default_cache_dir() == tmp_path
    monkeypatch.delenv(cache.CACHE_ENV)
    assert cache.default_cache_dir() == Path.home() / ".cache" / "cutlint"
