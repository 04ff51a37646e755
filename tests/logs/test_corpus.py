"""The corpus of real log lines (tests/logs/data/corpus.toml): every line of every public thread
quoted there is read as the case expects, none that states a failure is dropped, and each
failure gets the class the case names."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from cutlint.explain import explain_log
from cutlint.logs import LogEventKind, parse_log
from cutlint.logs.lines import body, signals_failure

CORPUS = Path(__file__).parent / "data" / "corpus.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CORPUS.read_text())["case"]
QUIET = {"frame", "hint", "context", "prose"}


def test_the_corpus_quotes_at_least_60_lines_each_with_its_thread() -> None:
    assert sum(len(c["lines"]) for c in CASES) >= 60
    for c in CASES:
        assert c["url"].startswith("https://github.com/"), c
        said = {int(x.split()[0]) for x in c["expect"] + c.get("quiet", [])}
        # every line of a case is classified: an event, or quiet with a reason
        assert said == set(range(1, len(c["lines"]) + 1)), c["url"]


@pytest.mark.parametrize("case", CASES, ids=[c["url"].split("github.com/")[1] for c in CASES])
def test_each_line_is_read_as_the_thread_says(case: dict[str, Any]) -> None:
    log = parse_log("\n".join(case["lines"]))
    explained = explain_log(log, None, None)
    got = {f.log_lines[0]: f for f in explained.failures}
    expected = {}
    for x in case["expect"]:
        line, kind, cls = x.split()
        expected[int(line)] = (LogEventKind(kind), None if cls == "-" else cls)
    seen = {n: (f.kind, f.failure_class.value if f.failure_class else None) for n, f in got.items()}
    assert seen == expected, [(f.log_lines, f.kind.value, f.event.text) for f in got.values()]
    for f in got.values():
        assert f.event.text.strip(), "a failure is shown with its text"
    for x in case.get("quiet", []):
        line, why = x.split()
        assert why in QUIET
        text = case["lines"][int(line) - 1]
        if why == "prose":
            # a quiet line that is no frame, hint or context states no failure
            assert not signals_failure(body(text)), text


def test_no_line_of_the_corpus_that_states_a_failure_is_dropped() -> None:
    """Across the corpus: a line with an error word is an event, or it is a frame, a hint or
    context that a grammar names (never silently passed)."""
    for c in CASES:
        log = parse_log("\n".join(c["lines"]))
        lines_with_events = {n for e in log.events for n in (*e.line_nos, *e.joined)}
        quiet = {int(x.split()[0]): x.split()[1] for x in c.get("quiet", [])}
        for n, text in enumerate(c["lines"], start=1):
            if signals_failure(body(text)) and n not in lines_with_events:
                assert quiet.get(n) in ("frame", "hint", "context"), (c["url"], text)
