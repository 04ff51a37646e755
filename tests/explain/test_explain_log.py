"""`explain --log`: the hand-written log fixtures against the regenerated FlashInfer caches.

Each fixture in fixtures/logs says which cache it is read against (`# cache: 0.6.3`) and what
each distinct failure must be (`# expect: line N <status> <class> [<file>:<line>]`); a failure
the fixture does not expect, or an expectation no failure meets, fails the test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.explain import Agreement
from cutlint.explain.render import render_log_text
from cutlint.families.base import moe_args
from cutlint.records import ElementType, Fusion

FIXTURES = Path(__file__).parent.parent.parent / "fixtures" / "logs"
STATUS = {
    "explained": Agreement.EXPLAINED,
    "contradicts": Agreement.CONTRADICTS,
    "not-decidable": Agreement.NOT_DECIDABLE,
    "not-modeled": Agreement.NOT_MODELED,
    "not-found": Agreement.UNMAPPED,
    "unrecognized": Agreement.UNRECOGNIZED,
}
EXPECT = re.compile(r"^# expect: line (\d+) (\S+) ([A-G-])(?: (\S+):(\d+))?$", re.M)
HEADLINE = (FIXTURES / "flashinfer-0.6.3-autotuner.log").read_text().splitlines()[6]
M256 = "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"


def _fixture(
    path: Path,
) -> tuple[str, list[tuple[int, Agreement, str, str | None, int | None]], list[int]]:
    text = path.read_text()
    version = re.search(r"^# cache: (\S+)$", text, re.M)
    assert version, f"{path.name}: no `# cache:` line"
    expects = []
    for m in EXPECT.finditer(text):
        where = (m[4], int(m[5])) if m[4] else (None, None)
        expects.append((int(m[1]), STATUS[m[2]], m[3], *where))
    summaries = [int(n) for n in re.findall(r"^# summary: line (\d+)$", text, re.M)]
    return version[1], expects, summaries


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.log")), ids=lambda p: p.name)
def test_log_fixture(path: Path, real_cache: Any) -> None:
    version, expects, summaries = _fixture(path)
    # The JIT cache's generated/ directory, as a user points --cache at it.
    explained = api.explain_log(path, real_cache(version).parents[3])
    got = {f.log_lines[0]: f for f in explained.failures}
    assert sorted(got) == sorted(e[0] for e in expects), render_log_text(explained)
    for line, status, cls, name, at in expects:
        f = got[line]
        assert f.agreement is status, f"line {line}: {f.agreement}: {f.explanation}"
        assert (f.failure_class.value if f.failure_class else "-") == cls, f"line {line}"
        if name is not None:
            assert [
                (Path(r.instantiation.span.path).name, r.instantiation.span.line) for r in f.matches
            ] == [(name, at)]
    assert [s.event.line_no for s in explained.summaries] == summaries


def test_headline_line_maps_to_the_finalize_bf16_instantiation_and_says_why(
    real_cache: Any,
) -> None:
    """The must-show: flashinfer#2077's line against the regenerated 0.6.3 cache."""
    explained = api.explain_log(FIXTURES / "flashinfer-0.6.3-autotuner.log", real_cache("0.6.3"))
    f = explained.failures[0]
    assert f.event.text == HEADLINE[HEADLINE.index("[Autotuner]") :]
    (r,) = f.matches
    m, res = moe_args(r), r.resources
    assert m is not None and res is not None
    assert (Path(r.instantiation.span.path).name, r.instantiation.span.line) == (M256, 60)
    assert (m.fusion, str(m.cta_tile), m.swap_ab, m.output_type) == (
        Fusion.FINALIZE,
        "256x128x128",
        False,
        ElementType.BF16,
    )
    assert (res.stage_count.stages, res.layout.size, res.arch.smem_optin) == (3, 102400, 101376)
    assert (
        f.agreement is Agreement.EXPLAINED
        and f.failure_class is not None
        and f.failure_class.value == "A"
    )
    for words in (
        "3 stages",
        "102,400 B",
        "101,376 B",
        "the SwapAB on variant fits (74,752 B, 2 stages)",
    ):
        assert words in f.explanation
    assert (
        f.tactic_reading is not None and "GEMM2 FINALIZE 256x128x128 SwapAB off" in f.tactic_reading
    )
    assert "agrees with the file:line" in f.tactic_reading


def test_cli_prints_the_explanation_and_exits_1_for_a_log_with_failures(
    real_cache: Any, tmp_path: Path
) -> None:
    log = tmp_path / "one-line.log"
    log.write_text(HEADLINE + "\n")
    out = CliRunner().invoke(
        main, ["explain", "--log", str(log), "--cache", str(real_cache("0.6.3"))]
    )
    assert out.exit_code == 1, out.output
    for words in (
        "line 60 is the macro name's line",
        "fails initialize(): 3 stages, 102,400 / 101,376 B",
        "class:     A",
        "status:    explained",
        "1 distinct failure: 1 explained, 0 not decidable statically, 0 contradicting the model",
    ):
        assert words in out.output
    data = json.loads(
        CliRunner()
        .invoke(
            main,
            ["explain", "--log", str(log), "--cache", str(real_cache("0.6.3")), "--format", "json"],
        )
        .output
    )
    assert data["summary"] == {
        "failures": 1,
        "explained": 1,
        "contradicts": 0,
        "not_decidable": 0,
        "not_modeled": 0,
        "unmapped": 0,
        "stated": 0,
        "unrecognized": 0,
        "findings": 0,
    }


def test_cli_exit_codes(real_cache: Any, tmp_path: Path) -> None:
    quiet = tmp_path / "quiet.log"
    quiet.write_text("[Autotuner]: Autotuning process ends\n")
    cache = str(real_cache("0.6.3"))
    assert (
        CliRunner().invoke(main, ["explain", "--log", str(quiet), "--cache", cache]).exit_code == 0
    )
    assert CliRunner().invoke(main, ["explain", "--log", str(quiet)]).exit_code == 0
    assert (
        CliRunner()
        .invoke(main, ["explain", "--log", str(tmp_path / "no.log"), "--cache", cache])
        .exit_code
        == 2
    )
    nul = tmp_path / "nul.log"
    nul.write_bytes(b"\0\0")
    assert CliRunner().invoke(main, ["explain", "--log", str(nul), "--cache", cache]).exit_code == 2


def test_a_log_from_another_flashinfer_version_is_noted(real_cache: Any, tmp_path: Path) -> None:
    log = tmp_path / "v052.log"
    log.write_text(HEADLINE + "\n2 0x7c6d /home/u/.cache/flashinfer/0.5.2/120a/cached_ops/x.so\n")
    explained = api.explain_log(log, real_cache("0.6.3"))
    assert any("0.5.2" in n and "0.6.3" in n for n in explained.notes)


RUNNER_LINE = (
    "[MXFP8 SM120 gemm Runner] Failed to initialize cutlass MXFP8 gemm on sm120. Error: Error "
    "Internal\n"
)


def _explained(tmp_path: Path, text: str, **kw: Any) -> Any:
    log = tmp_path / "run.log"
    log.write_text(text)
    return api.explain_log(log, **kw)


def test_no_cache_the_release_comes_from_the_log_with_its_line(tmp_path: Path) -> None:
    e = _explained(tmp_path, "[pip3] flashinfer-python==0.7.4\n" + RUNNER_LINE)
    assert e.flashinfer_version == "0.7.4"
    assert e.flashinfer_version_origin == (
        "the log's version banner at line 1 (`flashinfer-python==0.7.4`)"
    )
    assert any("FlashInfer 0.7.4: the log's version banner at line 1" in n for n in e.notes)


def test_the_flag_outranks_what_the_log_says(tmp_path: Path) -> None:
    e = _explained(
        tmp_path, "[pip3] flashinfer-python==0.7.4\n" + RUNNER_LINE, flashinfer_version="0.6.3"
    )
    assert (e.flashinfer_version, e.flashinfer_version_origin) == (
        "0.6.3",
        "given (--flashinfer-version)",
    )


def test_nothing_says_the_release_is_context_unknown_not_a_guess(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cutlint.context import packages

    monkeypatch.setattr(packages, "installed_producer", lambda *a, **k: None)
    e = _explained(tmp_path, RUNNER_LINE)
    assert e.flashinfer_version is None and e.flashinfer_version_origin is None
    assert any(
        n.startswith("context unknown: the log names no FlashInfer release") for n in e.notes
    )
    # two releases named: not a guess between them
    e = _explained(tmp_path, "flashinfer-python==0.7.4\nflashinfer-python==0.6.3\n" + RUNNER_LINE)
    assert e.flashinfer_version is None
    assert any("context unknown: the log names FlashInfer 0.6.3, 0.7.4" in n for n in e.notes)


def test_the_installed_package_when_the_log_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cutlint.context import packages

    pkg = packages.Installed(
        producer="flashinfer",
        distribution="flashinfer-python",
        version="0.7.2.post1",
        where="flashinfer-python 0.7.2.post1 (installed)",
    )
    monkeypatch.setattr(packages, "installed_producer", lambda *a, **k: pkg)
    e = _explained(tmp_path, RUNNER_LINE)
    assert e.flashinfer_version == "0.7.2.post1"
    assert (e.flashinfer_version_origin or "").startswith("installed package (flashinfer-python")
