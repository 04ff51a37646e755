"""The stat phase's keys (engine/keying.py): made by forked helpers beside the parent, they are
the keys, manifest rows and dependencies the parent makes alone; a helper that fails is no
error, the parent keys its slice."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

import pytest

from cutlint import api
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
    monkeypatch.setattr(keying, "SPLIT_MIN", 1)  # a helper for a handful of files


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HEADLINE, src / "headline.cu")
    for f in sorted(SM90.glob("*.cu"))[:4]:
        shutil.copy(f, src / f.name)
    (src / "unreadable.cu").symlink_to(src / "nowhere.cu")
    return src


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


def test_helpers_make_the_keys_the_parent_makes(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    alone = _keyed(src, tmp_path, 0)
    assert len(alone[0]) == len(list(src.glob("*.cu"))) - 1  # every readable file
    for helpers in (1, 2, 7):
        assert _keyed(src, tmp_path, helpers) == alone


def test_a_failed_helper_leaves_its_slice_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    alone = _keyed(src, tmp_path, 0)
    helper = keying._helper

    def failing(*args: object) -> None:
        def fail(*args: object) -> str | None:
            raise OSError("a helper that fails")

        keying.make = fail  # in the helper only: it is a process of its own
        helper(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(keying, "_helper", failing)
    assert _keyed(src, tmp_path, 1) == alone


def test_a_run_keyed_by_helpers_is_answered_by_its_cache(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    options = api.CheckOptions(jobs=1, cache=True, root=tmp_path)
    first = api.check(src, options)
    assert first == api.check(src, api.CheckOptions(jobs=0, cache=False, root=tmp_path))
    assert api.check(src, options) == first
