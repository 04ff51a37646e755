"""What a check's start-up keeps between runs: cutlint's own key remembered under its files'
stat (engine/cache.tool_key) and the rules in their compiled form (engine/loader.load_rules).
Both are data, never trusted: a kept file that is corrupt is ignored, and what they answer is
what computing afresh gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cutlint.engine import cache, loader, tool


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    cache.tool_key.cache_clear()
    loader.load_rules.cache_clear()
    yield tmp_path / "cache"
    cache.tool_key.cache_clear()
    loader.load_rules.cache_clear()


def test_the_tool_key_is_remembered_and_equals_the_hashed_one(kept: Path) -> None:
    key = cache.tool_key()
    assert key == tool._tool_key(tool._tool_files())
    (memo,) = (kept / "check" / "tool-keys").iterdir()
    assert memo.read_text() == key
    cache.tool_key.cache_clear()
    memo.write_text("0" * 32)  # what the memo says is what a run uses ...
    assert cache.tool_key() == "0" * 32
    cache.tool_key.cache_clear()
    memo.write_text("not a key")  # ... and a corrupt one is made again
    assert cache.tool_key() == key
    assert memo.read_text() == key


def test_an_edited_source_is_another_stat(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = cache.tool_key()
    files = tool._tool_files()
    monkeypatch.setattr(tool, "_tool_files", lambda: files[1:])  # one file fewer
    cache.tool_key.cache_clear()
    assert cache.tool_key() != before


def test_the_compiled_rules_are_the_rule_files(kept: Path) -> None:
    parsed = loader.load_rules()
    compiled = loader.compiled_rules()
    assert compiled is not None
    assert compiled == parsed
    loader.load_rules.cache_clear()
    assert loader.load_rules() == parsed


def test_corrupt_compiled_rules_are_read_from_the_rule_files(kept: Path) -> None:
    parsed = loader.load_rules()
    (path,) = (kept / "rules").iterdir()
    for damage in (b"", b"[", b'[{"id": "CUT999"}]'):
        path.write_bytes(damage)
        assert loader.compiled_rules() is None
        loader.load_rules.cache_clear()
        assert loader.load_rules() == parsed


def test_no_cache_keeps_no_compiled_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(cache.ENV_OFF, "1")
    loader.load_rules.cache_clear()
    try:
        assert loader.load_rules()
    finally:
        loader.load_rules.cache_clear()
    assert not (tmp_path / "cache" / "rules").exists()
