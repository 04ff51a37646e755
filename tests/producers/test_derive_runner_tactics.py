"""data/sm120_runner_tactics.toml is what derive_runner_tactics writes from the wheels: every
release of releases.toml that has an SM120 dense GEMM runner, each list with its source."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from cutlint.producers.flashinfer.derive_runner_tactics import (
    DATA,
    DEFAULT_CACHE,
    derive_release,
    releases,
    render,
)


def _wheels(*versions: str) -> None:
    missing = [
        v
        for v in versions
        if not any(DEFAULT_CACHE.glob(f"flashinfer_python-{v}-*.whl"))
        and not (DEFAULT_CACHE / f"flashinfer-{v}" / "flashinfer" / "data").is_dir()
    ]
    if missing:
        pytest.skip(f"no wheel of {', '.join(missing)} in {DEFAULT_CACHE}")


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    with DATA.open("rb") as f:
        runners: dict[str, Any] = tomllib.load(f)["runners"]
    return runners


def test_every_release_entry_has_its_sources_and_a_list(data: dict[str, Any]) -> None:
    known = releases()
    for key, runner in data.items():
        rels = runner["releases"]
        assert list(rels) == [v for v in known if v in rels], f"{key}: releases out of order"
        for v, e in rels.items():
            assert f"of the {v} wheel" in e["source"] and e["custom_ops_source"]
            if "tactics_of" in runner:
                # it numbers another runner's tactics, in the same release
                assert v in data[runner["tactics_of"]]["releases"] and "args" not in e
                continue
            assert e["args"] and e["args_source"].startswith("include/flashinfer/gemm/")
            src = e.get("tactics_from", v)
            assert src in rels and "tactics" in rels[src], f"{key} {v}: tactics_from {src}"
            assert known.index(src) <= known.index(v)
    # FP4's runner is in every release from 0.5.0; MXFP8's from 0.6.8rc1 on.
    assert list(data["fp4_sm120"]["releases"]) == known
    mx = list(data["mxfp8_sm120"]["releases"])
    assert mx == known[known.index("0.6.8rc1") :]
    # SVDQuant SM120 (mm_nvfp4_svdquant's runner and svdquant_linear's two): 0.7.4 only
    for key in ("svdquant_sm120", "svdquant_linear_sm120", "svdquant_fused_linear_sm120"):
        assert list(data[key]["releases"]) == ["0.7.4"], key


@pytest.mark.parametrize("version", ["0.5.0", "0.6.4", "0.6.10", "0.6.11.post2", "0.7.4"])
def test_a_release_derives_to_its_committed_entry(data: dict[str, Any], version: str) -> None:
    _wheels(version)
    derived = derive_release(version, DEFAULT_CACHE, download=False)
    for key, runner in data.items():
        committed = runner["releases"].get(version)
        if committed is None:
            assert key not in derived
            continue
        src = committed.get("tactics_from", version)
        want = {k: x for k, x in committed.items() if k != "tactics_from"}
        if "tactics_of" not in runner:
            want["tactics"] = runner["releases"][src]["tactics"]
        assert dict(derived[key]) == want, f"{key} {version}"


@pytest.mark.slow
def test_the_file_is_what_the_script_writes() -> None:
    """Every release (about 10 s of reading 69 wheels): regenerate with
    `python -m cutlint.producers.flashinfer.derive_runner_tactics`."""
    versions = releases()
    _wheels(*versions)
    entries = {v: derive_release(v, DEFAULT_CACHE, download=False) for v in versions}
    assert render(entries) == Path(DATA).read_text()
