"""Issue 25, item by item: the edges the last campaign found, each held by a test that names it.

The oracle is issue 12's: an exit code of 0, 1 or 2 (130 for Ctrl-C), no traceback and no
"internal error", and a good file's result unchanged by what lies beside it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cutlint import api
from cutlint.cli import main
from cutlint.parse import parse_source
from cutlint.parse.walk import expand, natural_key

FIXTURES = Path(__file__).parent.parent / "fixtures"
REAL = FIXTURES / "parse" / "cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group0.generated.cu"
TGV = FIXTURES / "sm100-tgv-gemm" / "fits-flashinfer-0.7.4.cu"
BOM = b"\xef\xbb\xbf"


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert "internal error" not in result.output, result.output
    assert "Traceback" not in result.output, result.output
    return result


def codes(path: Path, *args: str) -> list[str]:
    result = api.check([path], api.CheckOptions(jobs=0, arch=args[0] if args else None))
    return [d.rule for d in result.all_diagnostics()]


# -- 1: names that str.isdigit() accepts and int() refuses --------------------------------------


@pytest.mark.parametrize("name", ["²", "①", "x²y", "६४", "group𝟏𝟐"])
def test_item1_odd_digits_in_a_name_sort_as_text(tmp_path: Path, name: str) -> None:
    assert natural_key(name)  # no ValueError
    (tmp_path / name).mkdir()
    (tmp_path / name / "a.cu").write_bytes(REAL.read_bytes())
    (tmp_path / f"{name}.cu").write_bytes(REAL.read_bytes())
    assert len(expand([tmp_path])) == 2
    result = run("check", str(tmp_path), "--format", "concise")
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize("spelled", ["Sm⁸⁰", "Sm120²"])
def test_item1_odd_digits_in_a_source_are_named(spelled: str) -> None:
    text = REAL.read_bytes().replace(b"Sm120", spelled.encode(), 1)
    parsed = parse_source("x.cu", text)
    assert [p.code for p in parsed.problems] == ["CUT009"]
    assert "U+" in parsed.problems[0].message


# -- 2: cute::Int<0> in an explicit launcher instantiation --------------------------------------


def test_item2_a_zero_extent_costs_one_row_not_the_file(tmp_path: Path) -> None:
    mixed = (
        FIXTURES / "parse" / "cutlass_kernel_file_gemm_grouped_sm90_M128_Mixed_group0.generated.cu"
    )
    alone = api.check([mixed], api.CheckOptions(jobs=0, arch="sm_90"))
    bad = tmp_path / "x.cu"
    bad.write_text(mixed.read_text().replace("cute::Int<128>", "cute::Int<0>", 1))
    result = api.check([bad], api.CheckOptions(jobs=0, arch="sm_90"))
    rows = result.files[0].instantiations
    assert len(rows) == len(alone.files[0].instantiations)
    assert "CUT012" not in [d.rule for d in result.all_diagnostics()]
    assert sum(r.verdict.value == "not modeled" for r in rows) >= 1


# -- 3, 4: option values that overflow ----------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "1e308", "1e12", "nan"])
def test_item3_huge_parse_timeout_is_a_usage_error(value: str) -> None:
    result = run("check", str(REAL), "--parse-timeout", value)
    assert result.exit_code == 2
    assert "--parse-timeout" in result.output


def test_item4_a_path_component_over_255_bytes(tmp_path: Path) -> None:
    long = "/" + "a" * 300
    result = run("check", str(REAL), "--cutlass-version", long)
    assert result.exit_code == 2 and "not a CUTLASS version" in result.output
    config = tmp_path / "c.toml"
    config.write_text(f'[tool.cutlint]\ncutlass-version = "{long}"\n')
    result = run("check", str(REAL), "--config", str(config))
    assert result.exit_code == 2 and "not a CUTLASS version" in result.output


# -- 5: -o targets ------------------------------------------------------------------------------


def test_item5_output_over_a_checked_input_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "a.cu"
    source.write_bytes(REAL.read_bytes())
    for target in (source, tmp_path / "." / "a.cu"):
        result = run("check", str(tmp_path), "-o", str(target))
        assert result.exit_code == 2 and "one of the checked inputs" in result.output
    link = tmp_path / "link.txt"
    link.symlink_to(source)
    assert run("check", str(source), "-o", str(link)).exit_code == 2
    assert source.read_bytes() == REAL.read_bytes()


@pytest.mark.parametrize("target", ["/dev/full", "/proc/self/mem", "/dev/zero"])
def test_item5_devices_and_proc_are_refused(target: str) -> None:
    result = run("check", str(REAL), "-o", target)
    assert result.exit_code == 2 and "cannot write" in result.output


def test_item5_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = run("check", str(REAL), "-o", str(fifo))
    assert result.exit_code == 2 and "FIFO" in result.output
    assert time.monotonic() - started < 30


def test_item5_the_report_replaces_the_file_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    out.write_text("old")
    out.chmod(0o640)
    result = run("check", str(REAL), "-o", str(out), "--format", "json")
    assert result.exit_code in (0, 1)
    assert out.read_text().startswith("{") and (out.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]  # no temporary left
    assert run("check", str(REAL), "-o", os.devnull).exit_code in (0, 1)


# -- 6: closed pipes and Ctrl-C -----------------------------------------------------------------


def _cutlint(*args: str) -> list[str]:
    return [sys.executable, "-m", "cutlint", *args]


def test_item6_a_closed_pipe_exits_quietly() -> None:
    for args in (("rules",), ("check", str(REAL), "--format", "json")):
        proc = subprocess.Popen(_cutlint(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None
        proc.stdout.close()  # the reader went away before the first byte
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert b"internal error" not in err and b"Traceback" not in err


def test_item6_ctrl_c_exits_130(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / f"f{i}.cu").write_bytes(REAL.read_bytes())
    proc = subprocess.Popen(
        _cutlint("check", str(tmp_path), "--jobs", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    # The report (about 340 KB) is more than a pipe holds, and this test reads none of it before
    # the signal: its first byte proves cutlint's command is running (Python's SIGINT handler in
    # place, and cutlint's), and the full pipe holds it there until the signal, however loaded
    # the machine. No sleep to guess.
    readable, _, _ = select.select([proc.stdout], [], [], 600)
    assert readable, "no output in 600 s"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert b"Traceback" not in err and b"interrupted" in err


# -- 5 (rest): no "Exception ignored" after a file's internal error ------------------------------

_FAMILY_BUG = """
import sys
from cutlint.families import registry
def resources(self, recipe, ctx):
    raise RuntimeError("a bug")
for family in registry.families():
    type(family).resources = resources
from cutlint.cli import main
sys.argv = ["cutlint", *sys.argv[1:]]
main()
"""


def test_a_file_internal_error_leaves_stderr_quiet() -> None:
    """A bug while judging a file is its CUT012; the parser pool's stream used to be closed by
    the garbage collector at exit (held in a cycle by the caught exception's traceback), after
    its pipe was gone: "Exception ignored ... pool.py _stop ... Bad file descriptor"."""
    done = subprocess.run(
        [sys.executable, "-c", _FAMILY_BUG, "check", str(TGV), "--arch", "sm_100a", "--no-cache"],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert b"CUT012" in done.stdout
    assert done.returncode == 2
    assert done.stderr == b"", done.stderr.decode(errors="replace")


# -- 7: a generator that exits on import --------------------------------------------------------


def test_item7_a_generator_exit_is_an_input_error(tmp_path: Path) -> None:
    from cutlint.producers.flashinfer.wheel import FlashInferError, load_generator

    package = tmp_path / "flashinfer" / "jit" / "gemm" / "cutlass"
    package.mkdir(parents=True)
    (package / "generate_kernels.py").write_text("import sys\nsys.exit(7)\n")
    with pytest.raises(FlashInferError, match=r"sys.exit\(7\)"):
        load_generator(tmp_path)


# -- 12: digits and spaces that are not ASCII ---------------------------------------------------


@pytest.mark.parametrize("spelled", ["६४", "６４", "𝟔𝟒", "64,\u00a08", "6\u200b4"])
def test_item12_non_ascii_digits_and_spaces_are_named(spelled: str) -> None:
    text = TGV.read_bytes().replace(b"FP16(64, 8", f"FP16({spelled}, 8".encode())
    if b"64,\xc2\xa08" not in text and spelled.startswith("64,"):
        text = TGV.read_bytes().replace(b"FP16(64, 8", b"FP16(64,\xc2\xa08")
    parsed = parse_source("x.cu", text)
    assert "CUT009" in [p.code for p in parsed.problems]


def test_item12_a_unicode_identifier_is_still_cpp() -> None:
    """A letter outside ASCII may be part of an identifier (C++23 XID): no CUT009 for it."""
    text = REAL.read_bytes().replace(b"namespace kernels", "namespace kernéls".encode())
    assert parse_source("x.cu", text).problems == parse_source("x.cu", REAL.read_bytes()).problems


# -- 14: bad template arguments of an explicit launcher instantiation -------------------------

_MIXED_TILE = "cute::Shape<cute::Int<128>, cute::Int<16>, cute::Int<128>>"
_MIXED_SCHEDULE = "cutlass::gemm::KernelTmaWarpSpecializedCooperative,"


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        (_MIXED_TILE, "cute::Shape<cute::Int<<128>, cute::Int<16>, cute::Int<128>>", "CUT013"),
        (_MIXED_TILE, "cute::Shape<cute::Int<128, cute::Int<16>, cute::Int<128>>", "CUT013"),
        (_MIXED_TILE, "cute::Shape<cute::Int<128>>, cute::Int<16>, cute::Int<128>>", "CUT013"),
        (_MIXED_TILE, "cute::Shape<cute::Int<256.0>, cute::Int<16>, cute::Int<128>>", "CUT014"),
        (_MIXED_TILE, "cute::Shape<cute::Int<1e2>, cute::Int<16>, cute::Int<128>>", "CUT014"),
        (_MIXED_TILE, "cute::Shape<cute::Int<-0>, cute::Int<16>, cute::Int<128>>", "CUT015"),
        (_MIXED_TILE, "cute::Shape<cute::Int<0x80000000>, cute::Int<16>, cute::Int<128>>", "CUT011"),
        (_MIXED_TILE, "cute::Shape<cute::Int<sizeof(int)>, cute::Int<16>, cute::Int<128>>", "CUT015"),
        (_MIXED_SCHEDULE, "vo id,", "CUT016"),
        (_MIXED_SCHEDULE, "cutlass::gemm::KernelTma WarpSpecializedCooperative,", "CUT016"),
        (_MIXED_SCHEDULE, "cutlass::gemm::KernelTmaWarpSpecializedCooperative<cutlass::arch::Sm999>,",
         "CUT017"),
    ],
)  # fmt: skip
def test_item14_bad_template_arguments_are_named(
    tmp_path: Path, old: str, new: str, code: str
) -> None:
    text = MIXED.read_text()
    assert text.count(old) >= 2  # the grouped and the plain launcher
    bad = tmp_path / "x.cu"
    bad.write_text(text.replace(old, new))
    result = api.check([bad], api.CheckOptions(jobs=0, arch="sm_90"))
    found = [d for d in result.all_diagnostics() if d.rule == code]
    assert len(found) == 2, [(d.rule, d.message) for d in result.all_diagnostics()]
    # Never judged on a guess: no row of the changed launchers gets a verdict.
    assert all(r.verdict.value == "not modeled" for r in result.files[0].instantiations)
    assert "CUT012" not in [d.rule for d in result.all_diagnostics()]


def test_item14_an_unknown_arch_tag_in_the_moe_macro(tmp_path: Path) -> None:
    text = (FIXTURES / "input" / "CUT011-integer-out-of-range.cu").read_bytes()
    calls = text.count(b"(Sm120,")
    bad = tmp_path / "x.cu"
    bad.write_bytes(text.replace(b"(Sm120,", b"(Sm999,"))
    assert codes(bad).count("CUT017") == calls


def test_item14_valid_spellings_are_not_named() -> None:
    from cutlint.parse import template_args

    for arg in (
        "const half",
        "unsigned int",
        "cute::Shape<cute::_128, cute::Int<64>>",
        "cutlass::arch::Sm90",
        "typename Config::ElementA",
        "cute::Int<2147483647>",
        "cute::Int<1'28>",
    ):
        assert template_args.argument_problems((arg,)) == [], arg


# -- 15: a byte order mark ----------------------------------------------------------------------


def test_item15_a_bom_changes_nothing() -> None:
    plain = parse_source("x.cu", REAL.read_bytes())
    marked = parse_source("x.cu", BOM + REAL.read_bytes())
    assert marked.problems == plain.problems
    assert [(i.span.line, i.args) for i in marked.instantiations] == [
        (i.span.line, i.args) for i in plain.instantiations
    ]


# -- 8, 10: directory links and deep trees ------------------------------------------------------


def test_item8_a_directory_link_out_of_the_tree_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_bytes(REAL.read_bytes())
    (tmp_path / "root").symlink_to("/")
    (tmp_path / "proc").symlink_to("/proc")
    started = time.monotonic()
    assert [e.path for e in expand([tmp_path])] == [str(tmp_path / "a.cu")]
    assert time.monotonic() - started < 5


def test_item8_links_between_directories_do_not_multiply_paths(tmp_path: Path) -> None:
    import random

    pick = random.Random(1)
    for i in range(30):
        (tmp_path / f"d{i}").mkdir()
    for i in range(30):
        for j in range(5):
            (tmp_path / f"d{i}" / f"l{j}").symlink_to(tmp_path / f"d{pick.randrange(30)}")
    (tmp_path / "d3" / "a.cu").write_bytes(REAL.read_bytes())
    started = time.monotonic()
    entries = expand([tmp_path])
    assert time.monotonic() - started < 10
    assert [e.path for e in entries if e.problem is None] == [str(tmp_path / "d3" / "a.cu")]
    # a link back to a directory above it is still said out loud (CUT001), once per link
    assert all(e.problem.code == "CUT001" for e in entries if e.problem is not None)


LEVEL = "ddddd"


def test_item10_a_deep_tree_costs_the_same_per_level(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(1500):  # far past PATH_MAX: 9,000 bytes of "ddddd/"
        os.mkdir(LEVEL, dir_fd=fd)
        deeper = os.open(LEVEL, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    with open(os.open("a.cu", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as out:
        out.write(REAL.read_bytes())
    os.close(fd)
    started = time.monotonic()
    try:
        [entry] = expand([tmp_path])
        assert entry.problem is None and entry.path.endswith(f"/{LEVEL}/a.cu")
        assert time.monotonic() - started < 30  # minutes before: each level reopened the path
    finally:
        _remove_chain(tmp_path)


def _remove_chain(root: Path) -> None:
    """rm -r of a `ddddd/ddddd/...` chain, one level at a time: shutil.rmtree (and so pytest's clean-up
    of old temporary directories) recurses once per level and stops at the recursion limit."""
    top, spare = root / LEVEL, root / "spare"
    while top.exists():
        if (top / LEVEL).exists():
            os.rename(top / LEVEL, spare)
        for f in top.iterdir():
            f.unlink()
        top.rmdir()
        if spare.exists():
            os.rename(spare, top)


# -- 17: terminal escapes from a macro argument -------------------------------------------------


def test_item17_concise_escapes_what_the_input_holds(tmp_path: Path) -> None:
    bad = tmp_path / "x.cu"
    bad.write_bytes(REAL.read_bytes().replace(b"FINALIZE", b"FIN\x1b]0;pwn\x07\x1b[2JALIZE", 1))
    result = run("check", str(bad), "--format", "concise", "--color", "never")
    assert result.output and "\x1b" not in result.output and "\x07" not in result.output


# -- 20: baselines from elsewhere, empty directories, `cutlint rules` ---------------------------


def test_item20_a_baseline_that_matches_nothing_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "x.cu").write_bytes(
        REAL.read_bytes().replace(b"FINALIZE", b"FIN\x1bALIZE", 1)  # an input finding
    )
    monkeypatch.chdir(tmp_path / "gen")
    written = run("check", ".", "--baseline", "../b.json", "--write-baseline", "--no-config")
    assert written.exit_code == 0
    monkeypatch.chdir(tmp_path)
    result = run("check", "gen", "--baseline", "b.json", "--no-config")
    assert "matched 0 of its" in result.output
    monkeypatch.chdir(tmp_path / "gen")
    assert "matched 0" not in run("check", ".", "--baseline", "../b.json", "--no-config").output


def test_item20_an_empty_directory_summary_agrees_with_its_exit_code(tmp_path: Path) -> None:
    result = run("check", str(tmp_path), "--no-config")
    assert result.exit_code == 0
    assert "input problem" not in result.output and "1 input note" in result.output


@pytest.mark.parametrize("columns", ["80", "100", "200"])
def test_item20_rules_fit_the_terminal(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    from cutlint.engine.loader import checked_rules
    from cutlint.rule_list import first_sentence

    monkeypatch.setenv("COLUMNS", columns)
    out = run("rules").output
    assert max(len(line) for line in out.splitlines()) <= int(columns)
    letters = "".join(out.split())  # a word longer than the column is split, never dropped
    for rule in checked_rules():  # each first sentence whole, never cut
        assert "".join(first_sentence(rule.doc.what).split()) in letters


# -- 9, 11: long alias chains, huge numbers -----------------------------------------------------


@pytest.mark.parametrize(
    "line", ["using A{i} = A{j};", "struct S{i} : public S{j} {{ }};"], ids=["using", "struct"]
)
def test_item9_alias_chains_cost_linear_time(line: str) -> None:
    def source(n: int) -> bytes:
        head = "using A0 = int;\nstruct S0 {};\n"
        return (head + "\n".join(line.format(i=i, j=i - 1) for i in range(1, n))).encode()

    started = time.monotonic()
    parse_source("x.cu", source(6000))
    assert time.monotonic() - started < 10  # 5,000 lines took 14 s, 10,000 ran out of time


def test_item11_a_huge_number_is_quoted_short_and_read_in_bounded_memory(tmp_path: Path) -> None:
    import tracemalloc

    from cutlint.parse.literals import integer

    digits = "1" + "7" * 1_000_000
    tracemalloc.start()
    try:
        assert integer(digits) is not None and integer(digits).value is None  # type: ignore[union-attr]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # 1 MB of digits took ~250 MB in the regex's backtracking marks
    text = REAL.read_bytes().replace(
        b"128, 128, 128, 1, 1, 1", f"{digits}, 128, 128, 1, 1, 1".encode(), 1
    )
    (tmp_path / "x.cu").write_bytes(text)
    result = api.check([tmp_path / "x.cu"], api.CheckOptions(jobs=0))
    [message] = [d.message for d in result.all_diagnostics() if d.rule == "CUT011"]
    assert len(message) < 300 and "1,000,001 characters" in message


# -- 13: a stray character in an active #if condition ------------------------------------------


@pytest.mark.parametrize("stray", ['"', "'", "}", ")", "@"])
def test_item13_a_stray_character_in_an_if_condition_is_named(stray: str) -> None:
    text = REAL.read_bytes().replace(
        b"#if defined(ENABLE_FP4)", f"#if defined(ENABLE_FP4) {stray}".encode(), 1
    )
    problems = parse_source("x.cu", text).problems
    assert [p.code for p in problems] == ["CUT009"] and f"`{stray}`" in problems[0].message


def test_item13_a_digit_separator_in_a_condition_is_fine() -> None:
    text = REAL.read_bytes().replace(
        b"#if defined(ENABLE_FP4)", b"#if defined(ENABLE_FP4) && 1'000", 1
    )
    assert parse_source("x.cu", text).problems == parse_source("x.cu", REAL.read_bytes()).problems


# -- 16: C++'s own equivalent spellings ---------------------------------------------------------

MIXED = FIXTURES / "parse" / "cutlass_kernel_file_gemm_grouped_sm90_M128_Mixed_group0.generated.cu"


def _judged(tmp_path: Path, text: str) -> list[tuple[int, str, int | None]]:
    (tmp_path / "x.cu").write_text(text)
    result = api.check([tmp_path / "x.cu"], api.CheckOptions(jobs=0, arch="sm_90"))
    return [
        (
            r.instantiation.span.line,
            r.verdict.value,
            r.resources.layout.size if r.resources else None,
        )
        for r in result.files[0].instantiations
    ]


@pytest.mark.parametrize(
    "spelled", ["1'28", "0x80", "0X80", "0200", "128u", "128ULL", "0b10000000"]
)
def test_item16_an_equivalent_number_is_the_same_tile(tmp_path: Path, spelled: str) -> None:
    text = MIXED.read_text()
    expected = _judged(tmp_path, text)
    assert any(size for _, _, size in expected)
    assert _judged(tmp_path, text.replace("cute::Int<128>", f"cute::Int<{spelled}>")) == expected


# -- tables on request: --tables / --no-tables --------------------------------------------------


def test_no_tables_leaves_out_the_per_file_tables_only() -> None:
    path = str(FIXTURES / "sm120-blockscaled-grouped")
    full = run("check", path, "--no-config")
    bare = run("check", path, "--no-config", "--no-tables")
    assert full.exit_code == bare.exit_code
    assert "verdict" in full.output and "verdict" not in bare.output  # the tables' header
    assert len(bare.output.splitlines()) < len(full.output.splitlines())
    # What to act on leads, and the summary closes, unchanged.
    assert bare.output.startswith("findings by rule and family")
    head = bare.output.split("\n\n")[0]
    assert full.output.startswith(head)
    assert full.output.splitlines()[-3:] == bare.output.splitlines()[-3:]
    assert run("check", path, "--no-config", "--tables").output == full.output


# -- every writer through the safe output path --------------------------------------------------


def test_write_baseline_refuses_a_checked_input_a_fifo_and_a_device(tmp_path: Path) -> None:
    source = tmp_path / "a.cu"
    source.write_bytes(REAL.read_bytes())
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for target in (str(source), str(fifo), "/dev/full", "/proc/self/mem"):
        started = time.monotonic()
        result = run("check", str(source), "--baseline", target, "--write-baseline", "--no-config")
        assert result.exit_code == 2, (target, result.output)
        assert ("baseline" in result.output and "cannot write" in result.output) or (
            "refusing to write the baseline" in result.output
        )
        assert time.monotonic() - started < 30
    assert source.read_bytes() == REAL.read_bytes()
    good = tmp_path / "sub" / "b.json"
    assert run("check", str(source), "--baseline", str(good), "--write-baseline").exit_code == 0
    assert good.read_text().startswith("{") and not list(good.parent.glob(".*"))


def test_write_ignore_goes_through_the_safe_output_path(tmp_path: Path) -> None:
    from cutlint import output_target
    from cutlint.pregen.cutlass_library import write_ignore
    from cutlint.pregen.records import CutlassLibraryPregenResult

    result = CutlassLibraryPregenResult(
        cutlass_library_version="4.2.1", arch="sm_120", architectures="120a", cutlass="4.2.1",
        exclusion=("k1", "k2"),
    )  # fmt: skip
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in (fifo, Path("/dev/full"), Path("/proc/self/mem"), tmp_path):
        with pytest.raises(output_target.OutputError):
            write_ignore(result, bad)
    good = tmp_path / "ignore.txt"
    write_ignore(result, good)
    assert good.read_text() == "k1,k2\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo",
        "ignore.txt",
    ]


def test_no_writer_bypasses_the_safe_output_path() -> None:
    package = Path(__file__).parent.parent / "analyzer" / "cutlint"
    for module in ("baseline.py", "pregen/run.py", "pregen/cutlass_library.py"):
        text = (package / module).read_text()
        assert "output_target.write_text(" in text, module
        assert "mkstemp" not in text and '.tmp")' not in text, module


# -- 16 (rest): a line splice inside a macro name, digraphs -------------------------------------

_HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"


def _rows(tmp_path: Path, text: str) -> list[tuple[str, str, list[str]]]:
    path = tmp_path / "x.cu"
    path.write_text(text)
    result = api.check([path], api.CheckOptions(jobs=0, arch="sm_120"))
    return [
        (r.instantiation.name, r.verdict.value, sorted(d.rule for d in r.diagnostics))
        for r in result.files[0].instantiations
    ]


@pytest.mark.parametrize("cut", [5, 12, 27, 40])
def test_item16_a_line_splice_inside_the_macro_name_is_the_same_call(
    tmp_path: Path, cut: int
) -> None:
    text = _HEADLINE.read_text()
    name = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"
    assert name in text
    expected = _rows(tmp_path, text)
    assert expected
    spliced = text.replace(name, f"{name[:cut]}\\\n{name[cut:]}")
    assert _rows(tmp_path, spliced) == expected


def test_item16_digraph_braces_are_the_same_file(tmp_path: Path) -> None:
    text = _HEADLINE.read_text()
    expected = _rows(tmp_path, text)
    digraphs = text.replace("{\n", "<%\n").replace("\n}", "\n%>")
    assert digraphs != text
    assert _rows(tmp_path, digraphs) == expected


# -- found by the long fuzz run: a file name that is not UTF-8, with the result cache on ---------


def test_a_file_name_that_is_not_utf8_is_checked_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cutlint.engine import cache

    monkeypatch.setenv("CUTLINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)  # the suite turns it off: tests/conftest.py
    tree = tmp_path / "gen"
    tree.mkdir()
    with open(os.path.join(os.fsencode(tree), b"k\xff.cu"), "wb") as f:
        f.write(REAL.read_bytes())
    for _ in range(2):  # the second run would read what the first cached
        result = run("check", str(tree), "--format", "json", "--no-config")
        assert result.exit_code in (0, 1), result.output
        assert '"files"' in result.output


def test_a_huge_stage_count_is_answered_at_once(tmp_path: Path) -> None:
    """Found by the long fuzz run (seed 26, input 414): a SparseGemm whose stage count is
    2,147,483,795 listed its fewer-stage variants one layout at a time, two billion of them.
    The first variant that fits is bisected; a few stage counts above it are listed."""
    real = (FIXTURES / "cutlass2-sparse-gemm" / "CUT101-cutlass-library-sm120.cu").read_text()
    assert "    6,\n" in real
    src = tmp_path / "huge.cu"
    src.write_text(real.replace("    6,\n", "    2147483795,\n", 1))
    start = time.monotonic()
    result = api.check([src], api.CheckOptions(arch="sm_120", cutlass_version="4.2.0"))
    assert time.monotonic() - start < 60
    first = result.files[0].instantiations[0]
    assert first.resources is not None and first.resources.stage_count.stages == 2147483795
    variants = first.resources.variants
    assert 0 < len(variants) <= 9 and variants[-1].fits


@pytest.mark.parametrize("name", ["Opération_sparse", "Éop_sparse", "Operation_sparse"])
def test_item16_a_unicode_alias_name_is_the_same_kernel(tmp_path: Path, name: str) -> None:
    """C++ (and nvcc) take Unicode identifiers: a kernel alias named `Opération_...` is the same
    kernel, with the same numbers, as its ASCII spelling, never a dropped one."""
    real = (FIXTURES / "cutlass2-sparse-gemm" / "CUT101-cutlass-library-sm120.cu").read_text()
    old = "Operation_cutlass_tensorop_h16832spgemm_64x128_64x6_tn_align8"
    assert old in real
    options = api.CheckOptions(arch="sm_120", cutlass_version="4.2.0")

    def numbers(text: str) -> list[tuple[str, int | None]]:
        src = tmp_path / f"{len(list(tmp_path.iterdir()))}.cu"
        src.write_text(text, encoding="utf-8")
        result = api.check([src], options)
        return [
            (r.verdict.value, r.resources.layout.size if r.resources else None)
            for f in result.files
            for r in f.instantiations
        ]

    assert numbers(real.replace(old, name)) == numbers(real)


@pytest.mark.parametrize(
    ("name", "near"),
    [
        ("INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMN", "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"),
        ("INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEM", "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"),
        ("INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHERR", "INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER"),
        ("INSTANCF_FP8_GEMM_TEMPLATE_SM100", "INSTANCE_FP8_GEMM_TEMPLATE_SM100"),
        ("IN STANTIATE_TGV_GEMM_HOST_BF16_BF16", "INSTANTIATE_TGV_GEMM_HOST_BF16_BF16"),
        ("INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM", None),
        ("INSTANTIATE_MY_OWN_KERNEL", None),
    ],
)
def test_item14_a_flipped_byte_in_a_macro_name_is_named(name: str, near: str | None) -> None:
    """A call one character away from a producer's macro, with no `#define` in sight, is CUT018
    (did you mean); a producer's own name and a user's macro are not."""
    from cutlint.producers.forms import misspelled

    assert misspelled(name) == near


# -- 16 (rest): the other digraphs, `<:` `:>` `%:` `%:%:` --------------------------------------

_GUARDS = FIXTURES / "parse" / "guards.cu"
_MORE = """
#define CAT(a, b) a ## b
#include "not_beside_it.h"
static int table[2] = {1, 2};
using Kept = Outer<::cute::Int<1>>;
INSTANTIATE_MY_OWN_KERNEL(table[0], {1, 2}, Outer<::cute::Int<1>>)
"""


def _digraphs(plain: str) -> str:
    """The same file in C++'s alternative tokens: `%:` for a directive's `#`, `%:%:` for `##`,
    `<:` `:>` for brackets, `<%` `%>` for braces (none of these files has them in a comment or
    a string; `<::` is left alone, as the lexer leaves it)."""
    lines = []
    for line in plain.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            line = line[: len(line) - len(stripped)] + "%:" + stripped[1:]
        if not stripped.startswith("//"):
            line = line.replace("##", "%:%:").replace("[", "<:").replace("]", ":>")
            line = line.replace("{", "<%").replace("}", "%>")
        lines.append(line)
    return "\n".join(lines)


def _parsed(text: str) -> tuple[object, ...]:
    parsed = parse_source("x.cu", text.encode())
    return (
        [(i.name, i.args, i.guard, i.span.line, i.defined_at) for i in parsed.instantiations],
        [(p.code, p.line, p.message) for p in parsed.problems],
        parsed.defines,
    )


def test_item16_other_digraphs_are_the_same_file(tmp_path: Path) -> None:
    plain = _GUARDS.read_text() + _MORE
    spelled = _digraphs(plain)
    assert "%:if" in spelled and "%:define" in spelled and "%:include" in spelled
    assert "<:" in spelled and "%:%:" in spelled and "<::cute" in spelled
    got, expected = _parsed(spelled), _parsed(plain)
    assert got == expected
    # The preprocessor splits on commas outside parentheses only: `{1, 2}` is two arguments.
    own = ("INSTANTIATE_MY_OWN_KERNEL", ("table[0]", "{1", "2}", "Outer<::cute::Int<1>>"))
    assert own in [row[:2] for row in expected[0]]  # type: ignore[index]
    assert sum(g is not None and not g.active for _, _, g, _, _ in expected[0]) >= 5  # type: ignore[misc]
    assert _rows(tmp_path, spelled) == _rows(tmp_path, plain)


def test_item16_digraph_directives_in_a_real_file(tmp_path: Path) -> None:
    """The SM103 JIT file's own `#define`s select its header's code path: spelled `%:define`,
    they still do (and `%:include` still finds the header's macros)."""
    real = FIXTURES / "sm100-jit-gemm" / "sm103-store256-flashinfer-0.7.4.cu"
    plain = real.read_text()
    assert _parsed(_digraphs(plain)) == _parsed(plain)


# -- 14 (rest): a flipped byte in the `INSTANTIATE_` prefix itself ------------------------------

_MOE = "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM"


@pytest.mark.parametrize(
    "spelled",
    [
        "INSTANTIATF_TMA_WARP_SPECIALIZED_MOE_GEMM",  # a byte changed
        "INSTANTIAT_TMA_WARP_SPECIALIZED_MOE_GEMM",  # dropped
        "IN STANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",  # a space added
        "NSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",  # the first byte dropped
        "XINSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM",  # one added before it
        "INSTANTIATE_TMA-WARP_SPECIALIZED_MOE_GEMM",  # no identifier's byte after the prefix
    ],
)
def test_item14_a_flipped_byte_in_the_prefix_is_named(tmp_path: Path, spelled: str) -> None:
    text = REAL.read_text()
    bad = tmp_path / "x.cu"
    bad.write_text(text.replace(_MOE, spelled, 1))
    result = api.check([bad], api.CheckOptions(jobs=0, arch="sm_120"))
    rows = result.files[0].instantiations
    assert len(rows) == len(api.check([REAL], api.CheckOptions(jobs=0)).files[0].instantiations)
    named = [d for r in rows for d in r.diagnostics if d.rule == "CUT018"]
    assert rows[0].instantiation.name == spelled
    assert len(named) == 1 and f"one character away is `{_MOE}`" in named[0].message, named


def test_item14_a_prefix_misspelling_elsewhere_than_a_statement_is_not_a_call(
    tmp_path: Path,
) -> None:
    """A name one edit from a producer macro that is declared, called inside a function, passed
    as an argument, or defined by the user (`#define`) is not named."""
    text = (
        "#define INSTANTIATF_TGV_GEMM_HOST_BF16_BF16(M, N, K) /* the user's own */\n"
        "INSTANTIATF_TGV_GEMM_HOST_BF16_BF16(64, 8, 12);\n"
        "void INSTANTIAT_TMA_WARP_SPECIALIZED_MOE_GEMM(int);\n"
        "void f() { INSTANTIAT_TMA_WARP_SPECIALIZED_MOE_GEMM(1); }\n"
        "int x = g(INSTANTIAT_TMA_WARP_SPECIALIZED_MOE_GEMM(1));\n"
        "struct S { S() : INSTANTIAT_TMA_WARP_SPECIALIZED_MOE_GEMM(1) {} };\n"
    )
    parsed = parse_source("x.cu", text.encode())
    assert [(i.name, i.span.line) for i in parsed.instantiations] == [
        ("INSTANTIATF_TGV_GEMM_HOST_BF16_BF16", 2)
    ]
    assert parsed.instantiations[0].defined_at is not None
    path = tmp_path / "x.cu"
    path.write_text(text)
    assert "CUT018" not in codes(path)


# -- 18 (rest): pregen says a runner's note once -------------------------------------------------


def test_pregen_notes_a_missing_runner_once() -> None:
    """The three SVDQuant runner variants share a label: a release without them was noted three
    times, word for word (found by running docs/pregen.md's command for its snapshot)."""
    from cutlint.model.arch import arch_for
    from cutlint.pregen.gemm_runners import gemm_runner_tactics

    _, notes, _ = gemm_runner_tactics("0.7.2.post1", arch_for("sm_120"))
    assert notes and len(notes) == len(set(notes)), notes
