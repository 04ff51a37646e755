"""The FlashInfer release table (producers/flashinfer/data/releases.toml): sources, the facts
other code relies on, nearest-release selection, and that the wheels still give the committed data."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from cutlint.producers.flashinfer.derive.cpp import DeriveError
from cutlint.producers.flashinfer.derive.wheel import list_releases, open_release
from cutlint.producers.flashinfer.derive_releases import (
    DATA,
    derive_release,
    render,
    table_markdown,
)
from cutlint.producers.flashinfer.releases import (
    _load_releases,
    _release,
    flashinfer_releases,
    macro_parameters,
    release_for,
    version_key,
)

MACRO_14 = (
    "ArchTag_", "DataType_", "WeightType_", "OutputType_", "EpilogueTag_", "FUSION_",
    "CTA_M_", "CTA_N_", "CTA_K_", "CGA_M_", "CGA_N_", "CGA_K_", "MXFPX_", "BIAS_",
)  # fmt: skip
MACRO_17 = (
    "ArchTag_", "DataType_", "WeightType_", "OutputType_", "EpilogueSchedule_", "EpilogueTag_",
    "FUSION_", "CTA_M_", "CTA_N_", "CTA_K_", "CGA_M_", "CGA_N_", "CGA_K_", "MXFPX_",
    "DYNAMIC_CGA_", "BIAS_", "SWAP_AB_",
)  # fmt: skip


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    versions: dict[str, Any] = _load_releases()["versions"]
    return versions


def _between(lo: str, hi: str) -> list[str]:
    return [
        v for v in flashinfer_releases() if version_key(lo) <= version_key(v) <= version_key(hi)
    ]


def test_every_value_has_a_source_in_the_wheel(table: dict[str, Any]) -> None:
    for version, entry in table.items():
        for key, value in entry.items():
            if key.endswith("_source"):
                continue
            where = f"{version}.{key}"
            if isinstance(value, Mapping):
                sources = [value.get("source")]
            elif isinstance(value, list) and value and isinstance(value[0], Mapping):
                sources = [item.get("source") for item in value]
            else:
                sources = [entry.get(f"{key}_source")]
            for s in sources:
                assert isinstance(s, str) and "flashinfer/" in s, f"{where}: no source ({s!r})"


def test_the_file_is_what_the_generator_writes(table: dict[str, Any]) -> None:
    assert render(table) == DATA.read_text(), "regenerate: python -m ...derive_releases"


def test_each_release_is_read_from_its_own_run_of_lines(table: dict[str, Any]) -> None:
    """flashinfer_releases() parses only the asked release's lines (its header to the next
    release's): each such run must hold that release's whole entry and nothing else."""
    releases = flashinfer_releases()
    assert list(releases) == sorted(table, key=version_key)
    for version in table:
        assert releases[version] == _release(version, table[version]), version


def test_every_release_from_0_5_0_with_its_cutlass() -> None:
    releases = flashinfer_releases()
    assert list(releases) == sorted(releases, key=version_key)
    assert {"0.5.0", "0.5.2", "0.5.3", "0.6.3", "0.6.6", "0.7.2.post1", "0.7.4"} <= set(releases)
    cutlass = {v: ".".join(map(str, r.cutlass)) for v, r in releases.items()}
    assert {cutlass[v] for v in _between("0.5.0", "0.6.6")} == {"4.2.1"}
    assert {cutlass[v] for v in _between("0.6.7", "0.6.8.post1")} == {"4.4.2"}
    assert {cutlass[v] for v in _between("0.6.11.post2", "0.7.4")} == {"4.5.0"}
    assert cutlass["0.7.4"] == "4.5.0"


def test_the_macro_has_14_parameters_before_0_5_3_and_17_after() -> None:
    assert macro_parameters("0.5.2") == MACRO_14
    for version, release in flashinfer_releases().items():
        expected = MACRO_14 if version_key(version) < version_key("0.5.3") else MACRO_17
        assert release.macro_parameters == expected, version
        assert release.macro_parameters_source.endswith(
            "moe_gemm_tma_ws_launcher.inl:" + release.macro_parameters_source.split(":")[1]
        )


def test_sm120_dispatch_cases_are_the_tiles_the_sm120_check_accepts_for_fp4() -> None:
    """SHAPE_CASE names K in bytes of A; for FP4 (4 bits) K elements = 2 x K bytes."""
    for version, release in flashinfer_releases().items():
        (sm120,) = release.dispatch_for(120)
        assert sm120.sm_versions == (120, 121) and sm120.tile_config == "CutlassTileConfigSM120"
        assert set(sm120.tiles(a_bits=4)) == release.sm120_tiles, version
        assert release.sm120_cluster_max == (1, 1, 1)
    old, new = flashinfer_releases()["0.6.3"], flashinfer_releases()["0.7.4"]
    assert old.sm120_tiles == {(128, 128, 128), (128, 128, 256), (128, 256, 128), (256, 128, 128)}
    assert len(new.sm120_tiles) == 8 and (128, 32, 128) in new.sm120_tiles
    case = new.dispatch_for(120)[0].shape_cases[0]
    assert (case.name, case.tile(4), case.tile(8), case.tile(16)) == (
        "CtaShape128x32x64B",
        (128, 32, 128),
        (128, 32, 64),
        (128, 32, 32),
    )


def test_sm90_and_sm100_dispatch_and_cluster_rules() -> None:
    r = flashinfer_releases()["0.7.4"]
    assert r.tile_check("Sm90") == "cluster_rules"
    assert r.tile_check("Sm100") == r.tile_check("Sm103") == "are_tile_shapes_supported_sm100"
    assert r.cluster_shapes == ((1, 1, 1), (1, 2, 1), (2, 1, 1), (2, 2, 1))
    assert [(c.cga_m, c.cga_n, c.min_cta_m, c.min_cta_n) for c in r.cluster_rules] == [
        (1, 1, 0, 0),
        (2, 1, 128, 0),
        (1, 2, 0, 128),
        (2, 2, 128, 128),
    ]
    assert r.sm100_cluster_max == (2, 1, 1)
    assert flashinfer_releases()["0.5.2"].sm100_cluster_max is None
    (sm90,) = r.dispatch_for(90)
    assert sm90.tiles(8)[0] == (128, 16, 128)
    # SM103: its own FP4 cases first (under #if), then the SM100 lists as a fallback
    sm103 = r.dispatch_for(103)
    assert [d.arch_tag for d in sm103] == ["cutlass::arch::Sm103"] + ["cutlass::arch::Sm100"] * 2
    assert sm103[0].guards == (
        "defined(ENABLE_FP4) && defined(COMPILE_BLACKWELL_SM103_TMA_GROUPED_GEMMS)",
    )
    # 0.5.x: SM110 has a list of its own; 103 goes through the SM100 list
    old = flashinfer_releases()["0.5.2"]
    assert [d.sm_versions for d in old.dispatch_for(110)] == [(110,)]
    assert old.dispatch_for(103)[0].arch_tag == "cutlass::arch::Sm100"


def test_jit_arch_directory_and_moe_dev() -> None:
    releases = flashinfer_releases()
    r063, r067, r074 = releases["0.6.3"], releases["0.6.7"], releases["0.7.4"]
    assert [r063.jit_arch_dir(120, c) for c in ("12.8", "12.9", "13.0")] == ["120a"] * 3
    assert r063.jit_arch_dir(90, "12.9") == "90a" and r063.jit_arch_dir(89, "12.9") == "89"
    # 0.6.7: both 12.x to 120f, and nothing on CUDA 12.8 (the JIT raises, no arch)
    assert (r067.jit_arch_dir(121, "12.9"), r067.jit_arch_dir(120, "12.8")) == ("120f", "")
    assert [r074.jit_arch_dir(120, c) for c in ("12.8", "12.9", "13.0")] == ["120a", "120f", "120f"]
    assert (r074.jit_arch_dir(121, "13.0"), r074.jit_arch_dir(100, "13.0")) == ("121a", "100a")
    assert r074.jit_arch_dir(120, "11.8") is None
    assert {sm: r074.moe_dev_for(sm) for sm in (120, 121, 103, 100, 107, 110, 90, 89, 86)} == {
        120: "120",
        121: "120",
        103: "103",
        100: "100",
        107: "100",
        110: "100",
        90: "90",
        89: "89",
        86: None,
    }
    assert releases["0.5.2"].moe_dev_for(103) == "100"
    assert "FLASHINFER_GEN_SRC_DIR" in r074.instantiations_dir
    assert "FLASHINFER_CSRC_DIR" in releases["0.5.2"].instantiations_dir
    assert r074.generators == (
        "flashinfer/jit/gemm/cutlass/cutlass_library.py",
        "flashinfer/jit/gemm/cutlass/generate_kernels.py",
    )
    assert "fp4_gemm_cutlass_sm120.jinja" in r074.jinja_templates


@pytest.mark.parametrize(
    ("asked", "used", "says"),
    [
        ("0.6.3", "0.6.3", ""),
        ("0.7.0", "0.7.0", ""),
        ("0.7.4+cu130", "0.7.4", ""),
        ("0.7.3", "0.7.2.post1", "between"),
        ("0.6.8.post2", "0.6.8.post1", "between"),
        ("0.7.2rc4", "0.7.2rc3", "between"),
        ("0.9.0", "0.7.4", "newer than every release"),
        ("0.7.4.post1", "0.7.4", "newer than every release"),
        ("0.4.1", "0.5.0", "older than every release"),
        ("0.5.0rc3", "0.5.0", "older than every release"),
    ],
)
def test_release_for_picks_the_nearest_known_release(asked: str, used: str, says: str) -> None:
    release, why = release_for(asked)
    assert release.version == used
    if says:
        assert says in why and asked in why and used in why
    else:
        assert why == ""
    assert macro_parameters(asked) == release.macro_parameters


def test_version_key_orders_as_pep_440() -> None:
    order = ["0.5.0rc1", "0.5.0", "0.6.8.dev1", "0.6.8rc1", "0.6.8", "0.6.8.post1", "0.6.9rc1"]
    assert sorted(reversed(order), key=version_key) == order
    assert version_key("0.7") == version_key("0.7.0")
    with pytest.raises(ValueError):
        version_key("latest")


def _cache() -> Path:
    return Path(os.environ.get("CUTLINT_TEST_CACHE", Path.home() / ".cache" / "cutlint-tests"))


def _derived(version: str) -> Any:
    try:
        open_release(version, _cache()).close()
    except DeriveError as e:
        pytest.skip(f"flashinfer-python {version} unavailable: {e}")
    return derive_release(version, _cache())


@pytest.mark.parametrize("version", ["0.5.2", "0.6.3"])
def test_the_wheel_gives_the_committed_entry(version: str, table: dict[str, Any]) -> None:
    assert _derived(version) == table[version]


@pytest.mark.slow
def test_every_release_on_pypi_gives_the_committed_entry(table: dict[str, Any]) -> None:
    try:
        on_pypi = list_releases()
    except DeriveError as e:
        pytest.skip(f"pip index versions unavailable: {e}")
    assert on_pypi == list(table), "new releases on PyPI: regenerate releases.toml"
    for version in on_pypi:
        assert _derived(version) == table[version], version


def test_the_docs_table_is_current(table: dict[str, Any]) -> None:
    docs = Path(__file__).parents[2] / "docs" / "flashinfer-releases.md"
    assert table_markdown(table) in docs.read_text(), "regenerate with derive_releases --table"
