"""The check cache (engine/cache.py): a kept result is the result a fresh run gives, and an entry
that is corrupt, foreign or stale is never trusted."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.engine import cache, entry_log, stream, tree_pack
from cutlint.records import FileResult, ParsedFile

FIXTURES = Path(__file__).parents[2] / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"
SM90 = FIXTURES / "sm90-collective-builder"


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty cache, turned on (the suite turns it off: tests/conftest.py)."""
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    return tmp_path / "cache" / "check" / f"v{cache.SCHEMA}"


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HEADLINE, src / "headline.cu")
    for f in sorted(SM90.glob("*.cu"))[:2]:
        shutil.copy(f, src / f.name)
    return src


def _options(**kw: object) -> api.CheckOptions:
    return api.CheckOptions(jobs=0, cache=True, **kw)  # type: ignore[arg-type]


def _entries(kept: Path) -> list[str]:
    """The keys the cache's logs name (engine/entry_log.py)."""
    return sorted(entry_log.EntryLogs(kept, cache.tool_key()).keys())


def _entry(kept: Path, key: str) -> bytes:
    """The entry a lookup of `key` reads first."""
    return next(entry_log.EntryLogs(kept, cache.tool_key()).read(key))


def _rewrite(kept: Path, change: Callable[[str, bytes], bytes]) -> None:
    """Every entry of every log replaced by `change(key, entry)`: the logs and their indexes
    written again."""
    for index in kept.glob(f"*{entry_log.INDEX}"):
        log = index.with_suffix(entry_log.LOG)
        data = log.read_bytes()
        entries, lines = [], []
        for line in index.read_bytes().splitlines():
            key, offset, length = line.decode().split()
            new = change(key, data[int(offset) : int(offset) + int(length)])
            lines.append(f"{key} {sum(map(len, entries))} {len(new)}\n")
            entries.append(new)
        log.write_bytes(b"".join(entries))
        index.write_text("".join(lines))


def _drop_packs(kept: Path) -> None:
    """The tree packs (engine/tree_pack.py), so that a re-run reads the entries."""
    shutil.rmtree(kept.parent / f"packs-v{tree_pack.SCHEMA}", ignore_errors=True)


def _judge_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a file that is judged fails the test: every result must come from disk."""

    def outcome(self: stream.JudgeStage, parsed: ParsedFile) -> FileResult | str:
        raise AssertionError(f"{parsed.path} was judged again")

    monkeypatch.setattr(stream.JudgeStage, "outcome", outcome)


def test_a_rerun_is_answered_from_the_cache_with_the_same_result(
    tmp_path: Path, kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    first = api.check(src, _options(root=tmp_path))
    assert len(_entries(kept)) == 3
    assert first == api.check(src, api.CheckOptions(jobs=0, root=tmp_path))  # as with no cache
    _judge_nothing(monkeypatch)
    again = api.check(src, _options(root=tmp_path))
    assert again == first
    assert again.files[0].instantiations[0].recipe is not None  # the family's own record
    assert type(again.files[0].instantiations[0].recipe) is type(
        first.files[0].instantiations[0].recipe
    )


@pytest.mark.parametrize("jobs", [2, 3], ids=["two-workers", "three-workers"])
def test_the_cache_is_kept_with_parser_workers(tmp_path: Path, kept: Path, jobs: int) -> None:
    src = _tree(tmp_path)
    options = api.CheckOptions(jobs=jobs, cache=True, root=tmp_path)
    first = api.check(src, options)
    assert len(_entries(kept)) == 3
    assert api.check(src, options) == first == api.check(src, api.CheckOptions(root=tmp_path))


def test_a_changed_file_or_context_is_judged_again(
    tmp_path: Path, kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path)
    api.check(src, _options(root=tmp_path))
    (src / "headline.cu").write_bytes((src / "headline.cu").read_bytes() + b"\n// edited\n")
    judged: list[str] = []
    real = stream.JudgeStage.outcome

    def outcome(self: stream.JudgeStage, parsed: ParsedFile) -> FileResult | str:
        judged.append(Path(parsed.path).name)
        return real(self, parsed)

    monkeypatch.setattr(stream.JudgeStage, "outcome", outcome)
    api.check(src, _options(root=tmp_path))
    assert judged == ["headline.cu"]
    judged.clear()
    api.check(src, _options(root=tmp_path, arch="sm_100"))  # another context: every file
    assert len(judged) == 3


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not json",
        b'{"schema": 999, "key": "x"}',
        b'{"schema": 1, "key": "someone else", "recipes": [], "result": {"path": "x"}}',
    ],
    ids=["empty", "not-json", "other-schema", "other-key"],
)
def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(
    tmp_path: Path, kept: Path, damage: bytes
) -> None:
    src = _tree(tmp_path)
    first = api.check(src, _options(root=tmp_path))
    _rewrite(kept, lambda key, entry: damage)
    _drop_packs(kept)  # else the tree's pack answers without reading an entry
    assert api.check(src, _options(root=tmp_path)) == first
    assert all(_entry(kept, key) != damage for key in _entries(kept))
    assert all(cache.ResultCache.open().load(key) is not None for key in _entries(kept))


def test_an_entry_found_corrupt_in_its_turn_is_judged_by_a_worker(
    tmp_path: Path, kept: Path
) -> None:
    """Entries are decoded as their file's turn comes (not all before the parse: a big tree's
    would all be held); one that does not decode then is parsed in a worker of its own."""
    src = _tree(tmp_path)
    first = api.check(src, _options(root=tmp_path))
    _rewrite(kept, lambda key, entry: b"not json")
    _drop_packs(kept)
    assert api.check(src, api.CheckOptions(jobs=1, cache=True, root=tmp_path)) == first
    assert all(_entry(kept, key) != b"not json" for key in _entries(kept))


def test_an_entry_names_no_class_outside_cutlints_recipes(tmp_path: Path, kept: Path) -> None:
    src = _tree(tmp_path)
    first = api.check(src, _options(root=tmp_path))
    key = next(k for k in _entries(kept) if b'"recipes":["cutlint.' in _entry(kept, k))
    _rewrite(kept, lambda k, e: e.replace(b'"recipes":["cutlint.', b'"recipes":["os.'))
    assert cache.ResultCache.open().load(key) is None
    assert api.check(src, _options(root=tmp_path)) == first


def test_an_entry_that_does_not_validate_is_a_miss(tmp_path: Path, kept: Path) -> None:
    src = _tree(tmp_path)
    api.check(src, _options(root=tmp_path))
    key = _entries(kept)[0]
    _rewrite(
        kept, lambda k, e: e.replace(b'"verdict":"', b'"verdict":"no such ') if k == key else e
    )
    assert cache.ResultCache.open().load(key) is None
    assert all(cache.ResultCache.open().load(k) is not None for k in _entries(kept)[1:])


def test_no_cache_neither_reads_nor_writes(tmp_path: Path, kept: Path) -> None:
    src = _tree(tmp_path)
    r = CliRunner().invoke(
        main,
        [
            "check",
            str(src),
            "--no-config",
            "--arch",
            "sm_120",
            "--cutlass-version",
            "4.5.0",
            "--no-cache",
            "--jobs",
            "0",
        ],
    )
    assert r.exit_code == 1, r.output
    assert _entries(kept) == []
    r = CliRunner().invoke(
        main,
        [
            "check",
            str(src),
            "--no-config",
            "--arch",
            "sm_120",
            "--cutlass-version",
            "4.5.0",
            "--jobs",
            "0",
        ],
    )
    assert r.exit_code == 1, r.output
    assert len(_entries(kept)) == 3


def test_writes_are_atomic_and_leave_no_temporary_file(tmp_path: Path, kept: Path) -> None:
    src = _tree(tmp_path)
    api.check(src, _options(root=tmp_path))
    assert not [p for p in kept.rglob("*") if p.name.startswith(".tmp-")]


def test_the_tool_key_covers_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited rule file is another key: a development checkout keeps one version number."""
    from importlib import resources

    before = cache.tool_key()
    rule = next(
        f for g in resources.files("cutlint.rules").iterdir() if g.is_dir() for f in g.iterdir()
    )
    real = type(rule).read_bytes

    def edited(self: object) -> bytes:
        data: bytes = real(self)  # type: ignore[arg-type]
        return data + b"# edited" if self == rule else data

    monkeypatch.setattr(type(rule), "read_bytes", edited)
    cache.tool_key.cache_clear()
    try:
        assert cache.tool_key() != before
    finally:
        monkeypatch.undo()
        cache.tool_key.cache_clear()
    assert cache.tool_key() == before


def test_a_changed_header_beside_it_is_a_new_key(tmp_path: Path, kept: Path) -> None:
    """A macro call is read by the #define of a header it includes beside it
    (parse/macro_params.py): another definition there is another result, so another key."""
    src = tmp_path / "src"
    (src / "include").mkdir(parents=True)
    header = src / "include" / "launchers.h"
    header.write_bytes(b"#define INSTANTIATE_X(ARCH_, T)\n")
    cu = src / "a.cu"
    cu.write_bytes(b'#include "include/launchers.h"\nINSTANTIATE_X(Sm100, half)\n')
    results = cache.ResultCache.open()
    before = results.key(str(cu), _options())
    header.write_bytes(b"#define INSTANTIATE_X(T, ARCH_)\n")
    assert results.key(str(cu), _options()) != before
    header.unlink()
    assert results.key(str(cu), _options()) not in (before, None)


def test_an_entry_is_written_through_a_temporary_name_of_its_own(tmp_path: Path) -> None:
    """inputs.write_atomically: a temporary name another run took (a cache shared by several
    machines) is passed over, and a forked process draws its own token."""
    import os

    from cutlint import inputs

    first = tmp_path / "a.json"
    assert inputs.write_atomically(first, b"1")
    token, counter = inputs._TEMPORARY[os.getpid()]
    taken = next(counter)
    (tmp_path / f".tmp-{token}-{taken + 1}.json").write_bytes(b"another run's")
    assert inputs.write_atomically(tmp_path / "b.json", b"2")
    assert (tmp_path / "b.json").read_bytes() == b"2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f".tmp-{token}-{taken + 1}.json",
        "a.json",
        "b.json",
    ]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child's first name must not be its parent's next one
        inputs.write_atomically(tmp_path / "c.json", b"3")
        os.write(write, inputs._TEMPORARY[os.getpid()][0].encode())
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 64).decode() != token
    assert (tmp_path / "c.json").read_bytes() == b"3"


def test_an_entry_makes_its_missing_directories_and_says_when_it_cannot(tmp_path: Path) -> None:
    """The directories are made where the first write finds none (not tried for each write), and
    a directory that cannot be made is no error: the write says False."""
    from cutlint import inputs

    deep = tmp_path / "ab" / "cd" / "e.json"
    assert inputs.write_atomically(deep, b"1" * 100_000)
    assert deep.read_bytes() == b"1" * 100_000
    (tmp_path / "file").write_bytes(b"")
    assert not inputs.write_atomically(tmp_path / "file" / "x.json", b"2")
    assert sorted(p.name for p in (tmp_path / "ab" / "cd").iterdir()) == ["e.json"]


def test_the_key_kept_per_run_is_the_key_made_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """context_key keeps the options' part per options object and the context's JSON per
    context object: the same key as made with nothing kept, and another one for other options,
    another working directory (the root's default) or another context."""
    cu = tmp_path / "a.cu"
    shutil.copy(HEADLINE, cu)
    options = _options()
    first = cache.context_key(str(cu), options)

    def afresh(opts: api.CheckOptions) -> str:
        cache._OPTIONS_PART.clear()
        cache._LINE.clear()
        cache._LINES.clear()
        cache._SHARED_HASH.clear()
        return cache.context_key(str(cu), opts)

    assert cache.context_key(str(cu), options) == first == afresh(options)
    other = _options(arch="sm_90a")
    assert cache.context_key(str(cu), other) == afresh(other) != first
    monkeypatch.chdir(tmp_path)
    assert cache.context_key(str(cu), options) == afresh(options) != first
    rooted = _options(root=tmp_path)
    assert cache.context_key(str(cu), rooted) == afresh(rooted)
    build = cache._resolve(str(cu), options)
    changed = build.model_copy(update={"gpu": build.gpu.model_copy(update={"value": 90})})
    assert cache.context_key(str(cu), options, changed) != cache.context_key(
        str(cu), options, build
    )


@pytest.mark.parametrize("fraction", [0.0, 1.0], ids=["judged-here", "judged-by-the-worker"])
def test_a_file_is_keyed_once_where_it_is_unchanged_since_the_stat_phase(
    tmp_path: Path, kept: Path, monkeypatch: pytest.MonkeyPatch, fraction: float
) -> None:
    """The key the stat phase made is the entry's key, where the file is judged here and where a
    worker judges it: each file is keyed once (a worker counts in the same file, since it is
    forked with the patch). Every entry is written by this process, the run's one writer
    (JudgeStage.__call__ says why)."""
    from cutlint.parse.pool import Share

    src = _tree(tmp_path)
    calls = tmp_path / "calls"
    stores = tmp_path / "stores"
    make = cache.ResultCache.key
    store = cache.ResultCache.store

    def counted(self: cache.ResultCache, path: str, options: api.CheckOptions) -> str | None:
        with calls.open("a") as f:
            f.write(path + "\n")
        return make(self, path, options)

    def stored(self: cache.ResultCache, key: str, encoded: bytes) -> None:
        with stores.open("a") as f:
            f.write(f"{os.getpid()}\n")
        store(self, key, encoded)

    monkeypatch.setattr(cache.ResultCache, "key", counted)
    monkeypatch.setattr(cache.ResultCache, "store", stored)
    monkeypatch.setattr(stream, "share", lambda: Share(fraction=fraction, step=0.0))
    first = api.check(src, api.CheckOptions(jobs=1, cache=True, root=tmp_path))
    assert len(calls.read_text().splitlines()) == 3
    assert len(_entries(kept)) == 3
    assert stores.read_text().split() == [str(os.getpid())] * 3
    _drop_packs(kept)
    _judge_nothing(monkeypatch)
    assert api.check(src, _options(root=tmp_path)) == first  # kept under the keys made


def test_with_several_workers_the_parent_keeps_every_entry(
    tmp_path: Path, kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With several workers judging every file, the parent still writes every entry (one log),
    and they answer the next run."""
    from cutlint.parse.pool import Share

    src = _tree(tmp_path)
    stores = tmp_path / "stores"
    store = cache.ResultCache.store

    def stored(self: cache.ResultCache, key: str, encoded: bytes) -> None:
        with stores.open("a") as f:
            f.write(f"{os.getpid()}\n")
        store(self, key, encoded)

    monkeypatch.setattr(cache.ResultCache, "store", stored)
    monkeypatch.setattr(stream, "share", lambda: Share(fraction=1.0, step=0.0))
    first = api.check(src, api.CheckOptions(jobs=2, cache=True, root=tmp_path))
    assert stores.read_text().split() == [str(os.getpid())] * 3
    assert len(list(kept.glob(f"*{entry_log.LOG}"))) == 1
    _drop_packs(kept)
    _judge_nothing(monkeypatch)
    assert api.check(src, _options(root=tmp_path)) == first


def test_a_file_changed_since_the_stat_phase_is_keyed_again(tmp_path: Path, kept: Path) -> None:
    from cutlint.inputs import signature

    cu = tmp_path / "a.cu"
    shutil.copy(HEADLINE, cu)
    options = _options()
    results = cache.ResultCache.open()
    stage = stream.JudgeStage(options, tmp_path, results)
    stage.known[str(cu)] = [*(signature(cu) or ()), "made before"]
    assert stage.key(str(cu)) == "made before"
    cu.write_bytes(cu.read_bytes() + b"\n// changed\n")
    assert stage.key(str(cu)) == results.key(str(cu), options) != "made before"


def test_a_worker_is_not_sent_the_rows_of_the_whole_run(tmp_path: Path, kept: Path) -> None:
    """The stage a worker is sent leaves the stat phase's rows behind (50 MB in a worker on the
    hundred-thousand-kernel run): a file's row goes with the file (JudgeStage.note), and keys
    the file there as it does here."""
    import pickle

    from cutlint.inputs import signature

    cu = tmp_path / "a.cu"
    shutil.copy(HEADLINE, cu)
    stage = stream.JudgeStage(_options(), tmp_path, cache.ResultCache.open())
    stage.known[str(cu)] = [*(signature(cu) or ()), "made before"]
    sent = pickle.loads(pickle.dumps(stage))
    assert sent == stage and sent.known == {}
    assert sent.key(str(cu), stage.note(str(cu))) == "made before"
