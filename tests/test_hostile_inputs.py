"""Issue 12, item by item: every hostile input the campaign found, and what cutlint does now.

Each test names the item it holds. The oracle is the same everywhere: an exit code of 0, 1 or 2,
no traceback and no "internal error" (the top-level handler's line), the run finishing well
within its time, and the good file beside the hostile input reported exactly as when it is
checked alone. tests/fuzz/ looks for more of the same at random.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cutlint import api, inputs
from cutlint.cli import main
from cutlint.logs import read_log
from cutlint.parse import Limits, parse_paths, parse_source
from cutlint.parse.walk import expand

FIXTURES = Path(__file__).parent.parent / "fixtures"
REAL = (
    FIXTURES / "parse" / "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu"
).read_bytes()
NAME = "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu"
ONE = b"""namespace tensorrt_llm::kernels::cutlass_kernels_oss
{
#if defined(ENABLE_FP4)
        INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half,
        void, EpilogueOpDefault, FINALIZE,
        128, 256, 128, 1, 1, 1,
        false, false, false, false);
#endif
} // namespace
"""
"""The headline tactic: fails initialize() on sm_120 (CUT101), so a good file's result is
visible in every output."""


def one(old: bytes, new: bytes) -> bytes:
    assert old in ONE
    return ONE.replace(old, new, 1)


class _Timeout(Exception):
    pass


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """No case may hang: each has 60 s (the slowest takes a few on a loaded machine)."""

    def expired(signum: int, frame: FrameType | None) -> None:
        raise _Timeout("the run hung")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cutlint(*args: str | Path) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert not isinstance(result.exception, _Timeout)
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.stderr, result.stderr
    return result


def check(*args: str | Path) -> Result:
    return cutlint("check", "--no-config", *args)


def alone(path: Path) -> list[object]:
    """A good file's result checked alone: what it must be beside any hostile neighbour."""
    [f] = api.check([path]).files
    return [
        (r.instantiation.span.line, r.verdict, [d.rule for d in r.diagnostics])
        for r in f.instantiations
    ]


def good_file(directory: Path) -> Path:
    """The headline file, with the build beside it that says its context (a compile command for
    sm_120a against the newest CUTLASS modeled): its failures are then failures, not guesses."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / NAME
    path.write_bytes(ONE)
    try:
        say_the_build(directory, path)
    except OSError:  # a directory too deep to write more into: the file's context is guessed
        pass
    return path


def say_the_build(directory: Path, path: Path) -> None:
    from cutlint.cutlass.versions import modeled_range

    version = modeled_range()[1]
    inc = directory / "cutlass-headers"
    (inc / "cutlass").mkdir(parents=True, exist_ok=True)
    (inc / "cutlass" / "version.h").write_text(
        "".join(
            f"#define CUTLASS_{k} {v}\n"
            for k, v in zip(("MAJOR", "MINOR", "PATCH"), version, strict=True)
        )
    )
    command = f"nvcc -I{inc} -gencode arch=compute_120a,code=sm_120a -c {path}"
    entry = {"directory": str(directory), "file": str(path), "command": command}
    (directory / "compile_commands.json").write_text(json.dumps([entry]))


# --- the run died with a traceback -----------------------------------------------------------


@pytest.mark.parametrize(
    ("directory", "outcome"),
    [
        # a bare number outside the cache layout names no arch: the GPU is cutlint's default,
        # so the failure is a guess (CUT020); the good file's build says its context
        ("runs/42", "context unknown: fails initialize()"),
        (
            "sm_110a",
            "not for this GPU (CUT021) in ",
        ),
        (
            "sm_87",
            "an Sm120 kernel does not run on sm_87",
        ),
        ("x/sm_42a", "generated for sm_42, an arch cutlint's table does not have"),
    ],
)
def test_arch_directory_cutlint_does_not_know(tmp_path: Path, directory: str, outcome: str) -> None:
    (tmp_path / directory).mkdir(parents=True)
    (tmp_path / directory / "kernel.cu").write_bytes(ONE)
    good = good_file(tmp_path / "good")
    r = check(tmp_path / directory, good)
    assert outcome in r.stdout
    assert NAME in r.stdout and r.exit_code == 1


def test_file_name_not_utf8(tmp_path: Path) -> None:
    d = tmp_path / "d"
    good = good_file(d)
    with open(os.path.join(os.fsencode(d), b"k\xff.cu"), "wb") as f:
        f.write(ONE)
    r = check(d)
    assert "k\\xff.cu" in r.stdout and r.exit_code == 1
    out = json.loads(check(d, "--format", "json").stdout)
    assert [Path(f["path"]).name for f in out["files"]] == [NAME, "k\udcff.cu"]
    sarif = json.loads(check(d, "--format", "sarif").stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert any(u.endswith("k%FF.cu") for u in uris)  # percent-encoded from the bytes on disk
    assert "k\\xff.cu" in check(d, "--format", "github").stdout
    assert alone(good) == alone(good)


@pytest.mark.parametrize("links", [{"loop.cu": "loop.cu"}, {"a.cu": "b.cu", "b.cu": "a.cu"}])
def test_symlink_loop_then_fingerprint(tmp_path: Path, links: dict[str, str]) -> None:
    d = tmp_path / "d"
    good_file(d)
    for name, target in links.items():
        os.symlink(target, d / name)
    r = check(d, "--format", "sarif")
    assert r.exit_code == 2  # the loop is CUT001; the good file's findings are still there
    assert "symlink loop" in r.stdout and "CUT101" in r.stdout


def test_tile_as_a_hex_literal_of_4300_digits(tmp_path: Path) -> None:
    bad = tmp_path / "x.cu"
    bad.write_bytes(one(b"128, 256", b"0x" + b"f" * 3600 + b", 256"))
    good = good_file(tmp_path / "g")
    r = check(bad, good)
    assert (
        "CUT011 integer-out-of-range" in r.stdout
        and "too large for any C++ integer type" in r.stdout
    )
    assert "fails initialize()" in r.stdout


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 64 levels"),
        (
            b'{"version": 1, "fingerprint_version": ' + b"9" * 5000 + b"}",
            "a number of 5,000 digits",
        ),
        (b'{"version": "' + b"x" * 100 + b'"}', "has version 'xxxxxxxx"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_baseline_hostile(tmp_path: Path, content: bytes, why: str) -> None:
    good = good_file(tmp_path)
    (tmp_path / "b.json").write_bytes(content)
    r = check("--baseline", tmp_path / "b.json", good)
    assert r.exit_code == 2 and why in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_baseline_special_file(tmp_path: Path, special: str) -> None:
    good = good_file(tmp_path)
    target = special
    if special == "fifo":
        os.mkfifo(tmp_path / "b.json")
        target = str(tmp_path / "b.json")
    r = check("--baseline", target, good)
    assert r.exit_code == 2 and "not a baseline; not read" in r.stderr


@pytest.mark.parametrize("table", [True, False])
def test_pyproject_with_an_integer_of_5000_digits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: bool
) -> None:
    good = good_file(tmp_path)
    head = b"[tool.cutlint]\nfail-on = 'error'\n" if table else b"[project]\nname = 'x'\n"
    (tmp_path / "pyproject.toml").write_bytes(head + b"x = " + b"9" * 5000 + b"\n")
    monkeypatch.chdir(tmp_path)
    r = cutlint("check", good)
    assert r.exit_code == 2 and "pyproject.toml: cannot read config" in r.stderr


@pytest.mark.parametrize(
    "content",
    [b"[project\n", b"[project]\nname = '\xff'\n", b"a = " + b"[" * 50_000 + b"]" * 50_000 + b"\n"],
    ids=["syntax", "not-utf8", "deep"],
)
def test_broken_pyproject_above_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    sub = tmp_path / "sub"
    good = good_file(sub)
    monkeypatch.chdir(sub)
    r = cutlint("check", good)
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
    assert "--no-config" in r.stderr  # the way out is named
    assert cutlint("check", "--no-config", good).exit_code == 1


def test_pyproject_that_is_a_fifo_or_a_directory_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = good_file(tmp_path / "a")
    os.mkfifo(tmp_path / "a" / "pyproject.toml")
    (tmp_path / "pyproject.toml").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    assert cutlint("check", good).exit_code == 1


def test_write_baseline_where_it_cannot_be_written(tmp_path: Path) -> None:
    good = good_file(tmp_path)
    (tmp_path / "file").write_text("x")
    r = check("--write-baseline", "--baseline", tmp_path / "file" / "b.json", good)
    assert r.exit_code == 2 and "cannot write" in r.stderr
    os.mkfifo(tmp_path / "fifo.json")
    r = check("--write-baseline", "--baseline", tmp_path / "fifo.json", good)
    assert r.exit_code == 2 and "is a FIFO" in r.stderr


@pytest.mark.parametrize("log", ["/dev/zero", "fifo"])
def test_explain_log_special_file(tmp_path: Path, log: str) -> None:
    good_file(tmp_path)
    if log == "fifo":
        os.mkfifo(tmp_path / "log")
        log = str(tmp_path / "log")
    r = cutlint("explain", "--log", log, "--cache", tmp_path)
    assert r.exit_code == 2 and "not a log; not read" in r.stderr


def test_cutlass_version_directory_without_version_h(tmp_path: Path) -> None:
    good = good_file(tmp_path)
    root = tmp_path / "cutlass"
    (root / "include" / "cutlass").mkdir(parents=True)
    (root / "include" / "cutlass" / "version.h").write_text(
        "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 5\n#define CUTLASS_PATCH 0\n"
    )
    r = check("--cutlass-version", root, good)
    assert r.exit_code == 2 and "give the include directory" in r.stderr
    assert check("--cutlass-version", root / "include", good).exit_code == 1
    os.unlink(root / "include" / "cutlass" / "version.h")
    os.mkfifo(root / "include" / "cutlass" / "version.h")
    r = check("--cutlass-version", root / "include", good)
    assert r.exit_code == 2 and "FIFO" in r.stderr


def test_explain_tile_zero() -> None:
    r = cutlint("explain", "--tile", "0x0x0")
    assert r.exit_code == 2 and "not three integers from 1" in r.stderr
    assert cutlint("explain", "--tile", "9" * 5000 + "x1x1").exit_code == 2
    assert cutlint("explain", f"{NAME}:{'9' * 5000}").exit_code == 2


def test_unforeseen_exception_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(api, "results", boom)  # what every check reads its results from
    result = CliRunner().invoke(main, ["check", "--no-config", str(FIXTURES)])
    assert result.exit_code == 2
    assert "internal error" in result.stderr and "please report it" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output


def test_a_bug_on_one_file_costs_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CUT012: a judge that raises on one file; the other file's result is intact."""
    from cutlint.engine import run

    good = good_file(tmp_path / "good")
    bad = tmp_path / "bad" / "kernel.cu"
    bad.parent.mkdir()
    bad.write_bytes(ONE)
    real = run.judge_file

    def judge(parsed, options, memo=None):  # type: ignore[no-untyped-def]
        if parsed.path == str(bad):
            raise KeyError("a bug")
        return real(parsed, options, memo)

    monkeypatch.setattr(run, "judge_file", judge)
    # Files are judged in the parser workers: one started by an earlier test (pool.prestart)
    # was forked before the patch and would judge with the real judge_file.
    from cutlint.parse import pool

    while pool._warm:
        pool._stop(pool._warm.pop()[0], kill=True)
    r = check(bad, good)
    assert r.exit_code == 2 and "CUT012 internal-error" in r.stdout
    assert "fails initialize()" in r.stdout  # the good file


def test_a_worker_result_that_cannot_be_read_back_is_cut012(tmp_path: Path) -> None:
    from cutlint.parse import pool

    parsed = pool._decoded("x.cu", b'{"path": "x.cu", "instantiations": [{"bad": 1}]}')
    assert [p.code for p in parsed.problems] == ["CUT012"]


# --- hangs and slowness -----------------------------------------------------------------------


def test_sources_swapped_for_fifos_cost_nothing(tmp_path: Path) -> None:
    fifos = []
    for i in range(3):
        os.mkfifo(tmp_path / f"f{i}.cu")
        fifos.append(str(tmp_path / f"f{i}.cu"))
    from cutlint.parse import pool, worker

    results = pool.run(fifos, worker.Job({}, ()), 2, Limits(seconds_per_file=30))
    assert [p.problems[0].message for p in results] == [
        "is a FIFO (named pipe), not a source file; not read"
    ] * 3


def test_log_line_of_80000_characters(tmp_path: Path) -> None:
    for line in (
        "runner=" + "a" * 80_000,
        "(" + "a" * 80_000,
        "Failed to initialize cutlass " * 3000,
    ):
        (tmp_path / "log").write_text(line + "\n")
        log = read_log(tmp_path / "log")
        assert log.lines == 1


def test_log_of_a_million_failure_lines(tmp_path: Path) -> None:
    line = f"RuntimeError: Failed to initialize cutlass TMA WS grouped gemm. Error: Error Internal (/x/{NAME}:4)\n"
    (tmp_path / "log").write_text(line * 1_000_000)
    log = read_log(tmp_path / "log")
    assert len(log.events) == 1 and len(log.events[0].line_nos) == 1_000_000


def test_comment_line_of_10_mb_costs_little_memory() -> None:
    from cutlint.parse.lexmask import mask

    text = b"// " + b"x" * 10_000_000 + b"\n" + b'"' + b"y" * 10_000_000 + b'"\n'
    masked = mask(text)  # the backtracking record per repetition cost 1.4 GB before
    assert masked.comment_spans == ((0, 10_000_003),) and len(masked.literal_spans) == 1


def test_large_files_are_refused_deterministically() -> None:
    defines = b"".join(b"#define M%d 1\n" % i for i in range(250_000)) + ONE
    [p] = [parse_source("defs.cu", defines)]
    assert [x.code for x in p.problems] == ["CUT007"] and "250,002 preprocessor" in p.problems[
        0
    ].message
    many = REAL * 5000  # 25,000 instantiations
    [p] = [parse_source("many.cu", many)]
    assert [x.code for x in p.problems] == ["CUT007"] and "at most 20,000" in p.problems[0].message


def test_parse_time_limit_is_cpu_time(tmp_path: Path) -> None:
    from cutlint.parse import pool

    stat = os.open(f"/proc/{os.getpid()}/stat", os.O_RDONLY)
    try:
        assert pool._cpu_seconds(stat) is not None  # /proc is read on this machine
    finally:
        os.close(stat)
    chain = ["#define A0 1"] + [f"#define A{i} A{i - 1}+A{i - 1}" for i in range(1, 60)]
    (tmp_path / "slow.cu").write_text("\n".join(chain) + "\n#if A59\n" + ONE.decode() + "#endif\n")
    [r] = parse_paths([tmp_path / "slow.cu"], jobs=1, limits=Limits(seconds_per_file=1.0))
    assert "more than 1 s of CPU time" in r.problems[0].message


# --- wrong answers with no word said ----------------------------------------------------------


def codes(path: Path) -> list[str]:
    [f] = api.check([path]).files
    return [d.rule for d in f.diagnostics] + [
        d.rule for r in f.instantiations for d in r.diagnostics
    ]


def test_cr_only_line_ends(tmp_path: Path) -> None:
    (tmp_path / "lf.cu").write_bytes(REAL)
    (tmp_path / "cr.cu").write_bytes(REAL.replace(b"\n", b"\r"))
    assert (
        alone(tmp_path / "cr.cu") == alone(tmp_path / "lf.cu")
        and len(alone(tmp_path / "cr.cu")) == 5
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ONE[: ONE.index(b"#endif")], "`#if` without `#endif`"),
        (ONE + b"#endif\n", "`#endif` without `#if`"),
        (ONE.replace(b"#endif\n", b""), "`#if` without `#endif`"),
        (b"#error stop\n" + ONE, "`#error stop` is in compiled code"),
        (ONE.replace(b"} // namespace\n", b""), "the file ends inside the `{`"),
        (
            ONE.replace(b"        INSTANTIATE", b'"       INSTANTIATE'),
            "a string literal is not closed",
        ),
    ],
    ids=[
        "cut-short",
        "endif-without-if",
        "missing-endif",
        "error",
        "namespace-open",
        "stray-quote",
    ],
)
def test_a_file_nvcc_rejects_is_a_diagnostic(tmp_path: Path, text: bytes, expected: str) -> None:
    (tmp_path / "k.cu").write_bytes(text)
    [f] = api.check([tmp_path / "k.cu"]).files
    assert any(d.rule == "CUT009" and expected in d.message for d in f.diagnostics), f.diagnostics


def test_stray_quote_says_which_instantiation_was_not_read(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(ONE.replace(b"        INSTANTIATE", b'"       INSTANTIATE'))
    assert "CUT008" in codes(tmp_path / "k.cu")
    assert check(tmp_path / "k.cu").exit_code == 2  # a shorter report is input not read


@pytest.mark.parametrize(
    ("old", "new", "rule", "text"),
    [
        (b"128, 256", b"2147483648, 256", "CUT011", "does not fit `int`"),
        (b"1, 1, 1,", b"12345678901234567890, 1, 1,", "CUT011", "does not fit `int`"),
        (b"128, 256", b"1" * 5000 + b", 256", "CUT011", "too large for any C++ integer type"),
        (b"void, EpilogueOpDefault", b"v@id, EpilogueOpDefault", "CUT009", "not one identifier"),
        (b"EpilogueOpDefault", b"Epilogue Op", "CUT009", "not one identifier"),
        (b"EpilogueOpDefault", b"$$", "CUT005", "not an epilogue tag"),
        (b"SafeFP4, SafeFP4", b"cutlass::float_e2m1_t, SafeFP4", "CUT009", "pastes it"),
    ],
)
def test_macro_arguments_nvcc_rejects(
    tmp_path: Path, old: bytes, new: bytes, rule: str, text: str
) -> None:
    (tmp_path / "k.cu").write_bytes(one(old, new))
    [f] = api.check([tmp_path / "k.cu"]).files
    [row] = f.instantiations
    assert row.verdict.value == "not modeled"
    assert any(d.rule == rule and text in d.message for d in row.diagnostics), row.diagnostics


def test_explicit_launcher_arguments_nvcc_rejects(tmp_path: Path) -> None:
    sm80 = (
        FIXTURES / "parse" / "cutlass_kernel_file_gemm_grouped_sm80_M128_group0.generated.cu"
    ).read_bytes()
    head = b"cutlass::half_t, cutlass::half_t, 128"
    for new, text in (
        (b"cutlass::half_t, @#$!, 128", "`@` is not part of any C++ token"),
        (b"cutlass::half_t, , 128", "template argument 2 is empty"),
        (b"cutlass::half_t, cutlass::half_t, 08", "`08` is not a valid C++ number"),
        (
            b"cutlass::half_t, cutlass::half_t, 123456789012345678901",
            "too large for any C++ integer",
        ),
    ):
        (tmp_path / "k_sm80.cu").write_bytes(sm80.replace(head, new, 1))
        [f] = api.check([tmp_path / "k_sm80.cu"]).files
        assert any(text in d.message for d in f.diagnostics), (new, f.diagnostics)


# --- a good file's result lost ------------------------------------------------------------------


def _fingerprints(report: dict[str, Any]) -> dict[str, list[str]]:
    """File name -> the fingerprints of its findings (JSON schema 2: instantiations at the top)."""
    out: dict[str, list[str]] = {Path(f["path"]).name: [] for f in report["files"]}
    for i in report["instantiations"]:
        out[Path(i["path"]).name] += [x["fingerprint"] for x in i["findings"]]
    return out


@pytest.mark.parametrize("link", [os.symlink, os.link], ids=["symlink", "hardlink"])
def test_a_link_that_sorts_first(tmp_path: Path, link: Any) -> None:
    d = tmp_path / "d"
    good = good_file(d)
    before = _fingerprints(json.loads(check(d, "--format", "json", "--root", d).stdout))
    link(NAME if link is os.symlink else good, d / "a_link.cu")
    after = _fingerprints(json.loads(check(d, "--format", "json", "--root", d).stdout))
    # The real file keeps its entry and its fingerprints, so a committed baseline still matches;
    # a symlink adds no entry, a hard link (a second name a build compiles) adds its own.
    assert after[NAME] == before[NAME] and before[NAME]
    assert list(after) == ([NAME] if link is os.symlink else ["a_link.cu", NAME])


def test_files_below_a_path_longer_than_path_max(tmp_path: Path) -> None:
    d = tmp_path / "deep"
    d.mkdir()
    fd = os.open(d, os.O_RDONLY)
    try:
        for _ in range(22):  # 22 x 201 bytes: beyond Linux's PATH_MAX of 4096
            os.mkdir("x" * 200, dir_fd=fd)
            nxt = os.open("x" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        f = os.open(NAME, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(f, ONE)
        os.close(f)
    finally:
        os.close(fd)
    [entry] = expand([d])
    assert entry.problem is None and len(os.fsencode(entry.path)) > 4096
    [parsed] = parse_paths([d], jobs=1)
    assert len(parsed.instantiations) == 1 and parsed.problems == ()
    r = check(d)
    assert "fails initialize()" in r.stdout


# --- output a terminal should not get --------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_escape_sequences_are_printed_escaped(tmp_path: Path, fmt: str) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "\x1b]0;pwned\x07\x1b[2Jk.cu").write_bytes(
        one(b"SafeFP4, SafeFP4", b"Safe\x1bFP4, SafeFP4")
    )
    r = check(d, "--format", fmt)
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "\\x1b]0;pwned\\x07\\x1b[2Jk.cu" in r.stdout


def test_escape_sequences_in_explain_log(tmp_path: Path) -> None:
    good_file(tmp_path)
    (tmp_path / "log").write_bytes(
        b"RuntimeError: Failed to initialize cutlass TMA WS grouped gemm. Error: Error Internal"
        b" \x1b[2J\x1b]0;pwned\x07(/x/" + NAME.encode() + b":4)\n"
    )
    r = cutlint("explain", "--log", tmp_path / "log", "--cache", tmp_path)
    assert "\x1b" not in r.stdout and "\\x1b[2J" in r.stdout


# --- configuration that reaches too far --------------------------------------------------------


def test_newline_in_a_define(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = good_file(tmp_path)
    evil = 'X\n#include "/dev/zero"\n#define Y'
    for flag in ("-D", "-U"):
        r = check(flag, evil, good)
        assert r.exit_code == 2 and "is not an identifier" in r.stderr
    assert check("-D", "X=1\n#include", good).exit_code == 2
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cutlint]\ndefines = { "X\\n#include \\"/dev/zero\\"" = "1" }\n'
    )
    monkeypatch.chdir(tmp_path)
    r = cutlint("check", good)
    assert r.exit_code == 2 and "is not an identifier" in r.stderr
    with pytest.raises(ValueError):
        parse_paths([good], defines={evil: "1"})


# --- the reader itself --------------------------------------------------------------------------


def test_reader_refuses_special_files_and_bounds_size(tmp_path: Path) -> None:
    for special, kind in (
        ("/dev/zero", "a device"),
        ("/dev/null", "a device"),
        (str(tmp_path), "a directory"),
    ):
        with pytest.raises(inputs.InputError, match=kind):
            inputs.read_bytes(special, inputs.SOURCE)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 100)
    with pytest.raises(inputs.InputError, match="at most 10 bytes"):
        inputs.read_bytes(big, inputs.Limit("test file", 10))
