"""The package's TOML tables read through their kept JSON copies (cutlint/tables.py): what a
copy answers is what tomllib reads from the table, a copy that does not decode is made again,
and with the cache off none is read or written."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cutlint import tables
from cutlint.cache_dir import ENV_OFF

PACKAGE = Path(tables.__file__).parent
TABLES = sorted(PACKAGE.rglob("*.toml"))


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(ENV_OFF, raising=False)
    yield tmp_path / "cache" / "tables"


def test_every_table_reads_as_tomllib_reads_it_from_its_copy(kept: Path) -> None:
    assert len(TABLES) > 10
    for path in TABLES:
        parsed = tomllib.loads(path.read_bytes().decode())
        assert tables.load(path) == parsed, path  # parsed, and its copy kept
        assert tables.load(path) == parsed, path  # from the copy
    assert len(list(kept.iterdir())) == len({p.read_bytes() for p in TABLES})


def test_a_copy_that_does_not_decode_is_made_again(kept: Path) -> None:
    text = 'a = 1\nb = ["x", 2.5, -0.0, 1e300]\n[c]\nd = "\\u00e9"\n'
    assert tables.loads(text) == tomllib.loads(text)
    (copy,) = kept.iterdir()
    for damage in (b"", b"[1, 2]", b'{"a": '):
        copy.write_bytes(damage)
        assert tables.loads(text) == tomllib.loads(text)
        assert tables.loads(text) == tomllib.loads(text)  # and the copy is whole again


def test_a_table_json_cannot_hold_is_not_kept(kept: Path) -> None:
    text = "when = 2026-12-04\n"
    assert tables.loads(text) == tomllib.loads(text)
    assert not kept.exists()


def test_with_the_cache_off_no_copy_is_read_or_written(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_OFF, "1")
    assert tables.loads("a = 1\n") == {"a": 1}
    assert not kept.exists()
