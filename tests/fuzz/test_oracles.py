"""The two oracles of tests/fuzz/oracles.py: a sample of their draws passes, and each finds
what it is for."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracles


def test_a_sample_of_changed_real_sources_passes(tmp_path: Path) -> None:
    failures = [f for i in range(40) if (f := oracles.one(random.Random(i), tmp_path)[1])]
    assert failures == []


@pytest.mark.parametrize("name", sorted(oracles.BAD))
def test_every_bad_change_is_named_on_some_seed(tmp_path: Path, name: str) -> None:
    named = 0
    for seed in oracles.seeds():
        changed = oracles.BAD[name](seed.read_bytes())
        if changed == seed.read_bytes():
            continue
        path = tmp_path / "x.cu"
        path.write_bytes(changed)
        _, inputs = oracles.rows(path)
        assert inputs, f"{name} on {seed}: no input rule"
        named += 1
    assert named


def test_the_unknown_arch_tag_is_named_before_the_arity(tmp_path: Path) -> None:
    # FlashInfer 0.5.2's 14-argument macro in a file of no known release: the arity is a context
    # question (CUT020), the arch tag is not.
    seed = oracles.FIXTURES / "sm100-tma-ws-grouped" / "model-flashinfer-0.5.2.cu"
    path = tmp_path / "x.cu"
    path.write_bytes(seed.read_bytes().replace(b"(Sm100,", b"(Sm999,"))
    _, inputs = oracles.rows(path)
    assert "CUT017" in inputs


@pytest.mark.parametrize("name", ["digraph directives", "digraph brackets"])
def test_the_digraph_spellings_keep_every_seed(tmp_path: Path, name: str) -> None:
    """`%:include`, `%:if`, `%:define`, `%:%:`, `<:` and `:>` are read as `#`, `##`, `[` and `]`
    (issue 25 item 16): on every seed that holds them, the rows are the plain spelling's."""
    changed_seeds = 0
    for seed in oracles.seeds():
        text = seed.read_bytes()
        changed = oracles.EQUIVALENT[name](text)
        if changed == text:
            continue
        path = tmp_path / "x.cu"
        path.write_bytes(text)  # in the same place: what lies beside a file is its context
        expected, _ = oracles.rows(path)
        path.write_bytes(changed)
        got, _ = oracles.rows(path)
        assert [r[1:] for r in got] == [r[1:] for r in expected], f"{name} on {seed}"
        changed_seeds += 1
    assert changed_seeds
