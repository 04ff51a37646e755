"""The check cache's tree manifest (engine/tree_manifest.py): an unchanged tree's keys come from
one read, with no file read or build context resolved; a changed file, or a changed build file
its key read (or looked for and did not find), is keyed again. The stat phase's keys
(engine/keying.py): made by forked helpers beside the parent, they are the keys, manifest rows
and dependencies the parent makes alone; a helper that fails is no error, the parent keys its
slice."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cutlint import api
from cutlint.context import build_files
from cutlint.engine import cache, keying
from cutlint.engine.options import CheckOptions
from cutlint.engine.tree_manifest import TreeManifest
from cutlint.parse import walk

FIXTURES = Path(__file__).parents[2] / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"
SM90 = FIXTURES / "sm90-collective-builder"


@pytest.fixture(autouse=True)
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)


def _tree(tmp_path: Path, wider: bool = False) -> Path:
    """Three sources; `wider`: five, and a dangling link named like one (never keyed)."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HEADLINE, src / "headline.cu")
    for f in sorted(SM90.glob("*.cu"))[: 4 if wider else 2]:
        shutil.copy(f, src / f.name)
    if wider:
        (src / "unreadable.cu").symlink_to(src / "nowhere.cu")
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


def _keyed(
    src: Path, tmp_path: Path, helpers: int
) -> tuple[dict[int, str], dict[str, object], set[str]]:
    """The keys, rows and dependencies of one stat phase, made in a forked process: each starts
    from this one's state, as a new run would (the probes of build files are cached per
    process, and each process's first look is what records them as dependencies)."""
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe(duplex=False)

    def phase() -> None:
        entries = walk.expand([src])
        results = cache.ResultCache.open()
        tree = TreeManifest.open(results.directory, f"helpers-{helpers}")
        keys = keying.keys(results, tree, entries, CheckOptions(root=tmp_path), helpers)
        there.send((keys, tree.files, set(tree.deps)))

    proc = ctx.Process(target=phase)
    proc.start()
    got = here.recv()
    proc.join()
    assert isinstance(got, tuple)
    return got


def test_helpers_make_the_keys_the_parent_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keying, "SPLIT_MIN", 1)  # a helper for a handful of files
    src = _tree(tmp_path, wider=True)
    alone = _keyed(src, tmp_path, 0)
    assert len(alone[0]) == len(list(src.glob("*.cu"))) - 1  # every readable file
    for helpers in (1, 2, 7):
        assert _keyed(src, tmp_path, helpers) == alone


def test_a_failed_helper_leaves_its_slice_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keying, "SPLIT_MIN", 1)
    src = _tree(tmp_path, wider=True)
    alone = _keyed(src, tmp_path, 0)
    helper = keying._helper

    failed = tmp_path / "failed"

    def failing(*args: object) -> None:
        def fail(*args: object) -> str | None:
            failed.touch()  # the helper did fail: the keys below are the parent's
            raise OSError("a helper that fails")

        keying.make = fail  # in the helper only: it is a process of its own
        helper(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(keying, "_helper", failing)
    assert _keyed(src, tmp_path, 1) == alone
    assert failed.exists()


def test_a_run_keyed_by_helpers_is_answered_by_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keying, "SPLIT_MIN", 1)
    src = _tree(tmp_path, wider=True)
    options = api.CheckOptions(jobs=1, cache=True, root=tmp_path)
    first = api.check(src, options)
    assert first == api.check(src, api.CheckOptions(jobs=0, cache=False, root=tmp_path))
    assert api.check(src, options) == first


def test_a_helper_writes_nothing_the_parent_wrote(tmp_path: Path) -> None:
    """Text the parent had written to stdout but not flushed when it forked a helper is written
    once: a child flushes the buffers it inherited when it ends, and multiprocessing empties
    them before it forks (a helper forked any other way must too)."""
    src = _tree(tmp_path, wider=True)
    script = f"""
import sys
from cutlint.engine import cache, keying
from cutlint.engine.options import CheckOptions
from cutlint.engine.tree_manifest import TreeManifest
from cutlint.parse import walk
keying.SPLIT_MIN = 1
sys.stdout.write("written once\\n")  # a pipe: held in the buffer
results = cache.ResultCache.open()
tree = TreeManifest.open(results.directory, "once")
keys = keying.keys(results, tree, walk.expand([{str(src)!r}]), CheckOptions(), 1)
assert keys
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "written once\n"
