"""The NVFP4 / MXFP4 groupwise grouped GEMM SM120 model against the compiler, byte for byte: every
row of tests/data/nvcc_sm120_fp4_group_gemm_truth.json (nvcc on the files FlashInfer 0.6.8.post1,
0.6.11.post2, 0.7.2.post1 and 0.7.4 render, against each wheel's headers: CUTLASS 4.4.2, 4.5.0)."""

from __future__ import annotations

from cutlint.cutlass.versions import format_version
from cutlint.families.sm120_fp4_group_gemm import model
from cutlint.producers.flashinfer.releases import flashinfer_releases
from cutlint.testing.truth import rows

ROWS = rows("sm120-fp4-group-gemm")


def test_truth_covers_every_release() -> None:
    releases = ("0.6.11.post2", "0.7.2.post1", "0.7.4")
    # 0.6.8.post1 (CUTLASS 4.4.2, the 13-argument macros): NVFP4 128x128x{128,256} x 2 outputs,
    # MXFP4 128x128x128 x 2 inputs x 2 outputs
    counts = {v: sum(1 for r in ROWS if r["version"] == v) for v in (*releases, "0.6.8.post1")}
    assert counts == {**dict.fromkeys(releases, 48), "0.6.8.post1": 8}
    assert tuple(model.family_data()["recipes"]) == ("0.6.8.post1", *releases)


def test_every_release_with_the_headers_has_a_recipe_on_its_own_cutlass() -> None:
    """The headers first ship in 0.6.8rc1; every release from it builds a modeled recipe, on the
    CUTLASS the release bundles (the release table's `cutlass`)."""
    releases = list(flashinfer_releases().items())
    first = [v for v, _ in releases].index("0.6.8rc1")
    for version, release in releases[first:]:
        recipe = model.recipe_for(version)
        assert recipe is not None, version
        assert recipe.cutlass == format_version(release.cutlass), version
    assert model.recipe_for("0.6.7.post3") is None
