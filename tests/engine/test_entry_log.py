"""The check cache's entry logs (engine/entry_log.py): each writing process appends to a log of its
own, a reader reads only whole index lines, and nothing a log holds is trusted."""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import pytest

from cutlint import api
from cutlint.engine import cache, entry_log, tree_pack

HEADLINE = (
    Path(__file__).parents[2]
    / "fixtures"
    / "sm120-blockscaled-grouped"
    / "CUT101-headline-flashinfer-0.7.2.cu"
)
KEY = "ab" * 20
TOOL = "t" * 32


def _logs(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_an_entry_is_read_back_by_the_next_run(tmp_path: Path) -> None:
    logs = entry_log.EntryLogs(tmp_path / "v", TOOL)
    assert not logs.has(KEY)  # no directory yet: no index, no error
    assert logs.append(KEY, b"first") and logs.append("cd" * 20, b"second")
    assert not logs.has(KEY)  # the indexes were read at the first lookup: the next run's
    logs.close()
    (log,) = (tmp_path / "v").glob(f"*{entry_log.LOG}")
    assert log.read_bytes() == b"firstsecond"
    assert log.with_suffix(entry_log.INDEX).read_text() == f"{KEY} 0 5\n{'cd' * 20} 5 6\n"
    again = entry_log.EntryLogs(tmp_path / "v", TOOL)
    assert sorted(again.keys()) == [KEY, "cd" * 20]
    assert list(again.read(KEY)) == [b"first"]
    assert list(again.read("cd" * 20)) == [b"second"]


def test_each_process_appends_to_a_log_of_its_own(tmp_path: Path) -> None:
    """A forked process (a parser worker that keeps its entries) never writes to its parent's
    log: each draws its own, so that no two writers share an offset."""
    logs = entry_log.EntryLogs(tmp_path, TOOL)
    assert logs.append(KEY, b"parent's")
    pid = os.fork()
    if pid == 0:
        os._exit(0 if logs.append("cd" * 20, b"child's") else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert logs.append("ef" * 20, b"parent's again")
    logs.close()
    assert len(list(tmp_path.glob(f"*{entry_log.LOG}"))) == 2
    again = entry_log.EntryLogs(tmp_path, TOOL)
    assert [next(again.read(k)) for k in (KEY, "cd" * 20, "ef" * 20)] == [
        b"parent's",
        b"child's",
        b"parent's again",
    ]
    assert pickle.loads(pickle.dumps(logs)).directory == tmp_path  # made afresh, not its fds


def test_an_index_line_cut_short_or_naming_what_is_not_there_is_passed_over(
    tmp_path: Path,
) -> None:
    """A writer stopped mid-line (or writing it now), a line of another shape, and a line naming
    bytes past the log's end (a log cut short) name nothing."""
    (tmp_path / f"{TOOL}-x{entry_log.LOG}").write_bytes(b"0123456789")
    (tmp_path / f"{TOOL}-x{entry_log.INDEX}").write_bytes(
        b"%s 0 4\nnot a line\n%s 2 x\n%s 8 5\n%s 4 2"
        % (b"aa" * 20, b"bb" * 20, b"cc" * 20, KEY.encode())
    )
    logs = entry_log.EntryLogs(tmp_path, TOOL)
    assert sorted(logs.keys()) == ["aa" * 20, "cc" * 20]
    assert list(logs.read("aa" * 20)) == [b"0123"]
    assert list(logs.read("cc" * 20)) == []  # past the end: nothing to read
    assert not logs.has(KEY)


def test_a_key_named_twice_reads_its_last_entry_first_then_the_earlier(tmp_path: Path) -> None:
    logs = entry_log.EntryLogs(tmp_path, TOOL)
    assert logs.append(KEY, b"old") and logs.append(KEY, b"new")
    logs.close()
    assert list(entry_log.EntryLogs(tmp_path, TOOL).read(KEY)) == [b"new", b"old"]


def test_another_cutlints_logs_are_not_read(tmp_path: Path) -> None:
    """Every key hashes the cutlint that made it (engine/tool.py): another one's entries never
    answer, so its indexes are not read (they would only grow what each run reads)."""
    older = entry_log.EntryLogs(tmp_path, "o" * 32)
    assert older.append(KEY, b"an older cutlint's")
    older.close()
    assert not entry_log.EntryLogs(tmp_path, TOOL).has(KEY)
    assert entry_log.EntryLogs(tmp_path, "o" * 32).has(KEY)
    assert all(p.name.startswith("o" * 32 + "-") for p in tmp_path.iterdir())


def test_a_directory_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    logs = entry_log.EntryLogs(tmp_path / "file" / "v", TOOL)
    assert not logs.append(KEY, b"x")
    assert not logs.append(KEY, b"x")  # not tried again for each entry
    assert not logs.has(KEY)


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    return tmp_path / "cache" / "check" / f"v{cache.SCHEMA}"


def test_a_run_writes_two_files_and_a_run_answered_by_its_entries_none(
    tmp_path: Path, kept: Path
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("a.cu", "b.cu", "c.cu"):
        shutil.copy(HEADLINE, src / name)
    options = api.CheckOptions(jobs=0, cache=True, root=tmp_path)
    first = api.check(src, options)
    written = _logs(kept)
    assert len(written) == 2 and len(entry_log.EntryLogs(kept, cache.tool_key()).keys()) == 3
    shutil.rmtree(kept.parent / f"packs-v{tree_pack.SCHEMA}")
    assert api.check(src, options) == first
    assert _logs(kept) == written


def test_a_corrupt_last_entry_falls_back_to_an_earlier_whole_one(
    tmp_path: Path, kept: Path
) -> None:
    """Where a key's last entry does not decode, an earlier one that does answers (a later
    writer's entry cut short must not cost a sound one)."""
    cu = tmp_path / "a.cu"
    shutil.copy(HEADLINE, cu)
    options = api.CheckOptions(jobs=0, cache=True, root=tmp_path)
    api.check(cu, options)
    results = cache.ResultCache.open()
    (key,) = results.logs.keys()
    sound = results.load(key)
    assert sound is not None
    assert results.logs.append(key, sound[1][: len(sound[1]) // 2])  # cut short, and last
    results.close()
    again = cache.ResultCache.open()
    assert next(again.logs.read(key)) != sound[1]
    assert again.load(key) == sound
