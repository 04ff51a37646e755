"""`[tool.cutlint]` in pyproject.toml: discovery, strict keys, CLI precedence; and the pre-commit
hook definition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import config
from cutlint.cli import main

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
HEADLINE = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.6.3.cu"
"""2 CUT101 errors and 2 CUT104 warnings with CUTLASS 4.2.1."""
ZERO_SLACK = FIXTURES / "sm120-blockscaled-grouped" / "CUT101-headline-flashinfer-0.7.2.cu"


def write_pyproject(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[tool.cutlint]\n{body}\n')
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def rules_in(output: str) -> set[str]:
    data = json.loads(output)
    return {d["rule"] for i in data["instantiations"] for d in i["findings"]}


def test_discovered_from_the_current_directory_upward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_pyproject(
        tmp_path,
        'select = ["CUT104"]\nformat = "json"\ncutlass-version = "4.2.1"\narch = "sm_120"',
    )
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text(
        '[project]\nname = "inner"\n'
    )  # no table: passed over
    monkeypatch.chdir(sub)
    assert config.discover(Path.cwd()) == project.resolve()
    out = invoke("check", str(HEADLINE))
    assert out.exit_code == 0  # only warnings selected; fail-on error
    assert rules_in(out.output) == {"CUT104"}


def test_cli_flags_override_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_pyproject(
        tmp_path,
        'select = ["CUT104"]\nformat = "json"\nfail-on = "warning"\ncutlass-version = "4.2.1"\n'
        'arch = "sm_120"',
    )
    monkeypatch.chdir(tmp_path)
    assert invoke("check", str(HEADLINE)).exit_code == 1  # fail-on = warning from the file
    out = invoke("check", str(HEADLINE), "--select", "CUT101", "--fail-on", "never")
    assert out.exit_code == 0 and rules_in(out.output) == {"CUT101"}
    assert "instantiations in 1 file" in invoke("check", str(HEADLINE), "--format", "text").output


def test_no_config_and_explicit_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A fixture lies outside any build: every run names the GPU and CUTLASS it is built for, or a
    # predicted failure would rest on a guess (context unknown, CUT020).
    given = ("--arch", "sm_120", "--cutlass-version", "4.2.1")
    write_pyproject(tmp_path, 'ignore = ["CUT1"]\narch = "sm_120"\ncutlass-version = "4.2.1"')
    monkeypatch.chdir(tmp_path)
    assert invoke("check", str(HEADLINE)).exit_code == 0
    assert invoke("check", str(HEADLINE), "--no-config", *given).exit_code == 1
    other = tmp_path / "ci" / "cutlint.toml"
    other.parent.mkdir()
    other.write_text(
        'format = "json"\nselect = ["CUT101"]\narch = "sm_120"\ncutlass-version = "4.2.1"\n'
    )
    out = invoke("check", str(HEADLINE), "--config", str(other))
    assert out.exit_code == 1 and rules_in(out.output) == {"CUT101"}
    assert (
        CliRunner()
        .invoke(main, ["check", str(HEADLINE), "--config", str(other), "--no-config"])
        .exit_code
        == 2
    )


def test_unknown_key_is_a_usage_error_naming_key_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_pyproject(tmp_path, 'arch = "sm_120"\nfail_on = "warning"')
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["check", str(HEADLINE)])
    assert out.exit_code == 2
    assert "'fail_on'" in out.output and str(project.resolve()) in out.output
    assert "unknown key" in out.output and "fail-on" in out.output  # the known keys are listed


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('arch = "sm_99"', ["arch", "unknown arch 'sm_99'"]),
        ('fail-on = "fatal"', ["fail-on"]),
        ('format = "xml"', ["format"]),
        ('select = "CUT1"', ["select"]),
        ('cutlass-version = "four"', ["cutlass-version"]),
        ("defines = { ENABLE_FP4 = false }", ["undefines"]),
        ("[tool.cutlint.nested]\nx = 1", ["nested"]),
    ],
)
def test_bad_values_are_usage_errors(tmp_path: Path, body: str, words: list[str]) -> None:
    path = write_pyproject(tmp_path, body)
    with pytest.raises(config.ConfigError) as err:
        config.load(path)
    for word in words:
        assert word in str(err.value)
    assert str(path) in str(err.value)
    out = CliRunner().invoke(main, ["check", str(HEADLINE), "--config", str(path)])
    assert out.exit_code == 2 and str(path) in out.output


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.cutlint\n")
    with pytest.raises(config.ConfigError, match="not valid TOML"):
        config.discover(tmp_path)
    assert CliRunner().invoke(main, ["check", str(HEADLINE), "--config", str(path)]).exit_code == 2


def test_pyproject_without_the_table_is_an_error_only_when_named(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n')
    assert config.discover(tmp_path) is None
    with pytest.raises(config.ConfigError, match=r"no \[tool.cutlint\] table"):
        config.load(path)


def test_defines_as_table_or_list(tmp_path: Path) -> None:
    table = config.load(
        write_pyproject(
            tmp_path / "t", 'defines = { ENABLE_X = 1, ENABLE_Y = "2", ENABLE_Z = true }'
        )
    )
    assert table.config.defines == {"ENABLE_X": "1", "ENABLE_Y": "2", "ENABLE_Z": "1"}
    listed = config.load(
        write_pyproject(
            tmp_path / "l", 'defines = ["ENABLE_X", "ENABLE_Y=2"]\nundefines = ["ENABLE_FP4"]'
        )
    )
    assert listed.config.defines == {"ENABLE_X": "1", "ENABLE_Y": "2"}
    assert listed.config.undefines == ("ENABLE_FP4",)


def test_config_defines_reach_the_parser_and_cli_flags_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture's last instantiation sits under `#if defined(ENABLE_NOT_A_FLAG)`."""
    not_modeled = FIXTURES / "model" / "CUT010-not-modeled.cu"

    def verdicts(*extra: str) -> list[str]:
        out = invoke("check", str(not_modeled), "--format", "json", *extra)
        return [i["verdict"] for i in json.loads(out.output)["instantiations"]]

    monkeypatch.chdir(tmp_path)
    assert verdicts()[-1] == "inactive (#if)"
    write_pyproject(tmp_path, 'defines = ["ENABLE_NOT_A_FLAG"]')
    assert verdicts()[-1] != "inactive (#if)"
    assert verdicts("-U", "ENABLE_NOT_A_FLAG")[-1] == "inactive (#if)"

    def headline(*extra: str) -> set[str]:
        out = invoke("check", str(HEADLINE), "--format", "json", *extra)
        return {i["verdict"] for i in json.loads(out.output)["instantiations"]}

    write_pyproject(tmp_path, 'undefines = ["ENABLE_FP4"]')
    assert headline() == {"inactive (#if)"}
    assert "inactive (#if)" not in headline("-D", "ENABLE_FP4")  # -D brings it back


def test_arch_and_cutlass_version_from_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_pyproject(tmp_path, 'arch = "sm_90"\nformat = "json"')
    monkeypatch.chdir(tmp_path)
    data = json.loads(invoke("check", str(HEADLINE)).output)
    # the config's sm_90 is the GPU given: an SM120 kernel of no known build is not for it
    # (a failure, class E, only where the build says the GPU loads the binary)
    assert {i["verdict"] for i in data["instantiations"]} == {"not for this GPU"}
    write_pyproject(tmp_path, 'cutlass-version = "4.5.0"\nformat = "json"')
    data = json.loads(invoke("check", str(ZERO_SLACK)).output)
    assert {i["cutlass_version"] for i in data["instantiations"]} == {"4.5.0"}


def test_config_paths_are_relative_to_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_pyproject(tmp_path, 'baseline = "ci/cutlint-baseline.json"')
    loaded = config.load(project)
    assert loaded.directory == tmp_path.resolve()
    assert (
        loaded.resolve("ci/cutlint-baseline.json")
        == tmp_path.resolve() / "ci" / "cutlint-baseline.json"
    )
    sub = tmp_path / "deep"
    sub.mkdir()
    monkeypatch.chdir(sub)
    out = CliRunner().invoke(main, ["check", str(HEADLINE), "--write-baseline"])
    assert out.exit_code == 0, out.output
    assert (tmp_path / "ci" / "cutlint-baseline.json").is_file()


def test_pre_commit_hook_definition() -> None:
    """.pre-commit-hooks.yaml, read without a YAML library: one hook with the fields it needs."""
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    fields = dict(
        line.strip().lstrip("- ").split(": ", 1)
        for line in text.splitlines()
        if ": " in line and not line.lstrip().startswith("#")
    )
    assert fields["id"] == "cutlint"
    assert fields["entry"] == "cutlint check"
    assert fields["language"] == "python"
    assert fields["files"].strip("'\"") == r"\.cu$"
    assert text.count("- id:") == 1
