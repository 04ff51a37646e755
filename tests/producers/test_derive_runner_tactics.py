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
            # the launcher macro's #define; the groupwise runner's launcher call in its csrc
            assert e["args"] and e["args_source"].startswith(("include/flashinfer/gemm/", "csrc/"))
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
    # The groupwise FP8 runner (CutlassFp8GemmRunner of gemm_sm120) is in every release.
    assert list(data["fp8_groupwise_sm120"]["releases"]) == known


def test_the_groupwise_runner_is_one_tactic_of_the_groupwise_kernel(data: dict[str, Any]) -> None:
    """get_valid_tactics returns [-1] in every release; forward passes (1, 128, 128, "MN"),
    which the csrc dispatches to CutlassGroupwiseScaledGEMMSM120<1, 128, 128, false, in, out>,
    the header's one 128x128x128 tile. 0.6.11.post2 and .post3 tune it under a second op when
    bmm_fp8 takes the SM121-specialized path."""
    gw = data["fp8_groupwise_sm120"]
    assert gw["family"] == "sm120_fp8_groupwise" and gw["module"] == "gemm_sm120"
    assert gw["prefix"] == "" and "return status == cudaSuccess" in gw["prefix_source"]
    first = gw["releases"]["0.5.0"]
    assert first["tactics"] == [
        {"id": -1, "config": "Groupwise1x128x128MN", "tile": [128, 128, 128], "swap_ab": False,
         "kernel": "default"}
    ]  # fmt: skip
    assert first["args"] == ["1", "128", "128", "false", "{input}", "{output}"]
    assert "get_valid_tactics returns [-1] (line 201)" in first["source"]
    assert "gemm.py:412 of the 0.5.0 wheel: fp8_gemm_sm100" in first["custom_ops_source"]
    ops = {v: e["custom_ops"] for v, e in gw["releases"].items()}
    two = {v for v, o in ops.items() if o == ["fp8_gemm", "fp8_gemm_sm121_specialized"]}
    assert two == {"0.6.11.post2", "0.6.11.post3"}
    assert all(o == ["fp8_gemm"] for v, o in ops.items() if v not in two)
    assert all(e.get("tactics_from") == "0.5.0" for v, e in gw["releases"].items() if v != "0.5.0")


@pytest.mark.parametrize(
    ("version", "grouped"),
    [
        ("0.5.0", {"group_gemm_fp8_nt_groupwise": "gemm.py:2571 group_gemm_fp8_nt_groupwise()"}),
        ("0.7.4", {
            "group_gemm_fp8_nt_groupwise": "gemm/gemm_base.py:11500 group_gemm_fp8_nt_groupwise()",
            "group_gemm_mxfp4_nt_groupwise": "gemm/gemm_base.py:11729 group_gemm_mxfp8_mxfp4_nt_groupwise()",
            "group_gemm_nvfp4_nt_groupwise": "gemm/gemm_base.py:11983 group_gemm_nvfp4_nt_groupwise()",
        }),
    ],
)  # fmt: skip
def test_the_grouped_groupwise_gemms_are_no_tuned_runners(
    version: str, grouped: dict[str, str]
) -> None:
    """The SM120 grouped groupwise GEMMs call the module directly, in no TunableRunner (the
    derivation stops if one is): no table is theirs (docs/pregen.md)."""
    _wheels(version)
    from cutlint.producers.flashinfer.derive import groupwise
    from cutlint.producers.flashinfer.derive.wheel import open_release

    tree = open_release(version, DEFAULT_CACHE, download=False)
    try:
        assert groupwise.untuned_calls(tree) == grouped
    finally:
        tree.close()


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
