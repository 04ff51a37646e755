"""The fuzz suite (issue 12): hostile inputs for `check`, `explain --log`, baselines and
configuration, property-based (hypothesis draws the choices of tests/fuzz/hostile.py's
generators and shrinks a failure) and corpus-based (every hostile piece of tests/fuzz/corpus/ in
a real generated file, every hostile log line in a real log).

The default run is a sample that takes well under a minute, in-process. The long run is
`python -m pytest tests/fuzz -m slow` (the same properties, many more examples, each run as a
whole process), or `python tests/fuzz/run.py --minutes 20` for counts (docs/fuzzing.md).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile

SECONDS = 60.0
"""A run longer than this is a hang (the slowest hostile input takes a few seconds)."""
# No shrinking: a failure's command line and workspace are in its message, and shrinking whole
# cutlint runs takes longer than reading them.
SAMPLE = settings(
    max_examples=5,
    deadline=None,
    derandomize=True,  # the default run is the same every time; the long run explores
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
LONG = settings(
    max_examples=300,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _subprocess(argv: list[str], cwd: Path, seconds: float) -> hostile.Outcome:
    return hostile.run_subprocess(argv, cwd, seconds)


def fuzz(rng: random.Random, tmp: Path, kind: str, runner: hostile.Runner) -> None:
    ws, _, failures = hostile.one_input(rng, tmp, runner, SECONDS, kind)
    assert not failures, (ws.args, failures)


@pytest.mark.parametrize("kind", ["check", "config", "log"])
@SAMPLE
@given(rng=st.randoms(use_true_random=False))
def test_fuzz_sample(tmp_path: Path, kind: str, rng: random.Random) -> None:
    fuzz(rng, tmp_path, kind, hostile.run_in_process)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["check", "config", "log"])
@LONG
@given(rng=st.randoms(use_true_random=False))
def test_fuzz_long(tmp_path: Path, kind: str, rng: random.Random) -> None:
    fuzz(rng, tmp_path, kind, _subprocess)


# --- corpus-based: each hostile piece once, in a real generated file ------------------------


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_corpus_pieces_beside_the_good_files(tmp_path: Path, fmt: str) -> None:
    """Every hostile piece of the corpus in a real generated file (before its first
    instantiation), all of them in one workspace with the good files: one run, judged by the
    oracles (no traceback, no hang, the good files as when checked alone, output well-formed)."""
    from cutlint.parse import parse_source

    root = tmp_path / "ws"
    root.mkdir()
    good = hostile._good_only(root)
    seed = hostile.SEEDS[0]
    at = seed.find(hostile.MACRO)
    for i, piece in enumerate(hostile.PIECES):
        text = seed[:at] + piece + seed[at:]
        parse_source(f"piece_{i:02d}.cu", text)  # must not raise
        (root / f"piece_{i:02d}.cu").write_bytes(text)
    options = ["--no-config", "--format", fmt]
    ws = hostile.Workspace(root, ["check", *options, "--root", ".", "."], good, options=options)
    out = hostile.run_in_process(ws.args, ws.root, SECONDS)
    assert not hostile.judge(ws, out, hostile.alone_run(ws, hostile.run_in_process, SECONDS))
    for i in range(len(hostile.PIECES)):
        assert f"piece_{i:02d}.cu" in out.stdout  # every file has its entry


@pytest.mark.parametrize("index", range(len(hostile.LOG_PIECES)))
def test_corpus_log_line(tmp_path: Path, index: int) -> None:
    """Each hostile log line, once as it is and once 20,000 times over on one line."""
    from cutlint.logs import parse_log

    line = hostile.LOG_PIECES[index].decode("utf-8", "replace")
    for text in (line, line * 20_000):
        parse_log(text + "\n")  # must not raise, and linear: the test's own time bounds it
