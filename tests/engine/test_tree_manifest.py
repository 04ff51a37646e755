"""The check cache's tree manifest (engine/tree_manifest.py): an unchanged tree's keys come from
one read, with no file read or build context resolved; a changed file, or a changed build file
its key read (or looked for and did not find), is keyed again."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cutlint import api
from cutlint.context import build_files
from cutlint.engine import cache

FIXTURES = Path(__file__).parents[2] / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"
SM90 = FIXTURES / "sm90-collective-builder"


@pytest.fixture(autouse=True)
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HEADLINE, src / "headline.cu")
    for f in sorted(SM90.glob("*.cu"))[:2]:
        shutil.copy(f, src / f.name)
    return src


def _check(src: Path, tmp_path: Path, use_cache: bool = True) -> api.CheckResult:
    return api.check(src, api.CheckOptions(jobs=0, cache=use_cache, root=tmp_path))


def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    def key(*args: object) -> str:
        raise AssertionError("a key was made: the manifest did not answer")

    monkeypatch.setattr(cache.ResultCache, "key", key)


def test_an_unchanged_tree_is_keyed_from_the_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    first = _check(src, tmp_path)
    with monkeypatch.context() as m:
        _no_keys(m)
        assert _check(src, tmp_path) == first


def test_a_changed_file_is_keyed_again(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    _check(src, tmp_path)
    headline = src / "headline.cu"
    text = headline.read_text()
    headline.write_text(text.replace("128, 256, 128", "128, 128, 128", 1))
    st = headline.stat()
    os.utime(headline, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _check(src, tmp_path) == _check(src, tmp_path, use_cache=False)


def test_a_build_file_that_appears_is_a_change(tmp_path: Path) -> None:
    """compile_commands.json was looked for beside the files and not found: once it is there,
    it says the GPU, and the kept keys (made without it) must not answer."""
    src = _tree(tmp_path)
    before = _check(src, tmp_path)
    entries = [
        {
            "directory": str(src),
            "file": str(f),
            "arguments": ["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-c", str(f)],
        }
        for f in sorted(src.glob("*.cu"))
    ]
    (src / "compile_commands.json").write_text(json.dumps(entries))
    build_files.database_above.cache_clear()  # as a new process finds it
    after = _check(src, tmp_path)
    assert after == _check(src, tmp_path, use_cache=False)
    assert after != before


def test_a_corrupt_manifest_is_an_empty_one(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    first = _check(src, tmp_path)
    [manifest] = (tmp_path / "cache" / "check").glob("trees-v*/*.json")
    manifest.write_bytes(b'{"schema": 1, "files": {"x": [1, 2')
    assert _check(src, tmp_path) == first
    manifest.write_text(
        json.dumps({"schema": 1, "files": {str(src / "headline.cu"): 7}, "deps": {}})
    )
    assert _check(src, tmp_path) == first
