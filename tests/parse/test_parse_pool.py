"""Worker processes: a crash, a hang or a memory blow-up costs one file (CUT007), never the run,
and every other file's result is exactly what it is when parsed alone."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pytest

from cutlint.parse import Limits, parse_paths, parse_source, pool
from cutlint.parse.defines import DEFAULT_DEFINES, Job
from cutlint.records import ParsedFile

FIXTURES = Path(__file__).parents[2] / "fixtures" / "parse"
GOOD_FILES = sorted(FIXTURES.rglob("*.cu"))
CALL = (
    "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, EpilogueOpDefault,"
    " NONE, 128, 128, 128, 1, 1, 1, false, false, false, false);\n"
)


def crash_file(directory: Path) -> Path:
    """20,000 nested parentheses in an `#if`: libclang's recursive evaluator overflows its stack
    (SIGSEGV, measured with libclang 22)."""
    path = directory / "crash.cu"
    path.write_text("#if " + "(" * 20000 + "1" + ")" * 20000 + "\n" + CALL + "#endif\n")
    return path


def slow_file(directory: Path) -> Path:
    """A macro doubling 60 times: evaluating `#if A59` takes longer than anyone waits."""
    path = directory / "slow.cu"
    chain = ["#define A0 1"] + [f"#define A{i} A{i - 1}+A{i - 1}" for i in range(1, 60)]
    path.write_text("\n".join(chain) + "\n#if A59\n" + CALL + "#endif\n")
    return path


def alone(path: Path) -> object:
    return parse_source(str(path), path.read_bytes())


def test_workers_match_in_process() -> None:
    results = parse_paths(GOOD_FILES, jobs=2)
    assert [r.path for r in results] == [str(p) for p in GOOD_FILES]
    assert results == [alone(p) for p in GOOD_FILES]
    assert parse_paths(GOOD_FILES, jobs=0) == results


def test_a_string_is_one_path_not_its_characters() -> None:
    path = GOOD_FILES[0]
    assert parse_paths(str(path)) == [alone(path)]


def test_libclang_crash_costs_one_file(tmp_path: Path) -> None:
    bad = crash_file(tmp_path)
    inputs = [GOOD_FILES[0], bad, *GOOD_FILES[1:3], bad.with_name("crash2.cu")]
    inputs[-1].write_bytes(bad.read_bytes())
    results = parse_paths(inputs, jobs=2, limits=Limits(batch_size=4))
    crashed = [r for r in results if r.path in (str(inputs[1]), str(inputs[-1]))]
    assert len(crashed) == 2
    for r in crashed:
        assert [p.code for p in r.problems] == ["CUT007"] and "SIGSEGV" in r.problems[0].message
        assert r.instantiations == ()
    good = [r for r in results if r not in crashed]
    assert good == [alone(p) for p in [GOOD_FILES[0], *GOOD_FILES[1:3]]]


def test_timeout_costs_one_file(tmp_path: Path) -> None:
    slow = slow_file(tmp_path)
    results = parse_paths([slow, GOOD_FILES[0]], jobs=1, limits=Limits(seconds_per_file=1.0))
    assert [p.code for p in results[0].problems] == ["CUT007"]
    assert "more than 1 s of CPU time" in results[0].problems[0].message
    assert results[1] == alone(GOOD_FILES[0])


def test_memory_limit_is_a_parser_failure(tmp_path: Path) -> None:
    """400,000 macro definitions need far more than 16 MB to parse: the worker hits its
    address-space limit on that file (CUT007) and the next file is parsed as if alone."""
    greedy = tmp_path / "greedy.cu"
    defines = "".join(f"#define M{i} {i}\n" for i in range(400_000))
    greedy.write_text(defines + "#if 1\n" + CALL + "#endif\n")
    results = parse_paths([greedy, GOOD_FILES[0]], jobs=1, limits=Limits(memory_bytes=16 << 20))
    assert [p.code for p in results[0].problems] == ["CUT007"]
    assert results[1] == alone(GOOD_FILES[0])


@pytest.mark.parametrize("jobs", [1, 2])
def test_many_files_in_batches(tmp_path: Path, jobs: int) -> None:
    paths = []
    for i in range(40):
        p = tmp_path / f"f{i:02d}.cu"
        p.write_text(f"#if defined(ENABLE_FP4)\n{CALL}#endif\n" * (i % 3 + 1))
        paths.append(p)
    results = parse_paths([tmp_path], jobs=jobs, limits=Limits(batch_size=3))
    assert [len(r.instantiations) for r in results] == [i % 3 + 1 for i in range(40)]


def test_no_macro_survives_into_the_next_file(tmp_path: Path) -> None:
    """Files of one directory share a reparsed translation unit in a worker (libclang.py)."""
    first = tmp_path / "a.cu"
    first.write_text("#define LEAK 1\n#if 1\n" + CALL + "#endif\n")
    second = tmp_path / "b.cu"
    second.write_text("#ifdef LEAK\n" + CALL + "#endif\n")
    for jobs in (0, 1):
        results = parse_paths([tmp_path], jobs=jobs)
        assert results == [alone(first), alone(second)]
        guard = results[1].instantiations[0].guard
        assert guard is not None and not guard.active


def test_has_include_looks_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / "sibling.h").write_text("")
    f = tmp_path / "k.cu"
    f.write_text(
        '#if __has_include("sibling.h") && !__has_include("absent.h")\n' + CALL + "#endif\n"
    )
    (result,) = parse_paths([f])
    guard = result.instantiations[0].guard
    assert guard is not None and guard.active


def test_read_errors_are_unreadable_input(tmp_path: Path) -> None:
    from cutlint.parse.worker import Job, parse_file

    parsed = parse_file(str(tmp_path), Job(defines={}, undefines=()))  # a directory: EISDIR
    assert [p.code for p in parsed.problems] == ["CUT001"]
    assert parsed.problems[0].path == str(tmp_path)


def test_importing_the_parser_does_not_load_libclang() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from cutlint.parse import parse_paths; "
        f"parse_paths([{str(GOOD_FILES[0])!r}]); "
        "assert 'clang' not in sys.modules, 'the parent loaded libclang'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_worker_started_in_another_directory_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker `prestart` left behind (a check of this process that stopped at a usage error)
    resolves relative paths where it was forked: the next run, elsewhere, starts its own."""
    from cutlint.parse import pool

    first, second = tmp_path / "a", tmp_path / "b"
    for d, tile in ((first, "128"), (second, "256")):
        d.mkdir()
        (d / "k.cu").write_text(
            "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void, "
            f"EpilogueOpDefault, NONE, {tile}, 128, 128, 1, 1, 1, false, false, false, false)\n"
        )
    monkeypatch.chdir(first)
    pool.prestart()
    monkeypatch.chdir(second)
    (parsed,) = parse_paths(["k.cu"], jobs=1)
    (inst,) = parsed.instantiations
    assert inst.args[7] == "256"


def _judged(parsed: ParsedFile, note: object = None) -> tuple[str, int]:
    """A later stage (`Job.then`, the engine's judge in a check): what a worker sends back instead
    of the ParsedFile for the files of its share."""
    return (parsed.path, len(parsed.instantiations))


def _path(out: object) -> str:
    if isinstance(out, ParsedFile):
        return out.path
    assert isinstance(out, tuple)
    return str(out[0])


@pytest.mark.parametrize("fraction", [0.0, 0.5, 1.0])
def test_the_workers_run_the_later_stage_on_their_share(tmp_path: Path, fraction: float) -> None:
    paths = []
    for i in range(40):
        p = tmp_path / f"f{i:02d}.cu"
        p.write_text(f"#if defined(ENABLE_FP4)\n{CALL}#endif\n" * (i % 3 + 1))
        paths.append(str(p))
    paths.insert(13, str(crash_file(tmp_path)))
    job = Job(defines=dict(DEFAULT_DEFINES), undefines=(), then=_judged)
    share = pool.Share(fraction=fraction, step=0.0)
    out = list(pool.stream(paths, job, 2, Limits(batch_size=4), share))
    assert [_path(o) for o in out] == paths  # input order
    crashed = out[13]  # a crash is never the stage's: the caller decides what becomes of it
    assert isinstance(crashed, ParsedFile) and [p.code for p in crashed.problems] == ["CUT007"]
    judged = [o for o in out if not isinstance(o, ParsedFile)]
    assert len(judged) == {0.0: 0, 0.5: 20, 1.0: 40}[fraction] or (
        fraction == 0.5 and 0 < len(judged) < 40  # a crash puts its batch back, rebatched
    )
    for o in out[:13] + out[14:]:  # the crash file is never parsed here: it would crash pytest
        expected = alone(Path(_path(o)))
        assert isinstance(expected, ParsedFile)
        assert o == (expected if isinstance(o, ParsedFile) else _judged(expected))


class _Marking:
    """A later stage that leaves a file behind where it is unpickled: in a worker sent it."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (_unpickled, (self.marker,))

    def __call__(self, parsed: ParsedFile, note: object = None) -> tuple[str, int]:
        return _judged(parsed)


def _unpickled(marker: str) -> _Marking:
    Path(marker).touch()
    return _Marking(marker)


@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_a_worker_gets_the_later_stage_only_for_its_share(tmp_path: Path, fraction: float) -> None:
    """A worker none of whose files the stage runs on is sent the job without it: unpickling the
    engine's judge imports it there (parse/pool.py `_parse_only`), ahead of the first parse."""
    paths = []
    for i in range(6):
        p = tmp_path / f"f{i}.cu"
        p.write_text(CALL)
        paths.append(str(p))
    marker = tmp_path / "unpickled"
    job = Job(defines=dict(DEFAULT_DEFINES), undefines=(), then=_Marking(str(marker)))
    share = pool.Share(fraction=fraction, step=0.0)
    out = list(pool.stream(paths, job, 1, Limits(batch_size=2), share))
    assert [_path(o) for o in out] == paths
    assert all(isinstance(o, ParsedFile) for o in out) == (fraction == 0.0)
    assert marker.exists() == (fraction == 1.0)


def _calls(tmp_path: Path, n: int) -> list[str]:
    """`n` files of one macro call each."""
    paths = []
    for i in range(n):
        p = tmp_path / f"f{i}.cu"
        p.write_text(CALL)
        paths.append(str(p))
    return paths


def test_the_callers_idle_work_fills_its_waits(tmp_path: Path) -> None:
    """`idle`: the caller's work done a piece at a time where it would wait for a worker (the
    engine keeps its cache entries so); once it says none is left, the caller waits as before,
    and every result still comes, in order."""
    paths = _calls(tmp_path, 6)
    pieces = [3]

    def idle() -> bool:
        if pieces[0] == 0:
            return False
        pieces[0] -= 1
        return True

    job = Job(defines=dict(DEFAULT_DEFINES), undefines=())
    out = list(pool.stream(paths, job, 1, Limits(batch_size=2), idle=idle))
    assert [_path(o) for o in out] == paths
    assert pieces == [0]  # the first result is waited for: the idle work went first


def _noted(parsed: ParsedFile, note: object = None) -> tuple[str, object]:
    return (parsed.path, note)


@pytest.mark.parametrize("jobs", [0, 1])
def test_a_file_is_judged_with_the_note_the_caller_gave_it(tmp_path: Path, jobs: int) -> None:
    """`notes`: what the caller says of a file reaches the later stage with that file, in a
    worker (sent with its batch, not with the job: the engine's keys of the whole run) or,
    where no worker can be started, here."""
    paths = _calls(tmp_path, 7)
    asked: list[str] = []

    def notes(path: str) -> object:
        asked.append(path)
        return ["row", Path(path).name]

    job = Job(defines=dict(DEFAULT_DEFINES), undefines=(), then=_noted)
    share = pool.Share(fraction=1.0, step=0.0)
    if jobs == 0:
        with (
            patch.object(pool, "_start", return_value=None),
            patch.object(pool, "_take_warm", return_value=None),
        ):
            out = list(pool.stream(paths, job, 1, Limits(batch_size=3), share, notes=notes))
    else:
        out = list(pool.stream(paths, job, 1, Limits(batch_size=3), share, notes=notes))
    assert out == [(p, ["row", Path(p).name]) for p in paths]
    assert sorted(asked) == sorted(paths)  # asked once per file


def test_meanwhile_runs_once_before_the_first_result(tmp_path: Path) -> None:
    """`meanwhile` is the caller's own work done while the workers parse the first batch (the
    check imports its judge then): called once, after the batches are sent, before any result."""
    paths = _calls(tmp_path, 5)
    seen: list[str] = []
    job = Job(defines=dict(DEFAULT_DEFINES), undefines=())
    for out in pool.stream(paths, job, 2, Limits(batch_size=2), meanwhile=lambda: seen.append("")):
        seen.append(_path(out))
    assert seen == ["", *paths]


def test_stopped_workers_are_waited_for_by_the_next_pool(tmp_path: Path) -> None:
    """A run does not wait for its idle workers to exit (their report is written meanwhile):
    they are told to stop, and the next pool of the process waits for them."""
    path = tmp_path / "k.cu"
    path.write_text(CALL)
    job = Job(defines=dict(DEFAULT_DEFINES), undefines=())
    assert [_path(o) for o in pool.stream([str(path)], job, 2, Limits())] == [str(path)]
    leaving = list(pool._leaving)
    assert leaving
    assert [_path(o) for o in pool.stream([str(path)], job, 1, Limits())] == [str(path)]
    assert all(w not in pool._leaving and not w.process.is_alive() for w in leaving)
    assert all(w.process.exitcode == 0 for w in leaving)


def test_the_share_follows_who_waits() -> None:
    share = pool.Share(fraction=0.75, step=0.25)
    share.adapt(waited=True, ready=100, wanted=8)  # the caller waited: the workers are behind
    assert share.fraction == 0.25
    share.adapt(waited=False, ready=8, wanted=8)  # answers pile up: the caller is behind
    share.adapt(waited=False, ready=9, wanted=8)
    assert share.fraction == 0.75
    share.adapt(waited=False, ready=3, wanted=8)  # neither waits: as it is
    assert share.fraction == 0.75
    share.adapt(waited=False, ready=9, wanted=8)
    share.adapt(waited=False, ready=9, wanted=8)
    assert share.fraction == 1.0
    assert [share.take() for _ in range(3)] == [True] * 3
    half = pool.Share(fraction=0.5, step=0.0)
    assert [half.take() for _ in range(4)] == [False, True, False, True]
