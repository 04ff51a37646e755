"""What ruff and mypy users type without thinking, and the Python API's manners (issue 13).

Each test holds one thing a new user ran into: a selector that silently turned the check off, an
API that iterated a string's characters, flags that were missing, messages that misled.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from cutlint import __version__, api, cli
from cutlint.cli import main
from cutlint.records import Severity
from cutlint.report.style import Style, wants_color

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.6.3.cu"
KNOWN = ("--arch", "sm_120", "--cutlass-version", "4.2.1")
"""The headline fixture lies outside any build: the context its failures need, said."""
BAD_ARGS = FIXTURES / "input" / "CUT004-CUT005-bad-arguments.cu"


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


def verdicts(*args: str) -> list[str]:
    out = run("check", str(HEADLINE), *KNOWN, "--format", "json", "--no-config", *args)
    return [i["verdict"] for i in json.loads(out.output)["instantiations"]]


# --- rule selection ----------------------------------------------------------------------------


@pytest.mark.parametrize("selector", ["CUT999", "CUT9", "smem-exceeds-optim", "nothing"])
def test_an_unknown_selector_is_a_usage_error_that_lists_the_rules(selector: str) -> None:
    for option in ("--select", "--ignore"):
        out = CliRunner().invoke(
            main, ["check", str(HEADLINE), *KNOWN, option, selector, "--no-config"]
        )
        assert out.exit_code == 2, out.output
        assert "names no rule" in out.output
        assert (
            "CUT101 smem-exceeds-optin" in out.output and "CUT202 tile-not-dispatched" in out.output
        )


def test_a_near_miss_is_named() -> None:
    out = CliRunner().invoke(
        main, ["check", str(HEADLINE), *KNOWN, "--select", "smem-exceeds-optim"]
    )
    assert "did you mean smem-exceeds-optin?" in out.output


def test_an_unknown_selector_in_the_config_is_an_error(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.cutlint]\nselect = ["CUT999"]\n')
    out = CliRunner().invoke(main, ["check", str(HEADLINE), *KNOWN, "--config", str(config)])
    assert out.exit_code == 2
    assert (
        "select: 'CUT999' names no rule" in out.output and "CUT101 smem-exceeds-optin" in out.output
    )


@pytest.mark.parametrize("selector", ["CUT101", "cut101", "smem-exceeds-optin", "CUT1", "cut10"])
def test_names_and_lower_case_ids_select_as_ids_do(selector: str, tmp_path: Path) -> None:
    wanted = (
        {"CUT101"} if selector.lower() in ("cut101", "smem-exceeds-optin") else {"CUT101", "CUT104"}
    )
    out = run(
        "check", str(HEADLINE), *KNOWN, "--select", selector, "--format", "json", "--no-config"
    )
    assert set(json.loads(out.output)["summary"]["findings_by_rule"]) == wanted
    config = tmp_path / "cutlint.toml"
    config.write_text(f'select = ["{selector}"]\nformat = "json"\n')
    out = run("check", str(HEADLINE), *KNOWN, "--config", str(config))
    assert set(json.loads(out.output)["summary"]["findings_by_rule"]) == wanted
    ignored = run(
        "check", str(HEADLINE), *KNOWN, "--ignore", selector, "--format", "json", "--no-config"
    )
    assert not wanted & set(json.loads(ignored.output)["summary"]["findings_by_rule"])


def test_comma_separated_selectors() -> None:
    out = run("check", str(HEADLINE), *KNOWN, "--select", "cut101,CUT104", "--format", "json")
    assert set(json.loads(out.output)["summary"]["findings_by_rule"]) == {"CUT101", "CUT104"}


def test_a_verdict_does_not_depend_on_which_findings_are_shown() -> None:
    everything = verdicts()
    assert everything.count("fails initialize()") == 2
    for args in (["--select", "CUT104"], ["--ignore", "CUT101"], ["--select", "CUT2"]):
        assert verdicts(*args) == everything, args
    text = run("check", str(HEADLINE), *KNOWN, "--select", "CUT104", "--no-config").output
    assert "2 predicted failures" in text


def test_the_api_rejects_an_unknown_selector() -> None:
    with pytest.raises(ValueError, match="names no rule"):
        api.Selection(select=("CUT999",))
    assert api.Selection(select=("smem-exceeds-optin",)).wants("CUT101")
    assert not api.Selection(ignore=("cut1",)).wants("CUT104")


# --- the Python API ------------------------------------------------------------------------------


def test_check_takes_one_path_or_many() -> None:
    one = api.check(str(HEADLINE))
    also = api.check(HEADLINE)
    many = api.check([str(HEADLINE), BAD_ARGS])
    assert [f.path for f in one.files] == [str(HEADLINE)] == [f.path for f in also.files]
    assert len(many.files) == 2


def test_the_readme_python_example_runs() -> None:
    """The README's API example, as written there, runs and gives the verdict it says."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "the README has a Python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_check_tactic_has_the_cli_defaults_and_reads_a_tile_string() -> None:
    defaults = inspect.signature(api.check_tactic).parameters
    assert defaults["act_type"].default.value == cli.DEFAULT_TACTIC["act"]
    assert defaults["weight_type"].default.value == cli.DEFAULT_TACTIC["weight"]
    assert defaults["output_type"].default.value == cli.DEFAULT_TACTIC["out"]
    explain = {p.name: p.default for p in cli.explain.params if isinstance(p, click.Option)}
    assert (explain["act"], explain["weight"], explain["out_type"]) == ("e2m1", "e2m1", "bf16")
    as_text = api.check_tactic(tile="256x128x128", fusion="finalize")
    as_tuple = api.check_tactic(tile=(256, 128, 128), fusion="FINALIZE")
    assert as_text.verdict is as_tuple.verdict
    assert as_text.resources is not None and as_text.resources.layout.size == 102400


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"tile": "256x128"}, "is not MxNxK"),
        ({"tile": (256, 128)}, "has 2 values"),
        ({"tile": "256x128x128", "arch": "sm_99"}, "unknown arch 'sm_99'; known: sm_80"),
        ({"tile": "256x128x128", "act_type": "fp5"}, "unknown element type 'fp5'"),
    ],
)
def test_a_bad_tactic_names_the_reason(kwargs: dict[str, Any], reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        api.check_tactic(**kwargs)


def test_an_unknown_arch_in_check_options_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown arch 'sm_99'; known: .*sm_120"):
        api.CheckOptions(arch="sm_99")


def test_explain_tile_says_why_not_where_pydantic_lives() -> None:
    out = CliRunner().invoke(main, ["explain", "--tile", "256x128"])
    assert out.exit_code == 2
    assert "'256x128' is not MxNxK" in out.output and "pydantic" not in out.output
    out = CliRunner().invoke(main, ["explain", "--tile", "256x128x128", "--out", "f64"])
    assert "--out" in out.output and "unknown element type 'f64'" in out.output


# --- the command line ----------------------------------------------------------------------------


CONCISE = re.compile(
    r"^(?P<path>\S+\.cu):(?P<line>\d+):(?P<col>\d+): (?P<rule>CUT\d{3}) (error|warning|info|note): .+$"
)


def test_concise_is_one_jumpable_line_per_finding() -> None:
    out = run("check", str(HEADLINE), *KNOWN, "--format", "concise", "--no-config")
    assert out.exit_code == 1
    lines = out.output.splitlines()
    findings = [CONCISE.match(x) for x in lines[:-1]]
    assert all(findings), lines
    assert [(m["line"], m["rule"]) for m in findings if m] == [
        ("19", "CUT101"), ("19", "CUT104"), ("41", "CUT101"), ("41", "CUT104"),
    ]  # fmt: skip
    assert lines[-1].startswith("4 instantiations in 1 file")
    quiet = run("check", str(HEADLINE), *KNOWN, "--format", "concise", "-q", "--no-config").output
    assert quiet.splitlines() == lines[:-1]
    also = run("check", str(HEADLINE), *KNOWN, "--output-format", "concise", "--no-config").output
    assert also == out.output


def test_quiet_text_shows_only_what_has_a_finding(tmp_path: Path) -> None:
    fits = tmp_path / "fits.cu"
    fits.write_text(
        "INSTANTIATE_TMA_WARP_SPECIALIZED_MOE_GEMM(Sm120, SafeFP4, SafeFP4, half, void,"
        " EpilogueOpDefault, NONE, 128, 128, 128, 1, 1, 1, false, false, false, false);\n"
    )
    full = run("check", str(HEADLINE), *KNOWN, str(fits), "--no-config").output
    quiet = run("check", str(HEADLINE), *KNOWN, str(fits), "-q", "--no-config").output
    assert "fits.cu" in full and "fits.cu" not in quiet
    # -q: what fails, grouped by rule and family, then one line per failure; no table (issue 25)
    assert "  line  " not in quiet
    failing = re.findall(r"\.cu:(\d+): fails initialize\(\)", quiet)
    assert failing == ["19", "41"]
    assert "5 instantiations in 2 files" in quiet


def test_output_file_statistics_exit_zero(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    out = run("check", str(HEADLINE), *KNOWN, "-o", str(target), "--exit-zero", "--no-config")
    assert out.exit_code == 0 and out.output == ""
    assert "fails initialize()" in target.read_text() and "\x1b[" not in target.read_text()
    stats = run("check", str(HEADLINE), *KNOWN, "--statistics", "--no-config")
    assert stats.exit_code == 1
    assert [x.split() for x in stats.output.splitlines()] == [
        ["2", "CUT101", "error", "smem-exceeds-optin"],
        ["2", "CUT104", "warning", "stage-budget-undercount"],
    ]
    data = json.loads(
        run("check", str(HEADLINE), *KNOWN, "--statistics", "--format", "json").output
    )
    assert {d["rule"]: d["count"] for d in data} == {"CUT101": 2, "CUT104": 2}
    unreadable = run("check", str(tmp_path / "missing.cu"), "--exit-zero", "--no-config")
    assert unreadable.exit_code == 2  # --exit-zero is for findings, not for input never read


def test_exclude_skips_what_a_directory_walk_finds(tmp_path: Path) -> None:
    for name in ("group2", "group10", "skipme"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"k_{name}.cu").write_text(HEADLINE.read_text())
    data = json.loads(
        run("check", str(tmp_path), "--exclude", "skip*", "--format", "json", "--no-config").output
    )
    assert [Path(f["path"]).parent.name for f in data["files"]] == ["group2", "group10"]
    named = run("check", str(tmp_path / "skipme" / "k_skipme.cu"), "--exclude", "skip*")
    assert "k_skipme.cu" in named.output  # a file named on the command line is checked


def test_files_in_natural_order_and_findings_in_line_order(tmp_path: Path) -> None:
    for n in (10, 2, 1):
        (tmp_path / f"kernel_group{n}.cu").write_text(BAD_ARGS.read_text())
    out = run("check", str(tmp_path), "--format", "concise", "--no-config").output
    names = list(dict.fromkeys(re.findall(r"kernel_group\d+", out)))
    assert names == ["kernel_group1", "kernel_group2", "kernel_group10"]
    text = run("check", str(BAD_ARGS), "--no-config").output
    lines = [int(m) for m in re.findall(r"^  line (\d+):", text, re.M)]
    assert lines == sorted(lines) and len(lines) >= 2


def test_colour_on_a_terminal_and_never_with_no_color() -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    tty: Any = Tty()
    assert wants_color(tty, "auto", {})
    assert not wants_color(tty, "auto", {"NO_COLOR": "1"})
    assert not wants_color(tty, "auto", {"TERM": "dumb"})
    pipe: Any = object()  # no isatty: a pipe or a file
    assert wants_color(pipe, "auto", {"FORCE_COLOR": "1"})
    assert not wants_color(pipe, "auto", {})
    assert wants_color(pipe, "always", {"NO_COLOR": "1"})
    assert not wants_color(tty, "never", {"FORCE_COLOR": "1"})
    assert Style(color=False).severity(Severity.ERROR) == "error"
    coloured = run("check", str(HEADLINE), *KNOWN, "--color", "always", "--no-config").output
    plain = run("check", str(HEADLINE), *KNOWN, "--color", "never", "--no-config").output
    assert "\x1b[" in coloured and "\x1b[" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain  # colour never moves a column


def test_version_names_cutlass_libclang_and_python() -> None:
    for flag in ("-V", "--version"):
        out = run(flag).output.splitlines()
        assert out[0] == f"cutlint {__version__}"
        assert re.match(r"models CUTLASS 4\.\d+\.\d+ to 4\.\d+\.\d+ \(compiler-verified: ", out[1])
        assert "libclang" in out[2] and out[3].startswith("Python 3.")


def test_json_and_sarif_carry_the_tool_version() -> None:
    data = json.loads(run("check", str(HEADLINE), *KNOWN, "--format", "json").output)
    assert data["tool_version"] == __version__
    sarif = json.loads(run("check", str(HEADLINE), *KNOWN, "--format", "sarif").output)
    assert sarif["runs"][0]["tool"]["driver"]["version"] == __version__


def test_help_lines_are_not_cut_off() -> None:
    for args in ([], ["generate"], ["pregen"]):
        listing = run(*args, "--help").output
        cut = [x for x in listing.splitlines() if x.endswith("...") and not x.startswith("Usage")]
        assert not cut, listing


# --- messages ------------------------------------------------------------------------------------


def test_explain_says_what_a_target_is_not() -> None:
    whole = CliRunner().invoke(main, ["explain", str(HEADLINE)])
    assert whole.exit_code == 2
    assert "give a line, FILE:LINE" in whole.output and "19, 30, 41, 52" in whole.output
    missing = CliRunner().invoke(main, ["explain", "missing.cu:3"])
    assert missing.exit_code == 2 and "missing.cu: no such file" in missing.output
    assert "no rule" not in whole.output + missing.output
    rule = CliRunner().invoke(main, ["explain", "CUT999"])
    assert rule.exit_code == 2 and "'CUT999' names no rule" in rule.output


def test_a_line_without_an_instantiation_names_the_nearest() -> None:
    out = CliRunner().invoke(main, ["explain", f"{HEADLINE}:28"])
    assert out.exit_code == 2
    assert "no instantiation covers this line; nearest:" in out.output
    assert f"{HEADLINE}:19 (e2m1 x e2m1 -> bf16, FINALIZE, 256x128x128, SwapAB off)" in out.output
    assert f"{HEADLINE}:30 (e2m1 x e2m1 -> bf16, FINALIZE, 256x128x128, SwapAB on)" in out.output


def test_a_rule_page_on_the_terminal_has_no_generated_banner() -> None:
    for target in ("CUT101", "cut101", "smem-exceeds-optin"):
        page = run("explain", target).output
        assert page.startswith("# CUT101 smem-exceeds-optin\n") and "do not edit" not in page


def test_the_derivation_draws_cutlints_arithmetic_apart_from_sources() -> None:
    tree = run("explain", f"{HEADLINE}:19", *KNOWN).output
    sources = re.findall(r"· (.*)", tree)
    assert sources and not [s for s in sources if re.match(r"(api\.|engine/|model/)", s)]
    assert "= the worst outcome its findings imply (cutlint: engine/judge.py)" in tree
    assert "· include/cutlass/gemm/device/gemm_universal_adapter.h" in tree


# --- start-up ------------------------------------------------------------------------------------


def _imported_by(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_version_and_the_command_imports_nothing_heavy() -> None:
    """`cutlint --version` and building the command import neither pydantic nor libclang,
    networkx or tabulate; a check imports pydantic but not networkx, tabulate or the probe."""
    heavy = {"pydantic", "networkx", "tabulate", "clang.cindex", "cutlint.records"}
    loaded = _imported_by(
        "import contextlib, io\nfrom cutlint.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version'])"
    )
    assert not heavy & loaded
    checked = _imported_by(
        "import contextlib, io\nfrom cutlint.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', {str(HEADLINE)!r}, '--no-config'])"
    )
    assert "pydantic" in checked
    assert not {"networkx", "tabulate", "cutlint.verify.nvcc_probe", "cutlint.explain"} & checked


def test_a_check_whose_file_says_its_release_reads_no_toml(
    tmp_path: Path,
) -> None:
    """A file in a producer's package (its version file says the release), checked with the
    data tables' JSON copies kept: tomllib is not imported (8 ms of a one-file check's start-up
    on the 2-core machine). (pydantic's plugin loader imports importlib.metadata, and with it
    importlib.resources, 15-25 ms, for plugins that are all disabled; standing in for its
    private module was measured and left out.) With `--no-cache`, the cache's modules are not
    imported either."""
    package = tmp_path / "flashinfer"
    (package / "gen").mkdir(parents=True)
    (package / "_build_meta.py").write_text('__version__ = "0.6.3"\n')
    source = package / "gen" / HEADLINE.name
    source.write_bytes(HEADLINE.read_bytes())
    env = {k: v for k, v in os.environ.items() if k != "CUTLINT_NO_CACHE"}
    env["CUTLINT_CACHE"] = str(tmp_path / "cache")
    code = (
        "import contextlib, io, sys\nfrom cutlint.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', {str(source)!r}, '--no-config', '--no-cache', '--format', 'json'])\n"
        "print(' '.join(sys.modules))"
    )
    for _ in range(2):  # the first run keeps the tables' JSON copies
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
    loaded = set(done.stdout.split())
    assert "tomllib" not in loaded
    # nor, with the cache off, the cache's own modules (engine/stream.py)
    assert (
        not {"cutlint.engine.cache", "cutlint.engine.tree_pack", "cutlint.engine.tree_manifest"}
        & loaded
    )
