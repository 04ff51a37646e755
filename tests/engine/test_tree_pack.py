"""The tree pack (engine/tree_pack.py): an unchanged tree is answered by one file with no entry
read, its results equal to a fresh run's; a pack of another run, or one that is corrupt, foreign
or does not validate, is never trusted (what it answered before the damage validated file by
file; the entries answer from there) and is replaced; a run that did not finish writes none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.engine import cache, tree_pack

FIXTURES = Path(__file__).parents[2] / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"
SM90 = FIXTURES / "sm90-collective-builder"


@pytest.fixture
def packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty cache, turned on (the suite turns it off: tests/conftest.py); where its
    packs are."""
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    return tmp_path / "cache" / "check" / f"packs-v{tree_pack.SCHEMA}"


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HEADLINE, src / "headline.cu")
    for f in sorted(SM90.glob("*.cu"))[:3]:
        shutil.copy(f, src / f.name)
    return src


def _check(src: Path, tmp_path: Path, use_cache: bool = True) -> api.CheckResult:
    return api.check(src, api.CheckOptions(jobs=0, cache=use_cache, root=tmp_path))


def _no_entry_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The entries looked up (asked for or read) from here on."""
    read: list[str] = []
    real_load = cache.ResultCache.load
    real_has = cache.ResultCache.has

    def load(self: cache.ResultCache, key: str) -> object:
        read.append(key)
        return real_load(self, key)

    def has(self: cache.ResultCache, key: str) -> bool:
        read.append(key)
        return real_has(self, key)

    monkeypatch.setattr(cache.ResultCache, "load", load)
    monkeypatch.setattr(cache.ResultCache, "has", has)
    return read


def _pack(packs: Path) -> Path:
    (pack,) = packs.glob("*.pack")
    return pack


def test_an_unchanged_tree_is_answered_by_its_pack(
    tmp_path: Path, packs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    first = _check(src, tmp_path)
    assert first == _check(src, tmp_path, use_cache=False)
    read = _no_entry_read(monkeypatch)
    again = _check(src, tmp_path)
    assert again == first
    assert read == []
    rows = [r for f in again.files for r in f.instantiations]
    before = [r for f in first.files for r in f.instantiations]
    assert [type(r.recipe) for r in rows] == [type(r.recipe) for r in before]
    # the parts a tree shares are one record: the arch table of every judged row
    archs = {id(r.resources.arch) for r in rows if r.resources is not None}
    tables = {r.resources.arch.model_dump_json() for r in rows if r.resources is not None}
    assert len(archs) == len(tables) < len(rows)


def test_a_changed_file_is_not_answered_by_the_pack(
    tmp_path: Path, packs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    _check(src, tmp_path)
    before = _pack(packs).read_bytes()
    (src / "headline.cu").write_bytes((src / "headline.cu").read_bytes() + b"\n// edited\n")
    read = _no_entry_read(monkeypatch)
    assert _check(src, tmp_path) == _check(src, tmp_path, use_cache=False)
    assert len(set(read)) == 4  # every file looked up (the edited one is a miss)
    assert _pack(packs).read_bytes() != before  # and a pack for the tree as it is now
    read.clear()
    _check(src, tmp_path)
    assert read == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b"",
        lambda b: b"not json\n" + b,
        lambda b: b.replace(b'"digest":"', b'"digest":"x', 1),
        lambda b: b.replace(b'"schema":2', b'"schema":999', 1),
        lambda b: b[: len(b) // 2],
        lambda b: b.replace(b'"verdict":"', b'"verdict":"no such ', 1),
        lambda b: b.replace(b'"recipes":["cutlint.', b'"recipes":["os.', 1),
        lambda b: b.replace(b"\nP{", b"\nP[", 1),
        lambda b: b.replace(b'"resources":[["arch"', b'"resources":[["os"', 1),
        lambda b: b + b"\nF{}",
    ],
    ids=[
        "empty",
        "not-json",
        "other-run",
        "other-schema",
        "cut-short",
        "not-validating",
        "foreign-class",
        "foreign-part",
        "foreign-part-kind",
        "extra-file",
    ],
)
def test_a_corrupt_or_foreign_pack_is_ignored_and_replaced(
    tmp_path: Path, packs: Path, damage: object
) -> None:
    src = _tree(tmp_path)
    first = _check(src, tmp_path)
    pack = _pack(packs)
    good = pack.read_bytes()
    assert callable(damage)
    damaged = damage(good)
    assert damaged != good
    pack.write_bytes(damaged)
    assert _check(src, tmp_path) == first
    # A pack whose head does not answer is replaced by the same run; one found bad part-way
    # (it is read as the run goes, a file at a time) is removed, its files from there answered
    # by the entries, and the run after writes it again.
    assert _check(src, tmp_path) == first
    assert _pack(packs).read_bytes() == good


def test_no_cache_writes_no_pack(tmp_path: Path, packs: Path) -> None:
    src = _tree(tmp_path)
    argv = ["check", str(src), "--no-config", "--arch", "sm_120", "--cutlass-version", "4.5.0"]
    r = CliRunner().invoke(main, [*argv, "--no-cache", "--jobs", "0"])
    assert r.exit_code == 1, r.output
    assert not packs.exists()
    r = CliRunner().invoke(main, [*argv, "--jobs", "0"])
    assert r.exit_code == 1, r.output
    assert len(list(packs.glob("*.pack"))) == 1


def test_a_run_stopped_early_writes_no_pack(tmp_path: Path, packs: Path) -> None:
    from cutlint.engine.stream import outcomes

    src = _tree(tmp_path)
    run = outcomes([src], api.CheckOptions(jobs=0, cache=True, root=tmp_path))
    next(run)
    run.close()
    assert list(packs.glob("*")) == []  # neither a pack nor its temporary file


def test_a_pack_is_written_whole_and_leaves_no_temporary_file(tmp_path: Path, packs: Path) -> None:
    src = _tree(tmp_path)
    _check(src, tmp_path)
    assert [p.suffix for p in packs.iterdir()] == [".pack"]
    assert _pack(packs).read_bytes().endswith(b"\n")


def test_a_first_run_makes_each_files_key_once(
    tmp_path: Path, packs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key made before a file is parsed is the one its result is kept under (making it
    again read the file and resolved its build context a second time), while the file is as it
    was."""
    src = _tree(tmp_path)
    made: list[str] = []
    real = cache.ResultCache.key

    def key(self: cache.ResultCache, path: str, options: api.CheckOptions) -> str | None:
        made.append(path)
        return real(self, path, options)

    monkeypatch.setattr(cache.ResultCache, "key", key)
    first = _check(src, tmp_path)
    assert sorted(made) == sorted(f.path for f in first.files)
    made.clear()
    assert _check(src, tmp_path) == first
    assert made == []
