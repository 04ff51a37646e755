"""The recipe memo and the shared contexts (engine/judge.py Memo, engine/run.py context_for):
kernels that differ only in their names are modeled once, each keeps its own name, recipe and
place, and every output format is byte for byte what a run without them writes."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cutlint import api
from cutlint.cli.commands.check import exit_code_of
from cutlint.engine import cache, judge, run
from cutlint.engine.options import CheckOptions
from cutlint.engine.run import judge_files
from cutlint.parse.extract import parse_source
from cutlint.records import CheckResult, FileResult, NotModeled, Verdict
from cutlint.report import write

# One kernel as cutlass_library writes it (gemm_operation.py: one kernel per file, every alias
# named after the kernel), with the tile's N, the A layout and the carveout as knobs (a carveout
# of 0 leaves the TMA epilogue no room: the kernel does not compile, CUT106).
KERNEL = """
using %(k)s_epilogue =
  typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp,
    cute::Shape<cute::_128, cute::_%(n)d, cute::_64>,
    cute::Shape<int, int, cute::_1>,
    cutlass::epilogue::collective::EpilogueTileAuto,
    float, float,
    cutlass::half_t, cutlass::layout::RowMajor, 8,
    cutlass::half_t, cutlass::layout::RowMajor, 8,
    cutlass::epilogue::TmaWarpSpecialized1Sm,
    cutlass::epilogue::fusion::LinearCombination<cutlass::half_t, float, cutlass::half_t, float>
  >::CollectiveOp;
%(gap)s
using %(k)s_mainloop =
  typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp,
    cutlass::half_t, cutlass::layout::%(a)s, 8,
    cutlass::half_t, cutlass::layout::RowMajor, 8,
    float,
    cute::Shape<cute::_128, cute::_%(n)d, cute::_64>,
    cute::Shape<int, int, cute::_1>,
    cutlass::gemm::collective::StageCountAutoCarveout<%(carveout)s>,
    cutlass::gemm::KernelTmaWarpSpecialized1SmSm100
  >::CollectiveOp;

using %(k)s_base = cutlass::gemm::kernel::GemmUniversal<
    cute::Shape<int,int,int,int>,
    %(k)s_mainloop,
    %(k)s_epilogue,
    cutlass::gemm::StreamKScheduler>;

struct %(k)s :
  public %(k)s_base { };
"""

NAMES = ("cutlass3x_sm100_tensorop_gemm_f16_f16_f32_f16_f16_128x%dx64_0x0x1_0_%s_align8_1sm",)


def _kernel(n: int, a: str, gap: int = 0, carveout: str = "") -> bytes:
    layout = "nt" if a == "ColumnMajor" else "tt"
    k = NAMES[0] % (n, layout + ("_copy" if gap else ""))
    sizeof = f"static_cast<int>(sizeof(typename {k}_epilogue::SharedStorage))"
    values = {"k": k, "n": n, "a": a, "gap": "\n" * gap, "carveout": carveout or sizeof}
    return (KERNEL % values).encode()


@pytest.fixture
def without_memo() -> Iterator[Callable[[bool], None]]:
    def switch(on: bool) -> None:
        judge.RECIPE_MEMO = on
        run.CONTEXT_MEMO = on

    yield switch
    switch(True)


def _formats(result: CheckResult) -> dict[str, str]:
    out = {}
    for fmt in ("text", "json", "sarif", "concise"):
        buf = io.StringIO()
        write(fmt, result, buf)
        out[fmt] = buf.getvalue()
    return out


def test_kernels_that_differ_only_in_name_are_modeled_once_and_keep_their_own(
    without_memo: Callable[[bool], None],
) -> None:
    sources = {
        "a.cu": _kernel(256, "ColumnMajor", carveout="0"),
        # the same tactic, named and placed anew
        "b.cu": _kernel(256, "ColumnMajor", gap=7, carveout="0"),
        "c.cu": _kernel(128, "ColumnMajor"),  # another tile
    }
    parsed = [parse_source(p, s) for p, s in sources.items()]
    options = CheckOptions(arch="sm_100", cutlass_version="4.2.0")
    result = judge_files(parsed, options)
    a, b, c = (f.instantiations[0] for f in result.files)
    assert a.resources is not None and b.resources is not None and c.resources is not None
    assert a.resources is b.resources  # modeled once, one record
    assert c.resources.layout.size != a.resources.layout.size
    assert a.recipe is not None and b.recipe is not None
    assert "_copy_" in getattr(b.recipe, "kernel")  # noqa: B009
    assert b.instantiation.span.line == a.instantiation.span.line + 7
    assert [d.rule for d in b.diagnostics] == [d.rule for d in a.diagnostics] != []
    assert {(d.path, d.line) for d in b.diagnostics} == {("b.cu", b.instantiation.span.line)}
    without_memo(False)
    assert _formats(judge_files(parsed, options)) == _formats(result)


def test_a_judgement_that_quotes_the_kernel_name_is_not_shared() -> None:
    k = "kernel_name_quoted_in_a_message"
    j = judge.Judgement(None, None, None, Verdict.FITS, ())
    assert judge._shared(j, k + "_base", {}) is j
    quoting = judge.Judgement(
        None, None, NotModeled(reason=f"{k}: unreadable"), Verdict.NOT_MODELED, ()
    )
    assert judge._shared(quoting, k + "_base", {}) is None
    assert judge._shared(quoting, None, {}) is quoting  # no kernel name: nothing to quote


@pytest.mark.slow
def test_a_real_build_reads_the_same_in_every_format_with_and_without_the_memo(
    cutlass_library_build: Callable[..., Path], without_memo: Callable[[bool], None]
) -> None:
    """A real cutlass_library 100a build (CUTLASS's generator at test time), 3.x SM100 kernels
    and 2.x ones: every format byte for byte the same with the memos and without."""
    generated = cutlass_library_build(
        "100a",
        "cutlass3x_sm100_tensorop_gemm_f16_f16_f32_f16_f16_128x*,cutlass_tensorop_s16816gemm_f16_128x*",
    )
    options = api.CheckOptions(arch="sm_100", cutlass_version="4.2.0", jobs=0, cache=False)
    with_memo = _formats(api.check(generated, options))
    without_memo(False)
    assert _formats(api.check(generated, options)) == with_memo
    assert with_memo["json"].count('"verdict"') > 400


def test_the_streamed_json_report_is_the_whole_results_report(tmp_path: Path) -> None:
    """report/json.py Stream (what `cutlint check --format json` writes as the results come) is
    byte for byte `chunks` of the whole result: files with and without instantiations, file
    findings, shared contexts, skipped files."""
    sources = {
        "a.cu": _kernel(256, "ColumnMajor", carveout="0"),
        "b.cu": _kernel(256, "ColumnMajor", gap=7, carveout="0"),
        "c.cu": _kernel(128, "RowMajor"),
        "d.cu": b"#include <nothing>\nint main() { return 0; }\n",
        "e.cu": b"using X = cutlass::gemm::kernel::GemmUniversal<oops;\n",
    }
    parsed = [parse_source(p, s) for p, s in sources.items()]
    result = judge_files(parsed, CheckOptions(arch="sm_100", cutlass_version="4.2.0"))
    result = result.model_copy(update={"skipped": ("jit_a.cu", "jit_b.cu")})
    from cutlint.report import Ending
    from cutlint.report.json import Stream, render

    with (tmp_path / "rows").open("w+", encoding="utf-8") as rows:
        stream = Stream(rows)
        for f in result.files:
            stream.add(f)
        out = io.StringIO()
        stream.finish(out, Ending(result.skipped))
    assert out.getvalue() == render(result)
    assert '"CUT106": 2' in out.getvalue()  # the two kernels that leave no room


def _held(src: Path, fmt: str, quiet: bool = False, **shown: bool) -> str:
    """The report of `src` as a whole result renders it (report.write): what the streamed
    check must write, byte for byte (checked as the tests' command lines ask, fingerprints
    relative to the working directory, as the command's are)."""
    from cutlint.report.style import Style

    options = CheckOptions(
        arch="sm_100", cutlass_version="4.2.0", jobs=1, parse_timeout=1, root=Path.cwd()
    )
    out = io.StringIO()
    style = Style(color=shown.pop("color", False))
    write(fmt, api.check(src, options), out, quiet=quiet, style=style, **shown)
    return out.getvalue()


def test_check_writes_the_same_json_streamed_as_held(tmp_path: Path) -> None:
    """`cutlint check --format json` streams its report, on stdout and into `--output-file`:
    both are the bytes the whole result renders to."""
    from click.testing import CliRunner

    from cutlint.cli import main

    src = tmp_path / "src"
    src.mkdir()
    for name, n, carveout in (("a.cu", 256, "0"), ("b.cu", 128, ""), ("c.cu", 256, "0")):
        (src / name).write_bytes(_kernel(n, "ColumnMajor", carveout=carveout))
    args = [str(src), "--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config"]
    args += ["--no-cache", "--jobs", "0", "--format", "json"]
    streamed = CliRunner().invoke(main, ["check", *args])
    written = CliRunner().invoke(main, ["check", *args, "--output-file", str(tmp_path / "o.json")])
    assert streamed.exit_code == written.exit_code == 1, streamed.output
    assert streamed.stdout == (tmp_path / "o.json").read_text() == _held(src, "json")


def _workers_judge_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's share fixed at every batch to the workers (it adapts from none at first, so a
    run of a few files is judged by the parent)."""
    from cutlint.engine import stream
    from cutlint.parse.pool import Share

    monkeypatch.setattr(stream, "share", lambda: Share(fraction=1.0, step=0.0))


@pytest.mark.parametrize(
    ("shown", "held"),
    [
        (["--format", "json"], {"fmt": "json"}),
        (["--format", "text"], {"fmt": "text"}),
        (
            ["--format", "text", "--show-unjudged", "--color", "always"],
            {"fmt": "text", "show_unjudged": True, "color": True},
        ),
        (["--format", "text", "-q"], {"fmt": "text", "quiet": True}),
        (["--format", "concise"], {"fmt": "concise"}),
        (["--format", "github"], {"fmt": "github"}),
        (["--format", "sarif"], {"fmt": "sarif"}),
    ],
)
def test_parts_made_in_the_workers_are_the_held_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shown: list[str], held: dict[str, Any]
) -> None:
    """Without a cache, the streamed report's part of a file a parser worker judged is made
    there (cli `ToReport`, engine `Finish`): the parent adds it on. The report, on stdout and
    into `--output-file`, is still the whole result's, in every streamed format, and so is the
    exit code; a file whose parser was stopped is judged by the parent, among the workers'
    parts."""
    from click.testing import CliRunner

    from cutlint.cli import main
    from cutlint.cli.commands.check import exit_code_of

    _workers_judge_all(monkeypatch)

    src = tmp_path / "src"
    src.mkdir()
    for name, n, carveout in (("a.cu", 256, "0"), ("b.cu", 128, ""), ("c.cu", 256, "0")):
        (src / name).write_bytes(_kernel(n, "ColumnMajor", carveout=carveout))
    (src / "d.cu").write_bytes(b"#include <nothing>\nint main() { return 0; }\n")
    (src / "e.cu").write_bytes(b"using X = cutlass::gemm::kernel::GemmUniversal<oops;\n")
    (src / "f.cu").write_bytes(b"\xff\xfe not text \x00")
    # a parser stopped on its time limit (CUT007): judged by the parent
    chain = ["#define A0 1"] + [f"#define A{i} A{i - 1}+A{i - 1}" for i in range(1, 60)]
    kernel = _kernel(128, "RowMajor").decode()
    (src / "g.cu").write_text("\n".join(chain) + f"\n#if A59\n{kernel}#endif\n")
    args = [str(src), "--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config"]
    args += ["--no-cache", *shown, "--parse-timeout", "1", "--jobs", "2"]
    streamed = CliRunner().invoke(main, ["check", *args])
    out = tmp_path / "o.txt"
    written = CliRunner().invoke(main, ["check", *args, "--output-file", str(out)])
    whole = _held(src, **held)
    assert streamed.stdout == out.read_text() == whole
    options = CheckOptions(arch="sm_100", cutlass_version="4.2.0", jobs=1, parse_timeout=1)
    code = exit_code_of(api.check(src, options).all_diagnostics(), "error")
    assert streamed.exit_code == written.exit_code == code, streamed.output
    assert "CUT106" in streamed.stdout and "CUT007" in streamed.stdout


def _sources(src: Path) -> None:
    src.mkdir()
    for name, n, carveout in (("a.cu", 256, "0"), ("b.cu", 128, ""), ("c.cu", 256, "0")):
        (src / name).write_bytes(_kernel(n, "ColumnMajor", carveout=carveout))
    (src / "d.cu").write_bytes(b"#include <nothing>\nint main() { return 0; }\n")
    (src / "f.cu").write_bytes(b"\xff\xfe not text \x00")


@pytest.mark.parametrize("fmt", ["json", "text", "concise", "github", "sarif"])
def test_a_check_with_a_baseline_streams_the_held_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """`--baseline` no longer holds the result: the worker that judged a file leaves out what
    the baseline accepts (`ToReport`, `baseline.apply_file`) and counts it; the report and the
    exit code are those of `baseline.apply` on the whole result, on stdout and through `-o`."""
    from click.testing import CliRunner

    from cutlint import baseline
    from cutlint.cli import main

    _workers_judge_all(monkeypatch)
    src = tmp_path / "src"
    _sources(src)
    common = ["--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config", "--no-cache"]
    accepted = tmp_path / "baseline.json"  # accepts a.cu's findings, not c.cu's
    wrote = CliRunner().invoke(
        main,
        ["check", str(src / "a.cu"), *common, "--baseline", str(accepted), "--write-baseline"],
    )
    assert wrote.exit_code == 0, wrote.output
    args = [str(src), *common, "--format", fmt, "--jobs", "2", "--baseline", str(accepted)]
    streamed = CliRunner().invoke(main, ["check", *args])
    out = tmp_path / "o.txt"
    written = CliRunner().invoke(main, ["check", *args, "--output-file", str(out)])
    options = CheckOptions(
        arch="sm_100", cutlass_version="4.2.0", jobs=1, parse_timeout=1, root=Path.cwd()
    )
    whole = baseline.apply(api.check(src, options), baseline.load(accepted))
    assert whole.baselined and whole.all_diagnostics()  # some left out, some not
    held = io.StringIO()
    write(fmt, whole, held)
    assert streamed.stdout == out.read_text() == held.getvalue()
    assert streamed.exit_code == written.exit_code == exit_code_of(whole.all_diagnostics(), "error")
    assert "matched 0" not in streamed.stderr


def test_write_baseline_gathers_the_entries_file_by_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--write-baseline` holds no result either: each file's entries are made where it is
    judged (`baseline.entries`) and the file is `from_result` of the whole result's, byte for
    byte."""
    from click.testing import CliRunner

    from cutlint import baseline
    from cutlint.cli import main

    _workers_judge_all(monkeypatch)
    src = tmp_path / "src"
    _sources(src)
    written = tmp_path / "baseline.json"
    common = ["--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config", "--no-cache"]
    args = ["check", str(src), *common, "--jobs", "2", "--baseline", str(written)]
    wrote = CliRunner().invoke(main, [*args, "--write-baseline"])
    assert wrote.exit_code == 0 and wrote.stdout == "", wrote.output
    options = CheckOptions(arch="sm_100", cutlass_version="4.2.0", jobs=1, root=Path.cwd())
    whole = baseline.from_result(api.check(src, options))
    assert len(whole.findings) > 1
    assert f"wrote {len(whole.findings)} finding(s)" in wrote.stderr
    assert written.read_text() == baseline.dumps(whole)


def test_a_baseline_that_matches_nothing_is_still_warned_of(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cutlint.cli import main

    src = tmp_path / "src"
    _sources(src)
    common = ["--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config", "--no-cache"]
    accepted = tmp_path / "baseline.json"
    args = ["check", str(src), *common, "--baseline", str(accepted)]
    assert CliRunner().invoke(main, [*args, "--write-baseline"]).exit_code == 0
    elsewhere = CliRunner().invoke(main, [*args, "--root", str(src)])
    assert "matched 0 of its" in elsewhere.stderr
    assert CliRunner().invoke(main, args).stderr == ""


@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
def test_statistics_stream_and_count_what_the_whole_result_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """`--statistics` is summed file by file from counts made where each file is judged; it is
    `statistics.render` of the whole result (JSON with `--format json`, else text)."""
    from click.testing import CliRunner

    from cutlint.cli import main
    from cutlint.report import statistics

    _workers_judge_all(monkeypatch)
    src = tmp_path / "src"
    _sources(src)
    args = [str(src), "--arch", "sm_100", "--cutlass-version", "4.2.0", "--no-config"]
    args += ["--no-cache", "--format", fmt, "--statistics", "--jobs", "2"]
    streamed = CliRunner().invoke(main, ["check", *args])
    out = tmp_path / "o.txt"
    written = CliRunner().invoke(main, ["check", *args, "--output-file", str(out)])
    options = CheckOptions(arch="sm_100", cutlass_version="4.2.0", jobs=1, root=Path.cwd())
    whole = api.check(src, options)
    held = statistics.render(whole, "json" if fmt == "json" else "text")
    assert streamed.stdout == out.read_text() == held
    assert "CUT106" in held and "CUT002" in held
    assert streamed.exit_code == written.exit_code == exit_code_of(whole.all_diagnostics(), "error")


def _rows(result: FileResult) -> int:
    """A `Finish` for the test below: module-level, so that it pickles by reference."""
    return len(result.instantiations)


def test_a_finish_runs_in_the_worker_that_judged_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """engine/stream.py: with a `finish`, each file a worker judged (an unreadable one too: its
    result says why) comes as `Finished`, what the finish made of it there, with the cache on as
    off (the parent keeps the entry the worker sent, and writes the tree pack from its bytes); a
    file the cache answers comes as its result."""
    from cutlint.engine.stream import Finished

    _workers_judge_all(monkeypatch)
    for name in ("a.cu", "b.cu"):
        (tmp_path / "src" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_bytes(_kernel(256, "ColumnMajor"))
    (tmp_path / "src" / "c.cu").write_bytes(b"\xff\xfe not text \x00")
    options = CheckOptions(arch="sm_100", cutlass_version="4.2.0", jobs=2, cache=False)
    got = list(api.results(tmp_path / "src", options, None, _rows))
    assert all(isinstance(g, Finished) for g in got)
    assert [g.value for g in got if isinstance(g, Finished)] == [1, 1, 0]
    assert [g.kernels for g in got if isinstance(g, Finished)] == [1, 1, 0]
    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    cached = replace(options, cache=True)
    decoded: list[bytes] = []
    real_decode = cache.decode

    def decode(raw: bytes, key: str) -> object:
        decoded.append(raw)
        return real_decode(raw, key)

    monkeypatch.setattr(cache, "decode", decode)
    got = list(api.results(tmp_path / "src", cached, None, _rows))
    assert [g.value for g in got if isinstance(g, Finished)] == [1, 1, 0]
    assert decoded == []  # this process decoded none: the tree pack came from the entries' bytes
    again = list(api.results(tmp_path / "src", cached, None, _rows))
    assert [type(g).__name__ for g in again] == ["FileResult"] * 3
    assert [len(g.instantiations) for g in again if isinstance(g, FileResult)] == [1, 1, 0]
